// SPDX-License-Identifier: MIT
// inner_solver/glpk_bnb through its real shared object: the SDK conformance kit, maximize()
// with formulated acquisitions and constraints, and the ModelSolver face.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include <arbo/sdk/capabilities.hpp>
#include <arbo/sdk/testing/conformance.hpp>

#include "model_families.hpp"

namespace {

using namespace arbo::sdk;
using arbo::sdk::testing::PluginUnderTest;
using arbo::sdk::testing::TestContext;

const std::string kPath = ARBO_PLUGIN_DIR "/libarbo_inner_solver_glpk_bnb.so";

TEST(glpk_bnb_plugin, conforms) { arbo::sdk::testing::expect_plugin_conforms(kPath); }

const ComponentInfo& component() {
  static const auto* p = new PluginUnderTest(kPath);
  const ComponentInfo* info = p->find(Kind::InnerSolver, "glpk_bnb");
  if (info == nullptr) throw std::runtime_error("no inner_solver/glpk_bnb");
  return *info;
}

struct Solver {
  explicit Solver(const Space& s, const std::map<std::string, ParamValue>& raw = {})
      : params(validate_params(component().params(), raw, "inner_solver/glpk_bnb")), space(s) {
    object.reset(component().create(CreateArgs{ctx, params, space}));
    inner = dynamic_cast<InnerSolver*>(object.get());
    model = dynamic_cast<ModelSolver*>(object.get());
    if (inner == nullptr || model == nullptr) throw std::runtime_error("wrong interfaces");
  }
  TestContext ctx{7};
  ParamSet params;
  Space space;
  std::unique_ptr<Component> object;
  InnerSolver* inner = nullptr;
  ModelSolver* model = nullptr;
};

// -(x0 - 0.3)^2 - (x1 - 2)^2 + 5, formulated as a concave quadratic objective.
class Bowl final : public Acquisition, public FormulatesAcquisition {
 public:
  void bind(const AcquisitionInputs&) override {}
  double value(const Eigen::VectorXd& x) const override {
    return 5.0 - (x[0] - 0.3) * (x[0] - 0.3) - (x[1] - 2.0) * (x[1] - 2.0);
  }
  void formulate(Model& m, const PointVariables& p) const override {
    const int a = p.x_vars[0], b = p.x_vars[1];
    m.set_objective({ObjectiveSense::Maximize,
                     {{a, 0.6}, {b, 4.0}},
                     {{a, a, -1}, {b, b, -1}},
                     5.0 - 0.09 - 4.0});
  }
};

class NotFormulated final : public Acquisition {
 public:
  void bind(const AcquisitionInputs&) override {}
  double value(const Eigen::VectorXd&) const override { return 0.0; }
};

// x0 + x1 <= 2.1 as a formulated known constraint.
class SumBound final : public Constraint, public FormulatesConstraint {
 public:
  double violation(const Eigen::VectorXd& x) const override {
    return std::max(0.0, x[0] + x[1] - 2.1);
  }
  std::string describe() const override { return "x0 + x1 <= 2.1"; }
  void formulate(Model& m, const PointVariables& p) const override {
    m.add_linear_row({"sum", {{p.x_vars[0], 1}, {p.x_vars[1], 1}}, RowSense::LessEqual, 2.1});
  }
};

class Opaque final : public Constraint {
 public:
  double violation(const Eigen::VectorXd&) const override { return 0.0; }
  std::string describe() const override { return "opaque thing"; }
};

Space mixed() { return Space({Parameter::real("a", 0, 1), Parameter::integer("n", 0, 5)}); }

// The bowl maximized under x0 + x1 <= 2.1 on mixed(), with the observations in `data`.
struct BowlUnderSum {
  BowlUnderSum() { data.reset(2, {}); }
  Proposal solve() { return s.inner->maximize(SolveRequest{&acq, s.space, {&con}, data}); }
  bool logged(const std::string& fragment) const {
    for (const std::string& line : s.ctx.logs()) {
      if (line.find(fragment) != std::string::npos) return true;
    }
    return false;
  }
  Solver s{mixed()};
  Bowl acq;
  SumBound con;
  Dataset data;
};

TEST(glpk_bnb_plugin, maximizes_a_formulated_acquisition_under_a_constraint) {
  BowlUnderSum b;
  const Proposal p = b.solve();
  ASSERT_TRUE(p.found) << p.note;
  // n is integer and x0 + n <= 2.1: n = 2 with x0 = 0.1 (value 4.96) beats n = 1 with
  // x0 = 0.3 (value 4).
  EXPECT_NEAR(p.x[0], 0.1, 1e-6);
  EXPECT_EQ(p.x[1], 2.0);
  EXPECT_NEAR(p.value, 4.96, 1e-4);
  ASSERT_TRUE(p.certificate.has_value());
  EXPECT_EQ(p.certificate->status, SolveStatus::Optimal);
  EXPECT_GE(p.certificate->best_bound, p.value - 1e-3);
  // GLPK's terminal output reaches the Context's log instead of stdout.
  EXPECT_TRUE(b.logged("glpk: "));
  // No observation, no start.
  EXPECT_FALSE(b.logged("from a start"));
}

TEST(glpk_bnb_plugin, a_feasible_observation_is_the_solves_start) {
  BowlUnderSum b;
  b.data.append(Eigen::Vector2d(0.9, 3.0), 1.0, Eigen::VectorXd());  // violates x0 + x1 <= 2.1
  b.data.append(Eigen::Vector2d(0.5, 1.0), 1.0, Eigen::VectorXd());  // value 3.96
  b.data.append(Eigen::Vector2d(0.0, 0.0), 1.0, Eigen::VectorXd());  // value 0.91
  const Proposal p = b.solve();
  ASSERT_TRUE(p.found) << p.note;
  EXPECT_NEAR(p.x[0], 0.1, 1e-6);
  EXPECT_EQ(p.x[1], 2.0);
  // The best feasible observation by acquisition value, (0.5, 1), was the first incumbent.
  EXPECT_TRUE(b.logged("incumbent 3.96 from a start"));
}

TEST(glpk_bnb_plugin, without_acquisition_returns_a_feasible_point) {
  Solver s(mixed());
  SumBound con;
  Dataset data;
  data.reset(2, {});
  const Proposal p = s.inner->maximize(SolveRequest{nullptr, s.space, {&con}, data});
  ASSERT_TRUE(p.found) << p.note;
  EXPECT_LE(con.violation(p.x), 1e-9);
  EXPECT_EQ(p.value, 0.0);
}

TEST(glpk_bnb_plugin, says_which_capability_is_missing) {
  Solver s(mixed());
  Dataset data;
  data.reset(2, {});
  NotFormulated acq;
  try {
    s.inner->maximize(SolveRequest{&acq, s.space, {}, data});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("FormulatesAcquisition"), std::string::npos) << e.what();
  }
  Opaque con;
  try {
    s.inner->maximize(SolveRequest{nullptr, s.space, {&con}, data});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("FormulatesConstraint"), std::string::npos) << what;
    EXPECT_NE(what.find("opaque thing"), std::string::npos) << what;
  }
}

