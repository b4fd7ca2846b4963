// SPDX-License-Identifier: MIT
// inner_solver/glpk_bnb through its real shared object: the SDK conformance kit, maximize()
// with formulated acquisitions and constraints, and the ModelSolver face.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <arbo/sdk/capabilities.hpp>
#include <arbo/sdk/exclusion.hpp>
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
  explicit BowlUnderSum(const std::map<std::string, ParamValue>& raw = {}) : s(mixed(), raw) {
    data.reset(2, {});
  }
  Proposal solve() { return s.inner->maximize(SolveRequest{&acq, s.space, {&con}, data}); }
  void observe_three() {
    data.append(Eigen::Vector2d(0.9, 3.0), 1.0, Eigen::VectorXd());  // violates x0 + x1 <= 2.1
    data.append(Eigen::Vector2d(0.5, 1.0), 1.0, Eigen::VectorXd());  // value 3.96
    data.append(Eigen::Vector2d(0.0, 0.0), 1.0, Eigen::VectorXd());  // value 0.91
  }
  bool logged(const std::string& fragment) const {
    for (const std::string& line : s.ctx.logs()) {
      if (line.find(fragment) != std::string::npos) return true;
    }
    return false;
  }
  Solver s;
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
  BowlUnderSum b({{"start_search", ParamValue(std::int64_t{0})}});
  b.observe_three();
  const Proposal p = b.solve();
  ASSERT_TRUE(p.found) << p.note;
  EXPECT_NEAR(p.x[0], 0.1, 1e-6);
  EXPECT_EQ(p.x[1], 2.0);
  // The best feasible observation by acquisition value, (0.5, 1), was the first incumbent.
  EXPECT_TRUE(b.logged("incumbent 3.96 from a start"));
}

