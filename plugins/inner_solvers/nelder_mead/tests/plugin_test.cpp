// SPDX-License-Identifier: MIT
// inner_solver/nelder_mead, inner_solver/sampling and inner_solver/mixed_alternating through
// their real shared objects: the conformance kit, restarts improving on the samples, known
// constraints (rejection, penalty, fallback to the best feasible sample), mixed spaces,
// model-free use, cancellation, exclusion of evaluated points.
#include <atomic>
#include <cmath>
#include <map>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include <arbo/sdk/testing/conformance.hpp>

namespace {

using namespace arbo::sdk;
using arbo::sdk::testing::PluginUnderTest;
using arbo::sdk::testing::TestContext;

const std::string kNelderMead = ARBO_PLUGIN_DIR "/libarbo_inner_solver_nelder_mead.so";
const std::string kRandom = ARBO_PLUGIN_DIR "/libarbo_inner_solver_random.so";

TEST(nelder_mead_plugin, conforms) { arbo::sdk::testing::expect_plugin_conforms(kNelderMead); }

TEST(nelder_mead_plugin, conforms_with_penalty_and_unit_coordinates) {
  arbo::sdk::testing::ConformanceOptions o;
  o.param_overrides["inner_solver/nelder_mead"] = {{"constraint_handling", std::string("penalty")},
                                                   {"coordinates", std::string("unit")}};
  arbo::sdk::testing::expect_plugin_conforms(kNelderMead, o);
}

const ComponentInfo& component(const std::string& path, const char* name) {
  // Never destroyed, so the libraries stay reachable for the sanitizer build's leak check.
  static auto* loaded = new std::map<std::string, PluginUnderTest*>;
  auto& p = (*loaded)[path];
  if (p == nullptr) p = new PluginUnderTest(path);
  const ComponentInfo* info = p->find(Kind::InnerSolver, name);
  if (info == nullptr) throw std::runtime_error(std::string("no inner_solver/") + name);
  return *info;
}

class CancellingContext final : public TestContext {
 public:
  using TestContext::TestContext;
  bool cancelled() const override { return cancel.load(); }
  std::atomic<bool> cancel{false};
};

struct Solver {
  Solver(const Space& s, const std::map<std::string, ParamValue>& raw, std::uint64_t seed = 1,
         const char* name = "nelder_mead", const std::string& path = kNelderMead)
      : ctx(seed),
        params(validate_params(component(path, name).params(), raw,
                               std::string("inner_solver/") + name)),
        space(s) {
    object.reset(component(path, name).create(CreateArgs{ctx, params, space}));
    solver = dynamic_cast<InnerSolver*>(object.get());
    if (solver == nullptr) throw std::runtime_error("not an inner solver");
  }
  Proposal solve(const Acquisition* acq, std::vector<const Constraint*> cons = {},
                 const std::vector<Eigen::VectorXd>& evaluated = {}) {
    Dataset data;
    data.reset(space.size(), {});
    for (const Eigen::VectorXd& x : evaluated) data.append(x, 0.0, Eigen::VectorXd());
    return solver->maximize(SolveRequest{acq, space, std::move(cons), data, !evaluated.empty()});
  }
  CancellingContext ctx;
  ParamSet params;
  Space space;
  std::unique_ptr<Component> object;
  InnerSolver* solver = nullptr;
};

// -|x - target|^2 (only the first `target.size()` coordinates), counting calls.
class Peak final : public Acquisition {
 public:
  explicit Peak(Eigen::VectorXd target) : target_(std::move(target)) {}
  void bind(const AcquisitionInputs&) override {}
  double value(const Eigen::VectorXd& x) const override {
    ++point_calls;
    return -(x.head(target_.size()) - target_).squaredNorm();
  }
  void values(const Eigen::MatrixXd& X, Eigen::VectorXd& out) const override {
    batch_rows += X.rows();
    out.resize(X.rows());
    for (Eigen::Index i = 0; i < X.rows(); ++i)
      out[i] = -(X.row(i).head(target_.size()).transpose() - target_).squaredNorm();
  }
  mutable long point_calls = 0;
  mutable long batch_rows = 0;

