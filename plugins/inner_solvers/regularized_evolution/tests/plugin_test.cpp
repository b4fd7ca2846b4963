// SPDX-License-Identifier: MIT
// inner_solver/regularized_evolution through its real shared object: the conformance kit;
// NN+RegEvo on a known acquisition (batched scoring, better than random search with the same
// budget, exact on a tiny space); exclusion of evaluated points and the proof that every point
// is evaluated; the model-free ranking of black-box-infeasible observations; ConEvo on
// balance equalities and the generic rejection of other known constraints.
#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <arbo/sdk/capabilities/constraint.hpp>
#include <arbo/sdk/capabilities/inner_solver.hpp>
#include <arbo/sdk/error.hpp>
#include <arbo/sdk/exclusion.hpp>
#include <arbo/sdk/testing/conformance.hpp>

#include "common/fine_balances.hpp"

namespace {

using namespace arbo::sdk;
using arbo::sdk::testing::PluginUnderTest;
using arbo::sdk::testing::TestContext;

const std::string kPlugin = ARBO_PLUGIN_DIR "/libarbo_inner_solver_regularized_evolution.so";

TEST(regularized_evolution_plugin, conforms) {
  arbo::sdk::testing::expect_plugin_conforms(kPlugin);
}

TEST(regularized_evolution_plugin, conforms_with_conevo_and_uniform_real_mutation) {
  arbo::sdk::testing::ConformanceOptions o;
  o.param_overrides["inner_solver/regularized_evolution"] = {
      {"operators", std::string("conevo")},
      {"real_mutation", std::string("uniform")},
      {"candidates", std::int64_t{300}}};
  arbo::sdk::testing::expect_plugin_conforms(kPlugin, o);
}

const ComponentInfo& component() {
  // Never destroyed, so the library stays reachable for the sanitizer build's leak check.
  static auto* loaded = new PluginUnderTest(kPlugin);
  const ComponentInfo* info = loaded->find(Kind::InnerSolver, "regularized_evolution");
  if (info == nullptr) throw std::runtime_error("no inner_solver/regularized_evolution");
  return *info;
}

struct Solver {
  Solver(const Space& s, const std::map<std::string, ParamValue>& raw, std::uint64_t seed = 1)
      : ctx(seed),
        params(validate_params(component().params(), raw, "inner_solver/regularized_evolution")),
        space(s) {
    object.reset(component().create(CreateArgs{ctx, params, space}));
    solver = dynamic_cast<InnerSolver*>(object.get());
    if (solver == nullptr) throw std::runtime_error("not an inner solver");
  }
  Proposal solve(const Acquisition* acq, const Dataset& data,
                 std::vector<const Constraint*> cons = {}, bool exclude = false) {
    SolveRequest request{acq, space, std::move(cons), data};
    request.exclude_evaluated = exclude;
    return solver->maximize(request);
  }
  TestContext ctx;
  ParamSet params;
  Space space;
  std::unique_ptr<Component> object;
  InnerSolver* solver = nullptr;
};

// sum_i table(i, x_i) over categorical coordinates: the maximum is the argmax per position.
class Additive final : public Acquisition {
 public:
  explicit Additive(Eigen::MatrixXd table) : table_(std::move(table)) {}
  void bind(const AcquisitionInputs&) override {}
  double value(const Eigen::VectorXd& x) const override {
    ++point_calls;
    return at(x);
  }
  void values(const Eigen::MatrixXd& X, Eigen::VectorXd& out) const override {
    ++batches;
    batch_rows += X.rows();
    out.resize(X.rows());
    for (Eigen::Index r = 0; r < X.rows(); ++r) out[r] = at(X.row(r).transpose());
  }
  double at(const Eigen::VectorXd& x) const {
    double v = 0.0;
    for (Eigen::Index i = 0; i < table_.rows(); ++i)
      v += table_(i, static_cast<Eigen::Index>(x[i]));
    return v;
  }
  double maximum() const { return table_.rowwise().maxCoeff().sum(); }
  mutable long point_calls = 0, batches = 0, batch_rows = 0;

