// SPDX-License-Identifier: MIT
// inner_solver/random from its real .so: the conformance kit, then budgets, infeasibility,
// candidate pools and reproducibility.
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <arbo/sdk/projection.hpp>
#include <arbo/sdk/testing/conformance.hpp>

#include "common/fine_balances.hpp"

namespace {

using namespace arbo::sdk;
using arbo::sdk::testing::PluginUnderTest;
using arbo::sdk::testing::TestContext;

const ComponentInfo& component() {
  static const auto* p = new PluginUnderTest(ARBO_PLUGIN_DIR "/libarbo_inner_solver_random.so");
  const ComponentInfo* info = p->find(Kind::InnerSolver, "random");
  if (info == nullptr) throw std::runtime_error("no inner_solver/random");
  return *info;
}

template <class Ctx = TestContext>
struct SolverIn {
  SolverIn(const Space& s, const std::map<std::string, ParamValue>& raw, std::uint64_t seed)
      : ctx(seed),
        params(validate_params(component().params(), raw, "inner_solver/random")),
        space(s) {
    object.reset(component().create(CreateArgs{ctx, params, space}));
    solver = dynamic_cast<InnerSolver*>(object.get());
    if (solver == nullptr) throw std::runtime_error("not an inner solver");
  }
  Ctx ctx;
  ParamSet params;
  Space space;
  std::unique_ptr<Component> object;
  InnerSolver* solver = nullptr;
};

using Solver = SolverIn<>;

// A model solver that records each solve's time limit and answers with every variable at 0
// (stopped by its limit, as a projection on a nonconvex set usually is).
class RecordingModelSolver final : public ModelSolver {
 public:
  SolveResult solve(const Model& model, const SolveOptions& options) override {
    time_limits.push_back(options.time_limit_seconds);
    SolveResult r;
    r.status = SolveStatus::LimitReached;
    r.x.assign(static_cast<std::size_t>(model.num_variables()), 0.0);
    r.objective = 0.0;
    return r;
  }
  std::vector<double> time_limits;
};

class ContextWithModelSolver final : public TestContext {
 public:
  using TestContext::TestContext;
  ModelSolver* model_solver() override { return &model_solver_; }
  RecordingModelSolver model_solver_;
};

// x0 <= 0: no uniform draw satisfies it, every projection (x = 0) does.
class AtZero final : public Constraint, public FormulatesConstraint {
 public:
  double violation(const Eigen::VectorXd& x) const override { return std::max(0.0, x[0]); }
  void formulate(Model& model, const PointVariables& point) const override {
    model.add_linear_row({"at_zero", {{point.x_vars[0], 1.0}}, RowSense::LessEqual, 0.0});
  }
};

// x0 <= bound; optionally counts calls.
class UpperBound final : public Constraint {
 public:
  explicit UpperBound(double bound) : bound_(bound) {}
  double violation(const Eigen::VectorXd& x) const override {
    ++calls;
    return std::max(0.0, x[0] - bound_);
  }
  mutable long calls = 0;

 private:
  double bound_;
};

class Nowhere final : public Constraint {
 public:
  double violation(const Eigen::VectorXd&) const override { return 1.0; }
};

// -(x0 - target)^2, recording what values() was asked.
class Peak final : public Acquisition {
 public:
  explicit Peak(double target) : target_(target) {}
  void bind(const AcquisitionInputs&) override {}
  double value(const Eigen::VectorXd& x) const override {
    return -(x[0] - target_) * (x[0] - target_);
  }
  void values(const Eigen::MatrixXd& X, Eigen::VectorXd& out) const override {
    last_rows = X.rows();
    max_x0 = X.col(0).maxCoeff();
    Acquisition::values(X, out);
  }
  mutable Eigen::Index last_rows = 0;
  mutable double max_x0 = 0.0;

