// SPDX-License-Identifier: MIT
// sdk/balance.hpp: the detection of subset-balance equalities among formulating constraints,
// and the exact uniform sampler of the points that keep them (the initial design of the
// constrained Ising problems, Papalexopoulos et al. 2022, Sec. 5.2). Fixed seeds; frequency
// tolerances of five standard deviations, so a sampler that is not uniform fails.
#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include <arbo/sdk/balance.hpp>
#include <arbo/sdk/capabilities/constraint.hpp>
#include <arbo/sdk/model.hpp>

namespace {

using arbo::sdk::BalancePair;
using arbo::sdk::BalanceStructure;
using arbo::sdk::detect_balance_pairs;
using arbo::sdk::Parameter;
using arbo::sdk::Space;

// Equality rows given as coefficient vectors, as constraint/polynomial formulates them.
class EqualityRows final : public arbo::sdk::Constraint, public arbo::sdk::FormulatesConstraint {
 public:
  EqualityRows(std::vector<Eigen::VectorXd> rows, std::vector<double> rhs)
      : rows_(std::move(rows)), rhs_(std::move(rhs)) {}
  double violation(const Eigen::VectorXd& x) const override {
    double worst = 0.0;
    for (std::size_t k = 0; k < rows_.size(); ++k)
      worst = std::max(worst, std::abs(rows_[k].dot(x) - rhs_[k]));
    return worst;
  }
  void formulate(arbo::sdk::Model& model, const arbo::sdk::PointVariables& point) const override {
    for (std::size_t k = 0; k < rows_.size(); ++k) {
      arbo::sdk::LinearRow row;
      row.sense = arbo::sdk::RowSense::Equal;
      row.rhs = rhs_[k];
      for (Eigen::Index i = 0; i < rows_[k].size(); ++i) {
        if (rows_[k][i] != 0.0)
          row.terms.push_back({point.x_vars[static_cast<std::size_t>(i)], rows_[k][i]});
      }
      model.add_linear_row(row);
    }
  }