TEST(glpk_bnb_plugin, the_coordinate_search_improves_the_start) {
  BowlUnderSum b;
  b.observe_three();
  const Proposal p = b.solve();
  ASSERT_TRUE(p.found) << p.note;
  EXPECT_NEAR(p.x[0], 0.1, 1e-6);
  EXPECT_EQ(p.x[1], 2.0);
  // From (0.5, 1), x0 moves to its best candidate, just past the midpoint of the observed 0 and
  // 0.5 (0.25025: value 3.99752...), and x1 = 2 would violate the constraint there: that point
  // is the search's first incumbent, ahead of the observation itself.
  EXPECT_TRUE(b.logged("coordinate search from the best observed point: 1 moves"));
  EXPECT_TRUE(b.logged("incumbent 3.9975"));
  EXPECT_TRUE(b.logged("2 of 2 starts completed"));
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

// ---- [proposal] exclude_evaluated: no-good cuts (sdk/exclusion.hpp) ----

// Maximizes sum w_i x_i over the point variables; optionally declares one-hot indicators of
// coordinate `onehot` (as relu_net does for its inputs), which the cuts must reuse.
class Linear final : public Acquisition, public FormulatesAcquisition {
 public:
  explicit Linear(Eigen::VectorXd w, int onehot = -1) : w_(std::move(w)), onehot_(onehot) {}
  void bind(const AcquisitionInputs&) override {}
  double value(const Eigen::VectorXd& x) const override { return w_.dot(x); }
  void formulate(Model& m, const PointVariables& p) const override {
    Objective o{ObjectiveSense::Maximize, {}, {}, 0.0};
    for (Eigen::Index i = 0; i < w_.size(); ++i) {
      o.linear.push_back({p.x_vars[static_cast<std::size_t>(i)], w_[i]});
    }
    m.set_objective(o);
    if (onehot_ < 0) return;
    const int xv = p.x_vars[static_cast<std::size_t>(onehot_)];
    // Copies: add_variable below may reallocate the model's variables.
    const double lower = m.variables()[static_cast<std::size_t>(xv)].lower;
    const double upper = m.variables()[static_cast<std::size_t>(xv)].upper;
    ValueIndicators ind{xv, {}, {}};
    LinearRow one{"one", {}, RowSense::Equal, 1.0};
    LinearRow link{"link", {{xv, 1.0}}, RowSense::Equal, 0.0};
    for (double k = lower; k <= upper; k += 1.0) {
      const int z = m.add_variable("z", VarType::Binary, 0, 1);
      ind.values.push_back(k);
      ind.binaries.push_back(z);
      one.terms.push_back({z, 1.0});
      link.terms.push_back({z, -k});
    }
    m.add_linear_row(one);
    m.add_linear_row(link);
    m.declare_value_indicators(ind);
  }

 private:
  Eigen::VectorXd w_;
  int onehot_;
};

// Solves repeatedly, recording each answer as evaluated (in turn as completed, failed and
// pending, so that all three count); returns the values in the order proposed, and checks
// that the call after the last point finds nothing and reports the space exhausted.
std::vector<double> exhaust(Solver& s, const Acquisition& acq, std::size_t points) {
  Dataset data;
  data.reset(s.space.size(), {});
  std::vector<Eigen::VectorXd> pending;
  std::vector<double> values;
  for (std::size_t k = 0; k <= points; ++k) {
    data.X_pending.resize(static_cast<Eigen::Index>(pending.size()),
                          static_cast<Eigen::Index>(s.space.size()));
    for (std::size_t i = 0; i < pending.size(); ++i) {
      data.X_pending.row(static_cast<Eigen::Index>(i)) = pending[i].transpose();
    }
    SolveRequest req{&acq, s.space, {}, data, true};
    const Proposal p = s.inner->maximize(req);
    if (k == points) {
      EXPECT_FALSE(p.found) << p.note;
      EXPECT_TRUE(p.exhausted) << p.note;
      break;
    }
    EXPECT_TRUE(p.found) << "call " << k << ": " << p.note;
    if (!p.found) break;
    EXPECT_EQ(p.certificate->status, SolveStatus::Optimal) << p.note;
    EXPECT_FALSE(p.exhausted);
    values.push_back(acq.value(p.x));
    if (k % 3 == 0) {
      data.append(p.x, 0.0, Eigen::VectorXd());
    } else if (k % 3 == 1) {
      data.append_failed(p.x);
    } else {
      pending.push_back(p.x);
    }
  }
  return values;
}

// Binary, categorical and small-integer coordinates: 2 x 3 x 4 = 24 points with distinct
// values b + 2 n + 8 c; exclusion must hand them out from best to worst, then stop.
TEST(glpk_bnb_plugin, exclusion_cuts_enumerate_a_discrete_space_best_first) {
  const Space space({Parameter::binary("b"), Parameter::categorical("c", {"p", "q", "r"}),
                     Parameter::integer("n", 0, 3)});
  for (const int onehot : {-1, 1}) {
    Solver s(space);
    const Linear acq(Eigen::Vector3d(1.0, 8.0, 2.0), onehot);
    const std::vector<double> values = exhaust(s, acq, 24);
    ASSERT_EQ(values.size(), 24u);
    for (std::size_t k = 0; k < values.size(); ++k) {
      EXPECT_DOUBLE_EQ(values[k], 23.0 - static_cast<double>(k)) << "onehot " << onehot;
    }
  }
}

// A wide integer (71 values, above kMaxIndicatorValues) is cut by the two-binary disjunction,
// including at its bounds.
TEST(glpk_bnb_plugin, exclusion_cuts_on_a_wide_integer) {
  ASSERT_GT(71.0, kMaxIndicatorValues);
  Solver s(Space({Parameter::integer("w", 0, 70)}));
  const Linear acq(Eigen::VectorXd::Constant(1, 1.0));
  const std::vector<double> values = exhaust(s, acq, 71);
  ASSERT_EQ(values.size(), 71u);
  for (std::size_t k = 0; k < values.size(); ++k) {
    EXPECT_DOUBLE_EQ(values[k], 70.0 - static_cast<double>(k));
  }
}

// The acquisition's declared indicators are reused: the cuts add no binary of their own.
TEST(glpk_bnb_plugin, exclusion_cuts_reuse_declared_indicators) {
  const Space space({Parameter::categorical("c", {"p", "q", "r", "s"})});
  Dataset data;
  data.reset(1, {});
  data.append(Eigen::VectorXd::Constant(1, 3.0), 0.0, Eigen::VectorXd());
  Solver with(space), without(space);
  const Linear declares(Eigen::VectorXd::Constant(1, 1.0), 0);
  const Linear plain(Eigen::VectorXd::Constant(1, 1.0));
  const Proposal a = with.inner->maximize(SolveRequest{&declares, space, {}, data, true});
  const Proposal b = without.inner->maximize(SolveRequest{&plain, space, {}, data, true});
  ASSERT_TRUE(a.found && b.found);
  EXPECT_EQ(a.x[0], 2.0);
  EXPECT_EQ(b.x[0], 2.0);
  EXPECT_EQ(a.model_size->binaries, 4);  // the acquisition's four
  EXPECT_EQ(b.model_size->binaries, 4);  // the cuts' own four
  // Without the option, the observed optimum is proposed again.
  const Proposal c = without.inner->maximize(SolveRequest{&plain, space, {}, data});
  EXPECT_EQ(c.x[0], 3.0);
}
