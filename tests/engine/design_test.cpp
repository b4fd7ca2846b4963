// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <set>

#include "arbo/kernel/context.hpp"
#include "arbo/kernel/design.hpp"

namespace arbo::kernel {
namespace {

sdk::Space mixed_space() {
  auto cond = sdk::Parameter::real("lr", 1e-4, 1e-1, true);
  cond.condition = sdk::Condition{"opt", {std::string("adam")}};
  return sdk::Space({sdk::Parameter::real("x", -5, 10), sdk::Parameter::integer("n", 1, 8),
                     sdk::Parameter::categorical("opt", {"adam", "sgd", "rmsprop"}),
                     sdk::Parameter::binary("flag"), cond});
}

class DesignTest : public ::testing::TestWithParam<DesignMethod> {};

TEST_P(DesignTest, PointsAreValidDeterministicAndSeedDependent) {
  const sdk::Space space = mixed_space();
  const auto a = make_design(space, GetParam(), 16, 7, nullptr);
  const auto b = make_design(space, GetParam(), 16, 7, nullptr);
  const auto c = make_design(space, GetParam(), 16, 8, nullptr);
  ASSERT_EQ(a.size(), 16u);
  ASSERT_EQ(c.size(), 16u);
  bool differs = false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_TRUE(space.contains(a[i])) << space.describe(a[i]);
    EXPECT_EQ(a[i], b[i]);
    differs = differs || a[i] != c[i];
  }
  EXPECT_TRUE(differs) << "different seeds gave the same design";
}

TEST_P(DesignTest, KnownConstraintsAreRespected) {
  const sdk::Space space = mixed_space();
  const auto feasible = [](const Eigen::VectorXd& x) { return x[0] + x[1] <= 3.0; };
  const auto d = make_design(space, GetParam(), 12, 3, feasible);
  ASSERT_EQ(d.size(), 12u);
  for (const auto& x : d) EXPECT_LE(x[0] + x[1], 3.0);
}

TEST_P(DesignTest, ImpossibleConstraintsGiveFewerPoints) {
  const sdk::Space space = mixed_space();
  const auto d = make_design(
      space, GetParam(), 5, 3, [](const Eigen::VectorXd&) { return false; }, {}, 1000);
  EXPECT_TRUE(d.empty());
}

TEST_P(DesignTest, BalanceEqualitiesAreKeptWhereRejectionFindsNoPoint) {
  // Four fine balances over 40 binaries and a real: a uniform point keeps them with
  // probability 0.004, so 1,000 draws of rejection alone give about 4 of the 30 points.
  std::vector<sdk::Parameter> params;
  for (int i = 0; i < 40; ++i) params.push_back(sdk::Parameter::binary("x" + std::to_string(i)));
  params.push_back(sdk::Parameter::real("r", 0, 1));
  const sdk::Space space(params);
  std::vector<sdk::BalancePair> pairs;
  for (Eigen::Index j = 0; j < 4; ++j) {
    sdk::BalancePair p;
    for (Eigen::Index k = 0; k < 5; ++k) {
      p.a.push_back(10 * j + k);
      p.b.push_back(10 * j + 5 + k);
    }
    pairs.push_back(p);
  }
  const auto balanced = [](const Eigen::VectorXd& x) {
    for (int j = 0; j < 4; ++j)
      if (x.segment(10 * j, 5).sum() != x.segment(10 * j + 5, 5).sum()) return false;
    return true;
  };
  const auto d = make_design(space, GetParam(), 30, 5, balanced, pairs, 1000);
  ASSERT_EQ(d.size(), 30u);
  for (const auto& x : d) {
    EXPECT_TRUE(balanced(x));
    EXPECT_TRUE(space.contains(x));
  }
  // The same seed, the same design (a resumed study's); the real coordinate still varies.
  EXPECT_EQ(make_design(space, GetParam(), 30, 5, balanced, pairs, 1000), d);
  EXPECT_NE(d[0][40], d[1][40]);
  EXPECT_LT(make_design(space, GetParam(), 30, 5, balanced, {}, 1000).size(), 30u);
}

INSTANTIATE_TEST_SUITE_P(Methods, DesignTest,
                         ::testing::Values(DesignMethod::Random, DesignMethod::LatinHypercube,
                                           DesignMethod::Sobol));

TEST(Design, LatinHypercubeStratifiesEveryRealDimension) {
  const sdk::Space space({sdk::Parameter::real("a", 0, 1), sdk::Parameter::real("b", 0, 1)});
  const auto d = make_design(space, DesignMethod::LatinHypercube, 10, 1, nullptr);
  for (int j = 0; j < 2; ++j) {
    std::set<int> strata;
    for (const auto& x : d) strata.insert(static_cast<int>(x[j] * 10));
    EXPECT_EQ(strata.size(), 10u) << "dimension " << j;
  }
}

TEST(Design, SobolCoversDiscreteValuesEvenly) {
  const sdk::Space space({sdk::Parameter::categorical("c", {"a", "b", "c", "d"})});
  const auto d = make_design(space, DesignMethod::Sobol, 64, 11, nullptr);
  std::map<int, int> counts;
  for (const auto& x : d) counts[static_cast<int>(x[0])]++;
  ASSERT_EQ(counts.size(), 4u);
  for (const auto& [v, n] : counts) EXPECT_EQ(n, 16) << "choice " << v;
}

TEST(KernelContext, ReseedGivesReproducibleIndependentStreams) {
  KernelContext a("x/a", nullptr, nullptr), b("x/b", nullptr, nullptr);
  a.reseed(1, 5, 2);
  b.reseed(1, 5, 2);
  EXPECT_EQ(a.rng()(), b.rng()());
  b.reseed(1, 6, 2);
  a.reseed(1, 5, 2);
  EXPECT_NE(a.rng()(), b.rng()());
  EXPECT_FALSE(a.cancelled());
  a.set_budget(-1);
  EXPECT_TRUE(std::isinf(a.seconds_left()));
  std::atomic<bool> stop{false};
  KernelContext c("x/c", nullptr, &stop);
  EXPECT_FALSE(c.cancelled());
  stop = true;
  EXPECT_TRUE(c.cancelled());
}

}  // namespace
}  // namespace arbo::kernel