 private:
  Eigen::VectorXd target_;
};

class UpperBound final : public Constraint {
 public:
  UpperBound(Eigen::Index coordinate, double bound) : i_(coordinate), bound_(bound) {}
  double violation(const Eigen::VectorXd& x) const override {
    return std::max(0.0, x[i_] - bound_);
  }

 private:
  Eigen::Index i_;
  double bound_;
};

class Nowhere final : public Constraint {
 public:
  double violation(const Eigen::VectorXd&) const override { return 1.0; }
};

Space box(int d, double lo = -2.0, double hi = 2.0) {
  std::vector<Parameter> p;
  for (int i = 0; i < d; ++i) p.push_back(Parameter::real("x" + std::to_string(i), lo, hi));
  return Space(p);
}

Eigen::VectorXd vec(std::initializer_list<double> v) {
  Eigen::VectorXd x(static_cast<Eigen::Index>(v.size()));
  Eigen::Index i = 0;
  for (double e : v) x[i++] = e;
  return x;
}

TEST(nelder_mead_plugin, restarts_refine_the_best_samples) {
  // 30 samples in 4-D leave the best one far from the peak; the simplex runs close in.
  Solver s(box(4), {{"samples", std::int64_t{30}}});
  Peak acq(vec({0.31, -0.72, 1.13, 0.05}));
  const Proposal p = s.solve(&acq);
  ASSERT_TRUE(p.found) << p.note;
  EXPECT_EQ(acq.batch_rows, 30);
  EXPECT_GT(acq.point_calls, 100);
  EXPECT_GT(p.value, -1e-6) << p.note;
  EXPECT_NEAR(p.x[2], 1.13, 1e-3);
  EXPECT_DOUBLE_EQ(p.value, acq.value(p.x));
  EXPECT_NE(p.note.find("Nelder-Mead"), std::string::npos) << p.note;

  Solver none(box(4), {{"samples", std::int64_t{30}}, {"starts", std::int64_t{0}}});
  Peak acq2(vec({0.31, -0.72, 1.13, 0.05}));
  const Proposal q = none.solve(&acq2);
  ASSERT_TRUE(q.found);
  EXPECT_LT(q.value, -1e-3) << "without runs it is the best of 30 samples";
  EXPECT_EQ(acq2.point_calls, 0);
}

TEST(nelder_mead_plugin, is_reproducible) {
  Peak acq(vec({0.5, 0.5, -0.5}));
  Solver a(box(3), {{"samples", std::int64_t{200}}}, 42);
  Solver b(box(3), {{"samples", std::int64_t{200}}}, 42);
  const Proposal p = a.solve(&acq);
  const Proposal q = b.solve(&acq);
  ASSERT_TRUE(p.found && q.found);
  EXPECT_EQ(p.x, q.x);
  EXPECT_EQ(p.value, q.value);
}

TEST(nelder_mead_plugin, rejection_keeps_every_trial_point_feasible_and_ends_on_the_boundary) {
  Solver s(box(2), {{"samples", std::int64_t{500}}});
  const UpperBound bound(0, 0.5);
  Peak acq(vec({1.5, 0.0}));
  const Proposal p = s.solve(&acq, {&bound});
  ASSERT_TRUE(p.found) << p.note;
  EXPECT_LE(p.x[0], 0.5);
  EXPECT_NEAR(p.x[0], 0.5, 1e-3);
  EXPECT_NEAR(p.x[1], 0.0, 1e-2);
}

TEST(nelder_mead_plugin, penalty_mode_proposes_a_feasible_point) {
  Solver s(box(2), {{"samples", std::int64_t{500}},
                    {"constraint_handling", std::string("penalty")},
                    {"penalty_weight", 100.0}});
  const UpperBound bound(0, 0.5);
  Peak acq(vec({1.5, 0.0}));
  const Proposal p = s.solve(&acq, {&bound});
  ASSERT_TRUE(p.found) << p.note;
  EXPECT_LE(p.x[0], 0.5);
  EXPECT_GT(p.x[0], 0.4);
}

TEST(nelder_mead_plugin, penalty_too_weak_falls_back_to_the_best_feasible_sample) {
  // With no penalty every run ends at the infeasible peak; only samples remain.
  Solver s(box(2), {{"samples", std::int64_t{2000}},
                    {"constraint_handling", std::string("penalty")},
                    {"penalty_weight", 0.0}});
  const UpperBound bound(0, 0.0);
  Peak acq(vec({1.5, 0.0}));
  const Proposal p = s.solve(&acq, {&bound});
  ASSERT_TRUE(p.found) << p.note;
  EXPECT_LE(p.x[0], 0.0);
  EXPECT_NE(p.note.find("best of"), std::string::npos) << p.note;
  EXPECT_GT(acq.batch_rows, 1999) << "penalty mode scores every draw";
}

TEST(nelder_mead_plugin, no_feasible_point_is_not_found) {
  Solver s(box(2), {{"samples", std::int64_t{50}}, {"max_tries", std::int64_t{100}}});
  const Nowhere none;
  Peak acq(vec({0.0, 0.0}));
  EXPECT_FALSE(s.solve(&acq, {&none}).found);
  EXPECT_FALSE(s.solve(nullptr, {&none}).found);
  Solver pen(box(2),
             {{"samples", std::int64_t{50}}, {"constraint_handling", std::string("penalty")}});
  const Proposal p = pen.solve(&acq, {&none});
  EXPECT_FALSE(p.found);
  EXPECT_NE(p.note.find("known constraints"), std::string::npos) << p.note;
}

TEST(nelder_mead_plugin, model_free_returns_a_feasible_point) {
  Solver s(box(3), {});
  const UpperBound bound(1, -1.9);
  const Proposal p = s.solve(nullptr, {&bound});
  ASSERT_TRUE(p.found);
  EXPECT_LE(p.x[1], -1.9);
  EXPECT_EQ(p.value, 0.0);
}

TEST(nelder_mead_plugin, integers_are_rounded_and_categoricals_kept_from_the_start) {
  const Space space({Parameter::real("a", 0, 10), Parameter::integer("n", 0, 20),
                     Parameter::categorical("c", {"u", "v", "w"}), Parameter::binary("b")});
  Solver s(space, {{"samples", std::int64_t{40}}, {"coordinates", std::string("unit")}});
  // Peak at a = 3.3, n = 7.4 (so n = 7 is best); c and b do not matter.
  Peak acq(vec({3.3, 7.4}));
  const Proposal p = s.solve(&acq);
  ASSERT_TRUE(p.found) << p.note;
  EXPECT_TRUE(space.contains(p.x));
  EXPECT_EQ(p.x[1], 7.0);
  EXPECT_NEAR(p.x[0], 3.3, 1e-3);
}

TEST(nelder_mead_plugin, cancellation_returns_the_best_so_far) {
  Solver s(box(5), {});
  s.ctx.cancel = true;
  Peak acq(vec({0.1, 0.2, 0.3, 0.4, 0.5}));
  const Proposal p = s.solve(&acq);
  ASSERT_TRUE(p.found) << "the draws made before the first poll are kept";
  EXPECT_LE(acq.batch_rows, 256);
  EXPECT_EQ(acq.point_calls, 0) << "no simplex run after cancellation";
}

TEST(nelder_mead_plugin, iteration_caps_limit_each_run) {
  Solver s(box(3), {{"samples", std::int64_t{10}},
                    {"starts", std::int64_t{2}},
                    {"max_evaluations", std::int64_t{25}}});
  Peak acq(vec({0.1, 0.2, 0.3}));
  const Proposal p = s.solve(&acq);
  ASSERT_TRUE(p.found);
  // 2 runs x 25 evaluations + 1 re-evaluation of each run's end point.
  EXPECT_EQ(acq.point_calls, 2 * 25 + 2);
}

TEST(sampling_solver, is_random_search_with_20000_samples) {
  const ComponentInfo& info = component(kNelderMead, "sampling");
  const ParamSet defaults = validate_params(info.params(), {}, "inner_solver/sampling");
  EXPECT_EQ(defaults.get_int("samples"), 20000);
  Solver s(box(2), {}, 3, "sampling", kNelderMead);
  const UpperBound bound(0, 0.0);
  Peak acq(vec({-0.7, 0.4}));
  const Proposal p = s.solve(&acq, {&bound});
  ASSERT_TRUE(p.found);
  EXPECT_EQ(acq.batch_rows, 20000);
  EXPECT_LE(p.x[0], 0.0);
  EXPECT_NEAR(p.x[0], -0.7, 0.05);
  EXPECT_NEAR(p.x[1], 0.4, 0.05);
  // Same algorithm as random search with the same settings: the same proposal.
  Solver r(box(2), {{"samples", std::int64_t{20000}}, {"max_tries", std::int64_t{200000}}}, 3,
           "random", kRandom);
  Peak acq2(vec({-0.7, 0.4}));
  const Proposal q = r.solve(&acq2, {&bound});
  ASSERT_TRUE(q.found);
  EXPECT_EQ(p.x, q.x);
  EXPECT_EQ(p.value, q.value);
  // Random search keeps its own default.
  const ParamSet random_defaults =
      validate_params(component(kRandom, "random").params(), {}, "inner_solver/random");
  EXPECT_EQ(random_defaults.get_int("samples"), 1000);
}

// A separable function on a mixed space with one maximum: a score per choice of each
// categorical, -(n - target)^2 per integer, -(a - target)^2 per real (coordinates in that
// order), counting the rows it scores.
class Separable final : public Acquisition {
 public:
  Separable(int categoricals, int integers, int reals)
      : c_(categoricals), n_(integers), r_(reals) {}
  void bind(const AcquisitionInputs&) override {}
  // Choice k of categorical i scores -((k + 2 i) mod 5) (best: the choice with (k + 2 i) mod 5
  // = 0), integer j's target is 2 + 3 j, real j's target 0.3 + 0.1 j.
  double value(const Eigen::VectorXd& x) const override {
    ++rows;
    double v = 0.0;
    for (int i = 0; i < c_; ++i) v -= std::fmod(std::round(x[i]) + 2.0 * i, 5.0);
    for (int j = 0; j < n_; ++j) v -= std::pow(x[c_ + j] - (2.0 + 3.0 * j), 2);
    for (int j = 0; j < r_; ++j) v -= std::pow(x[c_ + n_ + j] - (0.3 + 0.1 * j), 2);
    return v;
  }
  Eigen::VectorXd best() const {
    Eigen::VectorXd x(c_ + n_ + r_);
    for (int i = 0; i < c_; ++i) x[i] = std::fmod(5.0 - std::fmod(2.0 * i, 5.0), 5.0);
    for (int j = 0; j < n_; ++j) x[c_ + j] = 2.0 + 3.0 * j;
    for (int j = 0; j < r_; ++j) x[c_ + n_ + j] = 0.3 + 0.1 * j;
    return x;
  }
  mutable long rows = 0;

