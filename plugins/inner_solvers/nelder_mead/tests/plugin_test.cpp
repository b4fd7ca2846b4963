// SPDX-License-Identifier: MIT
// inner_solver/nelder_mead and inner_solver/sampling through their real shared objects: the
// conformance kit, restarts improving on the samples, known constraints (rejection, penalty,
// fallback to the best feasible sample), mixed spaces, model-free use, cancellation.
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
  Proposal solve(const Acquisition* acq, std::vector<const Constraint*> cons = {}) {
    Dataset data;
    data.reset(space.size(), {});
    return solver->maximize(SolveRequest{acq, space, std::move(cons), data});
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

}  // namespace