 private:
  Eigen::MatrixXd table_;
};

Space categoricals(int n, int k) {
  std::vector<std::string> choices;
  for (int c = 0; c < k; ++c) choices.push_back("v" + std::to_string(c));
  std::vector<Parameter> p;
  for (int i = 0; i < n; ++i) p.push_back(Parameter::categorical("c" + std::to_string(i), choices));
  return Space(p);
}

Space binaries(int n) {
  std::vector<Parameter> p;
  for (int i = 0; i < n; ++i) p.push_back(Parameter::binary("x" + std::to_string(i)));
  return Space(p);
}

Eigen::MatrixXd random_table(int n, int k, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd t(n, k);
  for (Eigen::Index i = 0; i < t.size(); ++i) t.data()[i] = normal(rng);
  return t;
}

// `n` uniform points of `space` as observations with objective `y(x)` (minimized).
template <class Y>
Dataset observations(const Space& space, int n, std::uint64_t seed, Y&& y) {
  Dataset data;
  data.reset(space.size(), {});
  std::mt19937_64 rng(seed);
  const Eigen::MatrixXd X =
      arbo::sdk::testing::random_points(space, static_cast<std::size_t>(n), rng);
  for (Eigen::Index r = 0; r < X.rows(); ++r) {
    const Eigen::VectorXd x = X.row(r).transpose();
    data.append(x, y(x), Eigen::VectorXd());
  }
  return data;
}

TEST(regularized_evolution_plugin, nn_regevo_scores_batches_and_beats_random_search) {
  // 16 positions over 4 tokens (4^16 points), the paper's RegEvo settings with B = 2,000.
  const Space space = categoricals(16, 4);
  const Eigen::MatrixXd table = random_table(16, 4, 42);
  double evo = 0.0, random = 0.0;
  int wins = 0;
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    Additive acq(table);
    const Dataset data = observations(space, 50, seed, [](const Eigen::VectorXd&) { return 0.0; });
    Solver s(space, {{"candidates", std::int64_t{2000}}}, seed);
    const Proposal p = s.solve(&acq, data);
    ASSERT_TRUE(p.found) << p.note;
    EXPECT_EQ(acq.point_calls, 0);         // batches only
    EXPECT_EQ(acq.batch_rows, 50 + 2000);  // the observations, then B children
    EXPECT_EQ(acq.batches, 1 + 20);        // one call for the population, b = 100 per batch
    EXPECT_DOUBLE_EQ(p.value, acq.at(p.x));
    EXPECT_NE(p.note.find("RegEvo"), std::string::npos) << p.note;
    // Random search with the same budget: the best of 2,050 uniform points.
    std::mt19937_64 rng(seed + 100);
    const Eigen::MatrixXd U = arbo::sdk::testing::random_points(space, 2050, rng);
    double best = -1e300;
    for (Eigen::Index r = 0; r < U.rows(); ++r) best = std::max(best, acq.at(U.row(r).transpose()));
    evo += p.value;
    random += best;
    wins += p.value > best ? 1 : 0;
  }
  EXPECT_GE(wins, 4) << "evolution " << evo / 5 << ", random " << random / 5;
  EXPECT_GT(evo / 5, random / 5 + 0.5);
}

TEST(regularized_evolution_plugin, nn_regevo_finds_the_maximum_of_a_tiny_space) {
  // 3^4 = 81 points; the argmax is not an observation, and 1,000 children find it.
  const Space space = categoricals(4, 3);
  const Eigen::MatrixXd table = random_table(4, 3, 5);
  Additive acq(table);
  const Dataset data = observations(space, 5, 9, [](const Eigen::VectorXd&) { return 0.0; });
  const EvaluatedPoints seen(data);
  Eigen::VectorXd argmax(4);
  for (Eigen::Index i = 0; i < 4; ++i) table.row(i).maxCoeff(&argmax[i]);
  ASSERT_FALSE(seen.contains(argmax));
  Solver s(space, {{"candidates", std::int64_t{1000}}});
  const Proposal p = s.solve(&acq, data);
  ASSERT_TRUE(p.found) << p.note;
  EXPECT_EQ(p.x, argmax);
  EXPECT_DOUBLE_EQ(p.value, acq.maximum());
}

TEST(regularized_evolution_plugin, never_proposes_an_evaluated_point) {
  // 2^4 = 16 points, 12 of them evaluated, among them the acquisition's maximum.
  const Space space = binaries(4);
  Eigen::MatrixXd table(4, 2);
  table << 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0;  // maximum at (1, 1, 1, 1)
  for (const bool exclude : {false, true}) {
    for (std::uint64_t seed = 1; seed <= 10; ++seed) {
      Dataset data;
      data.reset(4, {});
      for (int k = 15; k >= 4; --k) {  // every point with code >= 4, the maximum included
        Eigen::VectorXd x(4);
        for (int i = 0; i < 4; ++i) x[i] = (k >> i) & 1;
        data.append(x, 0.0, Eigen::VectorXd());
      }
      const EvaluatedPoints seen(data);
      Additive acq(table);
      // p_m = 0.3: with the paper's 0.01 the tournament (T = 20 > 12 members) keeps breeding
      // copies of the evaluated maximum, and the proposal comes from the uniform fallback.
      Solver s(space, {{"candidates", std::int64_t{300}}, {"mutation_probability", 0.3}}, seed);
      const Proposal p = s.solve(&acq, data, {}, exclude);
      ASSERT_TRUE(p.found) << p.note;
      EXPECT_FALSE(seen.contains(p.x)) << p.note;
      // The best unevaluated point: code 3 = (1, 1, 0, 0) has value 2, the most among 0..3.
      EXPECT_DOUBLE_EQ(p.value, 2.0) << p.note;
      Solver free(space, {}, seed);
      const Proposal q = free.solve(nullptr, data, {}, exclude);
      ASSERT_TRUE(q.found) << q.note;
      EXPECT_FALSE(seen.contains(q.x)) << q.note;
    }
  }
}