 private:
  int c_, n_, r_;
};

Space mixed_space(int categoricals, int integers, int reals, int integer_upper = 15) {
  std::vector<Parameter> p;
  for (int i = 0; i < categoricals; ++i)
    p.push_back(Parameter::categorical("c" + std::to_string(i), {"a", "b", "c", "d", "e"}));
  for (int j = 0; j < integers; ++j)
    p.push_back(Parameter::integer("n" + std::to_string(j), 0, integer_upper));
  for (int j = 0; j < reals; ++j) p.push_back(Parameter::real("r" + std::to_string(j), 0.0, 1.0));
  return Space(p);
}

Proposal mixed(const Space& space, Acquisition& acq, std::map<std::string, ParamValue> raw = {},
               std::uint64_t seed = 1, std::vector<const Constraint*> cons = {},
               const std::vector<Eigen::VectorXd>& evaluated = {}) {
  Solver s(space, raw, seed, "mixed_alternating");
  return s.solve(&acq, std::move(cons), evaluated);
}

TEST(mixed_alternating, finds_the_maximum_of_a_mixed_space_that_samples_alone_miss) {
  // 8 categoricals of 5, 3 integers of 16 values, 2 reals: 5^8 * 16^3 category and integer
  // combinations, 64 samples. The discrete step walks the categoricals and integers to their
  // best values, the simplex the reals.
  const Space space = mixed_space(8, 3, 2);
  Separable acq(8, 3, 2);
  const Proposal p = mixed(space, acq, {{"raw_samples", std::int64_t{64}}});
  ASSERT_TRUE(p.found) << p.note;
  EXPECT_TRUE(space.contains(p.x));
  const Eigen::VectorXd best = acq.best();
  EXPECT_EQ(p.x.head(11), best.head(11)) << p.note;
  EXPECT_NEAR(p.x[11], 0.3, 1e-3);
  EXPECT_NEAR(p.x[12], 0.4, 1e-3);
  EXPECT_DOUBLE_EQ(p.value, acq.value(p.x));
  EXPECT_NE(p.note.find("discrete moves"), std::string::npos) << p.note;

  // Nelder-Mead restarts from as many samples keep the categoricals as sampled.
  Solver nm(space, {{"samples", std::int64_t{64}}});
  Separable acq2(8, 3, 2);
  const Proposal q = nm.solve(&acq2);
  ASSERT_TRUE(q.found);
  EXPECT_LT(q.value, p.value - 1.0);
}

TEST(mixed_alternating, is_reproducible_and_draws_its_starts_from_the_seed) {
  const Space space = mixed_space(4, 2, 1);
  Separable a(4, 2, 1), b(4, 2, 1);
  const std::map<std::string, ParamValue> raw{{"raw_samples", std::int64_t{32}},
                                              {"restarts", std::int64_t{3}},
                                              {"max_alternations", std::int64_t{1}},
                                              {"discrete_iterations", std::int64_t{1}}};
  const Proposal p = mixed(space, a, raw, 9);
  const Proposal q = mixed(space, b, raw, 9);
  ASSERT_TRUE(p.found && q.found);
  EXPECT_EQ(p.x, q.x);
  EXPECT_EQ(p.value, q.value);
  EXPECT_EQ(a.rows, b.rows);
}

TEST(mixed_alternating, large_integer_ranges_go_to_the_simplex) {
  // n0 in 0..100 has more than max_discrete_values (20) values: searched by the simplex and
  // rounded; with max_discrete_values = 200 the discrete step walks it one value at a time,
  // at most 4 moves per step and 64 rounds: from anywhere it reaches its target 2.
  const Space space = mixed_space(0, 1, 1, 100);
  Separable acq(0, 1, 1);
  const Proposal p = mixed(space, acq, {{"raw_samples", std::int64_t{8}}});
  ASSERT_TRUE(p.found) << p.note;
  EXPECT_EQ(p.x[0], 2.0) << p.note;
  EXPECT_NEAR(p.x[1], 0.3, 1e-3);
  Separable acq2(0, 1, 1);
  const Proposal q = mixed(
      space, acq2, {{"raw_samples", std::int64_t{8}}, {"max_discrete_values", std::int64_t{200}}});
  ASSERT_TRUE(q.found) << q.note;
  EXPECT_EQ(q.x[0], 2.0) << q.note;
}

TEST(mixed_alternating, keeps_to_the_known_constraints_and_skips_evaluated_points) {
  // n0's target is 2; n0 <= 1 moves the maximum to n0 = 1.
  const Space space = mixed_space(2, 1, 0);
  Separable acq(2, 1, 0);
  const UpperBound bound(2, 1.0);
  const Proposal p = mixed(space, acq, {{"raw_samples", std::int64_t{16}}}, 1, {&bound});
  ASSERT_TRUE(p.found) << p.note;
  Eigen::VectorXd expected = acq.best();
  expected[2] = 1.0;
  EXPECT_EQ(p.x, expected);

  // The unconstrained maximum evaluated: the best point left is one step away from it.
  Separable acq2(2, 1, 0);
  const Eigen::VectorXd top = acq2.best();
  const Proposal q = mixed(space, acq2, {{"raw_samples", std::int64_t{16}}}, 1, {}, {top});
  ASSERT_TRUE(q.found) << q.note;
  EXPECT_NE(q.x, top);
  EXPECT_DOUBLE_EQ(q.value, -1.0) << "one categorical one choice off, or n0 one off";
}

TEST(mixed_alternating, cancellation_and_model_free_use) {
  const Space space = mixed_space(3, 1, 1);
  Solver s(space, {}, 1, "mixed_alternating");
  s.ctx.cancel = true;
  Separable acq(3, 1, 1);
  const Proposal p = s.solve(&acq);
  ASSERT_TRUE(p.found) << "the draws made before the first poll are kept";
  EXPECT_LE(acq.rows, 256);
  s.ctx.cancel = false;
  const UpperBound bound(3, 0.0);
  const Proposal q = s.solve(nullptr, {&bound});
  ASSERT_TRUE(q.found);
  EXPECT_EQ(q.x[3], 0.0);
  EXPECT_EQ(q.value, 0.0);
}

}  // namespace