 private:
  double target_;
};

Space unit_square() { return Space({Parameter::real("a", 0, 1), Parameter::real("b", 0, 1)}); }

TEST(inner_solver_random_plugin, first_feasible_point_without_acquisition) {
  Solver s(unit_square(), {}, 1);
  const UpperBound tight(0.001);  // 0.1% of the square is feasible
  Dataset data;
  data.reset(2, {});
  const Proposal p = s.solver->maximize(SolveRequest{nullptr, s.space, {&tight}, data});
  ASSERT_TRUE(p.found) << p.note;
  EXPECT_LE(p.x[0], 0.001);
  EXPECT_TRUE(s.space.contains(p.x));
  EXPECT_EQ(p.value, 0.0);
  EXPECT_GT(tight.calls, 1) << "a 0.1% feasible region is not hit at the first draw";
}

TEST(inner_solver_random_plugin, reports_not_found_after_max_tries) {
  Solver s(unit_square(), {{"max_tries", std::int64_t{50}}}, 1);
  const Nowhere none;
  Dataset data;
  data.reset(2, {});
  const Proposal p = s.solver->maximize(SolveRequest{nullptr, s.space, {&none}, data});
  EXPECT_FALSE(p.found);
  EXPECT_NE(p.note.find("50"), std::string::npos) << p.note;
  Peak acq(0.5);
  const Proposal q = s.solver->maximize(SolveRequest{&acq, s.space, {&none}, data});
  EXPECT_FALSE(q.found);
  EXPECT_EQ(acq.last_rows, 0) << "no candidate to score";
}

TEST(inner_solver_random_plugin, best_of_feasible_samples) {
  Solver s(unit_square(), {{"samples", std::int64_t{1000}}}, 3);
  const UpperBound half(0.5);
  Peak acq(0.3);
  Dataset data;
  data.reset(2, {});
  const Proposal p = s.solver->maximize(SolveRequest{&acq, s.space, {&half}, data});
  ASSERT_TRUE(p.found);
  EXPECT_EQ(acq.last_rows, 1000);
  EXPECT_LE(acq.max_x0, 0.5) << "only feasible candidates are scored";
  // P(no candidate within 0.01 of 0.3 among 1000 uniform on [0, 0.5]) = 0.96^1000.
  EXPECT_NEAR(p.x[0], 0.3, 0.01);
  EXPECT_DOUBLE_EQ(p.value, acq.value(p.x));
}

TEST(inner_solver_random_plugin, target_outside_the_feasible_set_lands_on_its_boundary) {
  Solver s(unit_square(), {}, 4);
  const UpperBound half(0.5);
  Peak acq(0.9);
  Dataset data;
  data.reset(2, {});
  const Proposal p = s.solver->maximize(SolveRequest{&acq, s.space, {&half}, data});
  ASSERT_TRUE(p.found);
  EXPECT_LE(p.x[0], 0.5);
  EXPECT_GT(p.x[0], 0.49);
}

TEST(inner_solver_random_plugin, draws_keep_balance_equalities_without_a_model_solver) {
  std::vector<Parameter> bits;
  for (int i = 0; i < 40; ++i) bits.push_back(Parameter::binary("x" + std::to_string(i)));
  // One draw per call: rejection alone would fail 996 times in 1,000.
  Solver s(Space(bits), {{"max_tries", std::int64_t{1}}, {"samples", std::int64_t{200}}}, 6);
  // Ising's fine balances over 40 binaries: uniform draws keep all four with probability
  // (252/1024)^4 = 0.004.
  const arbo::test::FineBalances balances(40);
  Dataset data;
  data.reset(40, {});
  for (int r = 0; r < 20; ++r) {
    const Proposal p = s.solver->maximize(SolveRequest{nullptr, s.space, {&balances}, data});
    ASSERT_TRUE(p.found) << p.note;
    EXPECT_EQ(balances.violation(p.x), 0.0);
    EXPECT_NE(p.note.find("after 1 draws"), std::string::npos) << p.note;
  }
  // With an acquisition: a full pool of balanced candidates (200 draws, 200 kept).
  Solver t(Space(bits), {{"max_tries", std::int64_t{200}}, {"samples", std::int64_t{200}}}, 7);
  Peak acq(1.0);
  const Proposal q = t.solver->maximize(SolveRequest{&acq, t.space, {&balances}, data});
  ASSERT_TRUE(q.found) << q.note;
  EXPECT_EQ(acq.last_rows, 200);
  EXPECT_EQ(balances.violation(q.x), 0.0);
}

TEST(inner_solver_random_plugin, short_pool_when_max_tries_binds) {
  // 10% feasible, 2000 draws: about 200 candidates, far fewer than the 1000 requested.
  Solver s(unit_square(), {{"samples", std::int64_t{1000}}, {"max_tries", std::int64_t{2000}}}, 5);
  const UpperBound tenth(0.1);
  Peak acq(0.05);
  Dataset data;
  data.reset(2, {});
  const Proposal p = s.solver->maximize(SolveRequest{&acq, s.space, {&tenth}, data});
  ASSERT_TRUE(p.found);
  EXPECT_GT(acq.last_rows, 100);
  EXPECT_LT(acq.last_rows, 300);
  EXPECT_LE(p.x[0], 0.1);
  // The pool grows back on the next call.
  const Proposal again = s.solver->maximize(SolveRequest{&acq, s.space, {}, data});
  EXPECT_TRUE(again.found);
  EXPECT_EQ(acq.last_rows, 1000);
}

// Each projection's solve gets projection_time_limit (default: the SDK's projection limit).
TEST(inner_solver_random_plugin, projections_get_the_projection_time_limit) {
  for (const double limit : {0.25, kDefaultProjectionSeconds}) {
    std::map<std::string, ParamValue> raw{{"samples", std::int64_t{3}},
                                          {"max_tries", std::int64_t{10}},
                                          {"projections", std::int64_t{5}}};
    if (limit != kDefaultProjectionSeconds) raw["projection_time_limit"] = limit;
    SolverIn<ContextWithModelSolver> s(unit_square(), raw, 6);
    const AtZero zero;
    Peak acq(0.5);
    Dataset data;
    data.reset(2, {});
    const Proposal p = s.solver->maximize(SolveRequest{&acq, s.space, {&zero}, data});
    ASSERT_TRUE(p.found) << p.note;
    EXPECT_EQ(p.x[0], 0.0);
    EXPECT_EQ(acq.last_rows, 3) << "the pool is three projections";
    EXPECT_EQ(s.ctx.model_solver_.time_limits, std::vector<double>(3, limit));
  }
}

TEST(inner_solver_random_plugin, same_seed_same_proposal_and_mixed_spaces) {
  const Space mixed = arbo::sdk::testing::default_test_space();
  Dataset data;
  data.reset(mixed.size(), {});
  Peak acq(0.0);
  Solver a(mixed, {}, 11), b(mixed, {}, 11), c(mixed, {}, 12);
  const Proposal pa = a.solver->maximize(SolveRequest{&acq, a.space, {}, data});
  const Proposal pb = b.solver->maximize(SolveRequest{&acq, b.space, {}, data});
  const Proposal pc = c.solver->maximize(SolveRequest{&acq, c.space, {}, data});
  ASSERT_TRUE(pa.found && pb.found && pc.found);
  EXPECT_EQ(pa.x, pb.x);
  EXPECT_NE(pa.x, pc.x);
  EXPECT_TRUE(mixed.contains(pa.x)) << "candidates come from Space::from_unit, hence snapped";
}

// The library passes the same conformance kit that third-party plugins use.
TEST(stock_plugin_conformance, inner_solver_random) {
  arbo::sdk::testing::expect_plugin_conforms(ARBO_PLUGIN_DIR "/libarbo_inner_solver_random.so");
}

}  // namespace