TEST(regularized_evolution_plugin, reports_exhaustion_when_every_point_is_evaluated) {
  const Space space = binaries(3);
  Dataset data;
  data.reset(3, {});
  for (int k = 0; k < 8; ++k) {
    Eigen::VectorXd x(3);
    for (int i = 0; i < 3; ++i) x[i] = (k >> i) & 1;
    data.append(x, static_cast<double>(k), Eigen::VectorXd());
  }
  Eigen::MatrixXd table = Eigen::MatrixXd::Zero(3, 2);
  for (const bool model : {true, false}) {
    Additive acq(table);
    Solver s(space, {{"candidates", std::int64_t{200}}, {"max_tries", std::int64_t{500}}});
    const Proposal p = s.solve(model ? &acq : nullptr, data, {}, true);
    EXPECT_FALSE(p.found) << p.note;
    EXPECT_TRUE(p.exhausted) << p.note;
    EXPECT_NE(p.note.find("every feasible point of the 8 is evaluated"), std::string::npos)
        << p.note;
    // Without the exclusion an evaluated point is better than none.
    Solver t(space, {{"candidates", std::int64_t{200}}, {"max_tries", std::int64_t{500}}});
    const Proposal q = t.solve(model ? &acq : nullptr, data, {}, false);
    EXPECT_TRUE(q.found) << q.note;
    EXPECT_FALSE(q.exhausted);
  }
}

TEST(regularized_evolution_plugin, model_free_ranks_black_box_infeasible_observations_last) {
  // Two observations: all zeros (feasible, y = 5) and all ones (y = -100, violating the
  // black-box constraint). With one parent (conevo, no balance pairs) and p_m = 0.05, every
  // child is within a few flips of the feasible one.
  const Space space = binaries(40);
  for (const bool ones_feasible : {false, true}) {
    Dataset data;
    data.reset(40, {"c"});
    data.append(Eigen::VectorXd::Zero(40), 5.0, Eigen::VectorXd::Constant(1, -1.0));
    data.append(Eigen::VectorXd::Ones(40), -100.0,
                Eigen::VectorXd::Constant(1, ones_feasible ? -1.0 : 1.0));
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
      Solver s(space, {{"operators", std::string("conevo")}, {"tournament_size", std::int64_t{2}}},
               seed);
      const Proposal p = s.solve(nullptr, data);
      ASSERT_TRUE(p.found) << p.note;
      const double ones = p.x.sum();
      if (ones_feasible) {
        EXPECT_GT(ones, 30.0) << p.note;
      } else {
        EXPECT_LT(ones, 10.0) << p.note;
      }
    }
  }
}

using Balances = arbo::test::FineBalances;

// At most `k` ones among the first ten coordinates; cannot formulate itself.
class AtMost final : public Constraint {
 public:
  explicit AtMost(double k) : k_(k) {}
  double violation(const Eigen::VectorXd& x) const override {
    return std::max(0.0, x.head(10).sum() - k_);
  }

 private:
  double k_;
};

// Balanced observations of `n` binaries: in each pair c ones on both sides, c uniform in 0..5.
Dataset balanced_observations(int n, int count, std::uint64_t seed) {
  Dataset data;
  data.reset(static_cast<std::size_t>(n), {});
  std::mt19937_64 rng(seed);
  for (int r = 0; r < count; ++r) {
    Eigen::VectorXd x = Eigen::VectorXd::Zero(n);
    for (int j = 0; j < n / 10; ++j) {
      const int c = static_cast<int>(rng() % 6);
      std::vector<int> a{0, 1, 2, 3, 4}, b{0, 1, 2, 3, 4};
      std::shuffle(a.begin(), a.end(), rng);
      std::shuffle(b.begin(), b.end(), rng);
      for (int k = 0; k < c; ++k) {
        x[10 * j + a[static_cast<std::size_t>(k)]] = 1.0;
        x[10 * j + 5 + b[static_cast<std::size_t>(k)]] = 1.0;
      }
    }
    data.append(x, static_cast<double>(rng() % 1000), Eigen::VectorXd());
  }
  return data;
}