TEST(glpk_bnb_plugin, infeasible_constraints_give_no_point) {
  Solver s(mixed());
  class Impossible final : public Constraint, public FormulatesConstraint {
   public:
    double violation(const Eigen::VectorXd&) const override { return 1.0; }
    void formulate(Model& m, const PointVariables& p) const override {
      m.add_linear_row({"never", {{p.x_vars[0], 1}}, RowSense::GreaterEqual, 3});
    }
  } never;
  Dataset data;
  data.reset(2, {});
  const Proposal p = s.inner->maximize(SolveRequest{nullptr, s.space, {&never}, data});
  EXPECT_FALSE(p.found);
  ASSERT_TRUE(p.certificate.has_value());
  EXPECT_EQ(p.certificate->status, SolveStatus::Infeasible);
}

TEST(glpk_bnb_plugin, dump_model_writes_every_model) {
  const auto dir = std::filesystem::temp_directory_path() / "arbo_glpk_bnb_dump";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  Solver s(mixed(), {{"dump_model", (dir / "model_{n}.lp").string()}});
  Bowl acq;
  SumBound con;
  Dataset data;
  data.reset(2, {});
  ASSERT_TRUE(s.inner->maximize(SolveRequest{&acq, s.space, {&con}, data}).found);
  ASSERT_TRUE(s.inner->maximize(SolveRequest{nullptr, s.space, {&con}, data}).found);
  for (const char* name : {"model_0.lp", "model_1.lp"}) {
    std::ifstream in(dir / name);
    ASSERT_TRUE(in.good()) << name << " was not written";
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_NE(text.str().find("imize"), std::string::npos) << text.str();
  }
  std::ifstream first(dir / "model_0.lp");
  std::stringstream text;
  text << first.rdbuf();
  EXPECT_NE(text.str().find("Maximize"), std::string::npos) << text.str();
}

// A model is short enough to sit in the stream's buffer: the write error shows only when the
// file is closed, and must not be lost there.
TEST(glpk_bnb_plugin, dump_model_to_a_full_disk_is_an_error) {
  Solver s(mixed(), {{"dump_model", std::string("/dev/full")}});
  Bowl acq;
  SumBound con;
  Dataset data;
  data.reset(2, {});
  EXPECT_THROW(s.inner->maximize(SolveRequest{&acq, s.space, {&con}, data}), arbo::sdk::Error);
}

TEST(glpk_bnb_plugin, is_a_model_solver) {
  Solver s(mixed(), {{"node_limit", std::int64_t{100000}}});
  const arbo::glpk_test::KnownProblem g = arbo::glpk_test::g6();
  const SolveResult r = s.model->solve(g.model, SolveOptions{});
  ASSERT_EQ(r.status, SolveStatus::Optimal) << r.message;
  EXPECT_NEAR(r.objective, g.optimum, 1.0);
  // Malformed models are errors, as the ModelSolver contract says.
  Model bad;
  const int x = bad.add_variable("x", VarType::Continuous, -1, 1);
  bad.add_quadratic_row({"concave", {{x, x, -1}}, {}, RowSense::LessEqual, 0, true});
  EXPECT_THROW(s.model->solve(bad, SolveOptions{}), InvalidArgument);
}

}  // namespace