 private:
  std::vector<Eigen::VectorXd> rows_;
  std::vector<double> rhs_;
};

// A constraint that cannot formulate itself.
class ByValue final : public arbo::sdk::Constraint {
 public:
  double violation(const Eigen::VectorXd& x) const override { return std::max(0.0, x[0] - 0.5); }
};

Eigen::VectorXd row(int d, std::initializer_list<std::pair<int, double>> terms) {
  Eigen::VectorXd r = Eigen::VectorXd::Zero(d);
  for (const auto& [i, c] : terms) r[i] = c;
  return r;
}

TEST(sdk_balance, detects_scaled_subset_equalities_and_nothing_else) {
  const Space space({Parameter::binary("x0"), Parameter::binary("x1"), Parameter::binary("x2"),
                     Parameter::binary("x3"), Parameter::binary("x4"), Parameter::binary("x5"),
                     Parameter::integer("n", 0, 1), Parameter::binary("x7"),
                     Parameter::binary("x8")});
  const int d = 9;
  // A scaled balance (0.2 x (x0 + x1 - x2 - x3) = 0) and one over x4 | x5.
  const EqualityRows balance(
      {row(d, {{0, 0.2}, {1, 0.2}, {2, -0.2}, {3, -0.2}}), row(d, {{4, 1.0}, {5, -1.0}})},
      {0.0, 0.0});
  // Not balances: a right-hand side of 1, unequal magnitudes, an integer coordinate.
  const EqualityRows rhs({row(d, {{7, 1.0}, {8, -1.0}})}, {1.0});
  const EqualityRows weights({row(d, {{7, 2.0}, {8, -1.0}})}, {0.0});
  const EqualityRows integer({row(d, {{6, 1.0}, {7, -1.0}})}, {0.0});
  const ByValue by_value;
  const BalanceStructure s =
      detect_balance_pairs(space, {&balance, &rhs, &weights, &integer, &by_value});
  ASSERT_EQ(s.pairs.size(), 2u);
  EXPECT_EQ(s.pairs[0].a, (std::vector<Eigen::Index>{0, 1}));
  EXPECT_EQ(s.pairs[0].b, (std::vector<Eigen::Index>{2, 3}));
  EXPECT_EQ(s.pairs[1].a, (std::vector<Eigen::Index>{4}));
  EXPECT_EQ(s.captured, (std::vector<char>{1, 0, 0, 0, 0}));
  EXPECT_EQ(s.captured_count, 1u);
  EXPECT_EQ(s.in_pair, (std::vector<char>{1, 1, 1, 1, 1, 1, 0, 0, 0}));

  // Two balances sharing x1 cannot be mutated independently: both are left to the checks.
  const EqualityRows overlapping({row(d, {{0, 1.0}, {1, -1.0}}), row(d, {{1, 1.0}, {2, -1.0}})},
                                 {0.0, 0.0});
  const BalanceStructure o = detect_balance_pairs(space, {&overlapping});
  EXPECT_TRUE(o.pairs.empty());
  EXPECT_EQ(o.captured, (std::vector<char>{0}));

  // A balance over a conditional binary (inactive, it keeps its default) is left alone too.
  auto conditional = Parameter::binary("c");
  conditional.condition = arbo::sdk::Condition{"x0", {true}};
  const Space with_condition({Parameter::binary("x0"), Parameter::binary("x1"), conditional});
  const EqualityRows over_conditional({row(3, {{1, 1.0}, {2, -1.0}})}, {0.0});
  EXPECT_TRUE(detect_balance_pairs(with_condition, {&over_conditional}).pairs.empty());
  EXPECT_EQ(detect_balance_pairs(
                Space({Parameter::binary("x0"), Parameter::binary("x1"), Parameter::binary("c")}),
                {&over_conditional})
                .pairs.size(),
            1u);
}

TEST(sdk_balance, sampled_points_keep_every_pair_and_leave_the_rest_alone) {
  // Pairs of unequal sides, one of them a single coordinate; coordinates 3 and 7 are free.
  const std::vector<BalancePair> pairs{{{0, 1}, {2}}, {{4}, {5, 6, 8}}};
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  Eigen::VectorXd u(9), x(9);
  for (int r = 0; r < 500; ++r) {
    for (Eigen::Index j = 0; j < 9; ++j) u[j] = unit(rng);
    x.setConstant(0.5);
    arbo::sdk::balance_from_unit(pairs, u, x);
    EXPECT_EQ(x[0] + x[1], x[2]) << r;
    EXPECT_EQ(x[4], x[5] + x[6] + x[8]) << r;
    EXPECT_EQ(x[3], 0.5);
    EXPECT_EQ(x[7], 0.5);
    for (const Eigen::Index i : {0, 1, 2, 4, 5, 6, 8}) EXPECT_TRUE(x[i] == 0.0 || x[i] == 1.0);
  }
  // Equal draws (a Sobol corner, a degenerate generator) still give a balanced point.
  u.setConstant(0.25);
  arbo::sdk::balance_from_unit(pairs, u, x);
  EXPECT_EQ(x[0] + x[1], x[2]);
  EXPECT_EQ(x[4], x[5] + x[6] + x[8]);
}

TEST(sdk_balance, sampled_points_are_uniform_over_the_balanced_assignments) {
  // a = {0, 1}, b = {2, 3, 4}: sum_c C(2, c) C(3, c) = 1 + 6 + 3 = 10 balanced assignments, each
  // of probability 1/10. A sampler drawing the count c uniformly, or each side independently
  // and repairing, puts 1/3 or more on c = 0 (the all-zero point) and fails.
  const std::vector<BalancePair> pairs{{{0, 1}, {2, 3, 4}}};
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  Eigen::VectorXd u(5), x(5);
  std::map<int, int> count;  // assignment as a 5-bit number -> draws
  const int draws = 40000;
  for (int r = 0; r < draws; ++r) {
    for (Eigen::Index j = 0; j < 5; ++j) u[j] = unit(rng);
    arbo::sdk::balance_from_unit(pairs, u, x);
    ASSERT_EQ(x[0] + x[1], x[2] + x[3] + x[4]);
    int code = 0;
    for (Eigen::Index j = 0; j < 5; ++j) code = 2 * code + static_cast<int>(x[j]);
    ++count[code];
  }
  ASSERT_EQ(count.size(), 10u);
  const double expected = draws / 10.0;
  const double sd = std::sqrt(draws * 0.1 * 0.9);  // 60
  for (const auto& [code, n] : count) EXPECT_NEAR(n, expected, 5.0 * sd) << code;
}

}  // namespace