TEST(regularized_evolution_plugin, conevo_keeps_the_balances_with_and_without_a_model) {
  const Space space = binaries(40);
  const Balances balances(40);
  Eigen::MatrixXd table = random_table(40, 2, 3);
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const Dataset data = balanced_observations(40, 30, seed);
    const EvaluatedPoints seen(data);
    Solver free(space, {}, seed);
    const Proposal p = free.solve(nullptr, data, {&balances});
    ASSERT_TRUE(p.found) << p.note;
    EXPECT_EQ(balances.violation(p.x), 0.0) << p.note;
    EXPECT_FALSE(seen.contains(p.x));
    EXPECT_NE(p.note.find("ConEvo (4 balance pairs)"), std::string::npos) << p.note;
    EXPECT_EQ(p.note.find("projected"), std::string::npos) << p.note;

    Additive acq(table);
    Solver nn(space, {{"candidates", std::int64_t{1000}}}, seed);
    const Proposal q = nn.solve(&acq, data, {&balances});
    ASSERT_TRUE(q.found) << q.note;
    EXPECT_EQ(balances.violation(q.x), 0.0) << q.note;
    EXPECT_NE(q.note.find("ConEvo on 4 balance pairs"), std::string::npos) << q.note;
    EXPECT_EQ(q.note.find("rejected"), std::string::npos) << q.note;  // none needed
    EXPECT_EQ(acq.batch_rows, 30 + 1000);
    // Forced RegEvo operators break balances and need the rejection.
    Additive acq2(table);
    Solver regevo(space, {{"candidates", std::int64_t{1000}}, {"operators", std::string("regevo")}},
                  seed);
    const Proposal r = regevo.solve(&acq2, data, {&balances});
    ASSERT_TRUE(r.found) << r.note;
    EXPECT_EQ(balances.violation(r.x), 0.0) << r.note;
    EXPECT_NE(r.note.find("RegEvo ("), std::string::npos) << r.note;
  }
}

TEST(regularized_evolution_plugin, other_known_constraints_reject_children) {
  const Space space = binaries(20);
  const AtMost at_most(2.0);
  Eigen::MatrixXd table(20, 2);
  table.col(0).setZero();
  table.col(1).setOnes();  // wants every bit set; the constraint allows two of the first ten
  Dataset data;
  data.reset(20, {});
  for (int r = 0; r < 10; ++r) {
    Eigen::VectorXd x = Eigen::VectorXd::Zero(20);
    x[r] = 1.0;
    x[10 + r] = 1.0;
    data.append(x, 0.0, Eigen::VectorXd());
  }
  Additive acq(table);
  Solver s(space, {{"candidates", std::int64_t{3000}}});
  const Proposal p = s.solve(&acq, data, {&at_most});
  ASSERT_TRUE(p.found) << p.note;
  EXPECT_EQ(at_most.violation(p.x), 0.0);
  EXPECT_EQ(p.x.head(10).sum(), 2.0) << p.note;
  EXPECT_GT(p.value, 5.0) << p.note;
  Solver free(space, {});
  const Proposal q = free.solve(nullptr, data, {&at_most});
  ASSERT_TRUE(q.found) << q.note;
  EXPECT_EQ(at_most.violation(q.x), 0.0);
}

TEST(regularized_evolution_plugin, same_seed_same_proposal_and_auto_settings_per_mode) {
  const Space space = categoricals(10, 5);
  const Eigen::MatrixXd table = random_table(10, 5, 8);
  const Dataset data = observations(space, 40, 4, [](const Eigen::VectorXd& x) { return x.sum(); });
  Additive a1(table), a2(table);
  Solver s1(space, {{"candidates", std::int64_t{500}}}, 3),
      s2(space, {{"candidates", std::int64_t{500}}}, 3);
  const Proposal p1 = s1.solve(&a1, data), p2 = s2.solve(&a2, data);
  EXPECT_EQ(p1.x, p2.x);
  EXPECT_NE(p1.note.find("population 540, tournament 20, p_c 0.2, p_m 0.01"), std::string::npos)
      << p1.note;
  const Proposal q = s1.solve(nullptr, data);
  EXPECT_NE(q.note.find("RegEvo child of 40 observations (tournament 10, p_c 0.1, p_m 0.1)"),
            std::string::npos)
      << q.note;
  Solver fixed(space, {{"tournament_size", std::int64_t{4}}, {"mutation_probability", 0.3}});
  const Proposal r = fixed.solve(nullptr, data);
  EXPECT_NE(r.note.find("(tournament 4, p_c 0.1, p_m 0.3)"), std::string::npos) << r.note;
}

TEST(regularized_evolution_plugin, refuses_probabilities_between_auto_and_zero) {
  const Space space = binaries(3);
  EXPECT_THROW(Solver(space, {{"mutation_probability", -0.5}}), ParamError);
  EXPECT_THROW(Solver(space, {{"crossover_probability", -0.01}}), ParamError);
  EXPECT_NO_THROW(Solver(space, {{"crossover_probability", 0.0}}));
}

}  // namespace
