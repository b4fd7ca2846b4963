// SPDX-License-Identifier: MIT
// constraint/polynomial and constraint/linear loaded from their .so files: the conformance
// kit, parameter errors as the kernel sees them, capabilities, projection through a context's
// model solver (brute force here, inner_solver/glpk_bnb when it is built), and the known
// constraints that every loaded problem plugin declares.
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include <arbo/sdk/capabilities.hpp>
#include <arbo/sdk/error.hpp>
#include <arbo/sdk/testing/conformance.hpp>

#include "expression.hpp"
#include "test_support.hpp"

namespace {

using namespace arbo::sdk;
using arbo::constraints_test::EnumerationSolver;
using arbo::constraints_test::projection_cost;
using arbo::constraints_test::RecordingSolver;
using arbo::constraints_test::SolverContext;
using arbo::sdk::testing::ConformanceOptions;
using arbo::sdk::testing::PluginUnderTest;

const std::string kPolynomialSo = ARBO_PLUGIN_DIR "/libarbo_constraint_polynomial.so";
const std::string kLinearSo = ARBO_PLUGIN_DIR "/libarbo_constraint_linear.so";

// Loaded once per process and never unloaded, like the kernel does.
const PluginUnderTest& load(const std::string& path) {
  // Never destroyed, so the libraries stay reachable for the sanitizer build's leak check.
  static auto* loaded = new std::map<std::string, const PluginUnderTest*>;
  auto& p = (*loaded)[path];
  if (p == nullptr) p = new PluginUnderTest(path);
  return *p;
}

const ComponentInfo& component(const std::string& path, const char* name) {
  const ComponentInfo* info = load(path).find(Kind::Constraint, name);
  if (info == nullptr) throw std::runtime_error(std::string("no constraint/") + name);
  return *info;
}

Space two_reals() {
  return Space({Parameter::real("x0", 0.0, 1.0), Parameter::real("x1", 0.0, 1.0),
                Parameter::integer("k", 0, 4)});
}

// A constraint created through the plugin's factory, with what its CreateArgs refer to.
struct Created {
  Created(const ComponentInfo& info, const std::map<std::string, ParamValue>& raw, Space s,
          ModelSolver* solver = nullptr)
      : ctx(solver), space(std::move(s)) {
    params = validate_params(info.params(), raw, arbo::sdk::testing::component_id(info));
    component.reset(info.create(CreateArgs{ctx, params, space}));
    constraint = dynamic_cast<Constraint*>(component.get());
    if (constraint == nullptr) throw std::runtime_error("not a constraint");
  }
  SolverContext ctx;
  ParamSet params;
  Space space;
  std::unique_ptr<Component> component;
  Constraint* constraint = nullptr;
};

// The ParamError a factory throws for `raw`, as "<key>|<message>".
std::string creation_error(const ComponentInfo& info, const std::map<std::string, ParamValue>& raw,
                           const Space& space = two_reals()) {
  try {
    Created c(info, raw, space);
  } catch (const ParamError& e) {
    return e.key() + "|" + e.what();
  }
  return "";
}

TEST(constraint_plugins, conform_to_the_sdk) {
  ConformanceOptions options;
  options.param_overrides["constraint/polynomial"] = {
      {"expression", std::string("x_lin^2 + x_log*n_int - 2*flag <= 4 + x_cond")}};
  options.param_overrides["constraint/linear"] = {
      {"rows", std::string("x_lin + 0.5*n_int <= 3; x_log - flag >= -1; x_cond + x_lin == 0.5")}};
  arbo::sdk::testing::expect_plugin_conforms(kPolynomialSo, options);
  arbo::sdk::testing::expect_plugin_conforms(kLinearSo, options);
}

TEST(constraint_plugins, register_one_component_each_with_both_capabilities) {
  ASSERT_TRUE(load(kPolynomialSo).compatible()) << load(kPolynomialSo).header_error();
  ASSERT_TRUE(load(kLinearSo).compatible()) << load(kLinearSo).header_error();
  EXPECT_EQ(load(kPolynomialSo).components().size(), 1u);
  EXPECT_EQ(load(kLinearSo).components().size(), 1u);
  Created poly(component(kPolynomialSo, "polynomial"),
               {{"expression", std::string("x0*x1 >= 0.25")}}, two_reals());
  Created lin(component(kLinearSo, "linear"), {{"rows", std::string("x0 <= 0.5; x1 >= 0.5")}},
              two_reals());
  for (Component* c : {poly.component.get(), lin.component.get()}) {
    EXPECT_NE(dynamic_cast<FormulatesConstraint*>(c), nullptr);
    EXPECT_NE(dynamic_cast<ProjectsPoints*>(c), nullptr);
  }
}

TEST(constraint_plugins, parameter_errors_name_the_key_and_point_at_the_column) {
  const ComponentInfo& poly = component(kPolynomialSo, "polynomial");
  const ComponentInfo& lin = component(kLinearSo, "linear");
  EXPECT_EQ(creation_error(poly, {}),
            "expression|constraint/polynomial: invalid expression: empty expression: expected a "
            "constraint such as \"x0^2 + x1*x2 <= 25\"");
  EXPECT_EQ(creation_error(poly, {{"expression", std::string("x0^2 + x9 <= 1")}}),
            "expression|constraint/polynomial: invalid expression: unknown parameter 'x9' (did "
            "you mean 'x0'?) at column 8:\n"
            "  x0^2 + x9 <= 1\n"
            "         ^");
  EXPECT_EQ(creation_error(lin, {}),
            "rows|constraint/linear: invalid rows: no rows: expected rows such as \"x1 + 2*x2 <= "
            "3; x1 - x2 >= -1\"");
  EXPECT_EQ(creation_error(lin, {{"rows", std::string("x0 + x1 <= 1; x0*x1 >= 0")}}),
            "rows|constraint/linear: invalid rows: non-linear term: product of two non-constant "
            "factors (a linear row allows only constant multiples of parameters) at column 17:\n"
            "  x0 + x1 <= 1; x0*x1 >= 0\n"
            "                  ^");
  const Space with_cat({Parameter::real("x0", 0, 1), Parameter::categorical("opt", {"a", "b"})});
  EXPECT_EQ(creation_error(poly, {{"expression", std::string("x0 + opt <= 1")}}, with_cat),
            "expression|constraint/polynomial: invalid expression: parameter 'opt' is "
            "categorical: expressions can use real, integer and binary parameters only at column "
            "6:\n"
            "  x0 + opt <= 1\n"
            "       ^");
}

TEST(constraint_plugins, violation_and_describe) {
  Created poly(component(kPolynomialSo, "polynomial"),
               {{"expression", std::string("x0^2 + x1*k - 3*x0 <= 1")}}, two_reals());
  EXPECT_EQ(poly.constraint->describe(), "x0^2 + x1*k - 3*x0 - 1 <= 0");
  Eigen::Vector3d p(0.5, 0.75, 4.0);  // 0.25 + 3 - 1.5 - 1 = 0.75
  EXPECT_DOUBLE_EQ(poly.constraint->violation(p), 0.75);
  p[2] = 1.0;  // 0.25 + 0.75 - 1.5 - 1 < 0
  EXPECT_EQ(poly.constraint->violation(p), 0.0);

  Created lin(component(kLinearSo, "linear"),
              {{"rows", std::string("x0 + x1 <= 1; 2*k = 3*x0 + 2")}}, two_reals());
  EXPECT_EQ(lin.constraint->describe(), "x0 + x1 - 1 <= 0; -3*x0 + 2*k - 2 == 0 (2 rows)");
  p << 0.5, 0.75, 2.0;  // 0.25 over; |4 - 3.5| = 0.5
  EXPECT_DOUBLE_EQ(lin.constraint->violation(p), 0.5);
  p << 0.0, 0.75, 1.0;
  EXPECT_EQ(lin.constraint->violation(p), 0.0);
}

TEST(constraint_plugins, projection_through_the_context_model_solver) {
  EnumerationSolver solver(400);
  Created lin(component(kLinearSo, "linear"), {{"rows", std::string("x0 + x1 >= 1.5")}},
              two_reals(), &solver);
  auto* proj = dynamic_cast<ProjectsPoints*>(lin.component.get());
  ASSERT_NE(proj, nullptr);
  Eigen::VectorXd p = Eigen::Vector3d(0.0, 0.0, 3.0);
  ASSERT_TRUE(proj->project(p));
  EXPECT_LE(lin.constraint->violation(p), 1e-7);
  EXPECT_NEAR(p[0], 0.75, 0.003);
  EXPECT_NEAR(p[1], 0.75, 0.003);
  EXPECT_EQ(p[2], 3.0);
  EXPECT_EQ(solver.calls, 1);

  // The conformance kit's context has no model solver: projection declines.
  Created none(component(kLinearSo, "linear"), {{"rows", std::string("x0 + x1 >= 1.5")}},
               two_reals());
  p = Eigen::Vector3d(0.0, 0.0, 3.0);
  EXPECT_FALSE(dynamic_cast<ProjectsPoints*>(none.component.get())->project(p));
  EXPECT_EQ(p, Eigen::Vector3d(0.0, 0.0, 3.0));
}

// --- with the real solver ---------------------------------------------------------------------

TEST(constraint_plugins_glpk, projection_with_glpk_bnb) {
  const std::string so = ARBO_PLUGIN_DIR "/libarbo_inner_solver_glpk_bnb.so";
  // A stock plugin of every build (and a dependency of this test's target): missing is broken.
  ASSERT_TRUE(std::filesystem::exists(so)) << so << " is not built";
  const PluginUnderTest& plugin = load(so);
  ASSERT_TRUE(plugin.compatible()) << plugin.header_error();
  const ComponentInfo* info = plugin.find(Kind::InnerSolver, "glpk_bnb");
  ASSERT_NE(info, nullptr) << "no inner_solver/glpk_bnb in " << so;
  const Space space({Parameter::real("x", -2.0, 3.0), Parameter::real("y", 0.0, 4.0),
                     Parameter::integer("n", 0, 8), Parameter::binary("b")});
  arbo::sdk::testing::TestContext solver_ctx(1);
  const ParamSet solver_params = validate_params(info->params(), {}, "inner_solver/glpk_bnb");
  std::unique_ptr<Component> solver_component(
      info->create(CreateArgs{solver_ctx, solver_params, space}));
  auto* glpk = dynamic_cast<ModelSolver*>(solver_component.get());
  ASSERT_NE(glpk, nullptr) << "inner_solver/glpk_bnb does not implement ModelSolver";
  RecordingSolver recording(*glpk);
  ModelSolver* solver = &recording;

  const ComponentInfo& poly = component(kPolynomialSo, "polynomial");
  const ComponentInfo& lin = component(kLinearSo, "linear");
  Eigen::VectorXd x0(4);
  x0 << 2.0, 2.0, 3.0, 0.0;

  // Equality, solved by hand with a Lagrange multiplier: x = 2 - 75/41, y = 2 - 48/41. The
  // solver stops at a gap of 1e-6 on the squared distance, i.e. within ~3e-3 in x and y.
  {
    Created c(lin, {{"rows", std::string("x + y == 1")}}, space, solver);
    Eigen::VectorXd p = x0;
    ASSERT_TRUE(dynamic_cast<ProjectsPoints*>(c.component.get())->project(p));
    Eigen::VectorXd opt = x0;
    opt[0] = 2.0 - 75.0 / 41.0;
    opt[1] = 2.0 - 48.0 / 41.0;
    EXPECT_NEAR(p[0] + p[1], 1.0, 1e-6);
    EXPECT_LE(projection_cost(space, p, x0), projection_cost(space, opt, x0) + 2e-6);
    EXPECT_NEAR(p[0], opt[0], 5e-3);
    EXPECT_NEAR(p[1], opt[1], 5e-3);
    EXPECT_EQ(p[2], 3.0);
  }
  // Convex disk, and a cubic that needs a lifted auxiliary; compared with a fine search.
  for (const std::string text : {"x^2 + y^2 <= 1", "x^3 + y <= 0", "n + 7*b >= 7"}) {
    SCOPED_TRACE(text);
    Created c(poly, {{"expression", text}}, space, solver);
    Eigen::VectorXd p = x0;
    ASSERT_TRUE(dynamic_cast<ProjectsPoints*>(c.component.get())->project(p));
    EXPECT_LE(c.constraint->violation(p), 1e-6);
    // Fine search over the coordinates the constraint uses (the others stay at x0).
    const bool discrete = text[0] == 'n';
    double best = std::numeric_limits<double>::infinity();
    Eigen::VectorXd q = x0;
    const int ni = discrete ? 8 : 1000;
    const int nj = discrete ? 1 : 400;
    for (int i = 0; i <= ni; ++i) {
      for (int j = 0; j <= nj; ++j) {
        if (discrete) {
          q[2] = i;
          q[3] = j;
        } else {
          q[0] = -2.0 + 5.0 * i / ni;
          q[1] = 4.0 * j / nj;
        }
        if (c.constraint->violation(q) <= 0.0) best = std::min(best, projection_cost(space, q, x0));
      }
    }
    // The grid optimum is no better than the true one; the solver is within its gap of that.
    EXPECT_LE(projection_cost(space, p, x0), best + 1e-5) << recording.summary();
  }
  // Infeasible: x >= 10 in x <= 3.
  Created infeasible(lin, {{"rows", std::string("x >= 10")}}, space, solver);
  Eigen::VectorXd p = x0;
  EXPECT_FALSE(dynamic_cast<ProjectsPoints*>(infeasible.component.get())->project(p));
  EXPECT_EQ(p, x0);
}

// --- problems with known constraints ------------------------------------------------------------

// Every problem of every loaded problem plugin that declares known constraints: each expression
// parses against the problem's own space, and p(x) equals its known_values at 200 random
// points (|p| for equalities, whose sign is a convention), within 1e-9 relative to the size of
// the terms; the polynomial plugin's violation agrees.
TEST(constraint_plugins, problem_known_constraints_match_their_expressions) {
  std::vector<std::string> libraries;
  for (const auto& entry : std::filesystem::directory_iterator(ARBO_PLUGIN_DIR)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("libarbo_problem_", 0) == 0 && entry.path().extension() == ".so") {
      libraries.push_back(entry.path().string());
    }
  }
  std::sort(libraries.begin(), libraries.end());
  const ComponentInfo& poly = component(kPolynomialSo, "polynomial");
  int checked = 0;
  for (const auto& path : libraries) {
    SCOPED_TRACE(path);
    const PluginUnderTest& plugin = load(path);
    ASSERT_TRUE(plugin.compatible()) << plugin.header_error();
    for (const ComponentInfo& info : plugin.components()) {
      if (info.kind != Kind::Problem) continue;
      const std::string id = arbo::sdk::testing::component_id(info);
      SCOPED_TRACE(id);
      arbo::sdk::testing::TestContext ctx(3);
      const ParamSet params = validate_params(info.params(), {}, id);
      const Space no_space;
      std::unique_ptr<Component> component(info.create(CreateArgs{ctx, params, no_space}));
      auto* problem = dynamic_cast<Problem*>(component.get());
      ASSERT_NE(problem, nullptr);
      const auto* known = dynamic_cast<const HasKnownConstraints*>(component.get());
      if (known == nullptr) continue;
      const Space& space = problem->space();
      const std::vector<KnownConstraintSpec> specs = known->known_constraints();
      std::vector<arbo::plugins::ParsedConstraint> rows;
      std::vector<std::unique_ptr<Created>> plugin_rows;
      for (const auto& spec : specs) {
        try {
          auto parsed = arbo::plugins::parse_constraints(spec.expression, space);
          ASSERT_EQ(parsed.size(), 1u);
          rows.push_back(std::move(parsed[0]));
        } catch (const arbo::plugins::ExpressionError& e) {
          FAIL() << "known constraint '" << spec.name << "' does not parse: "
                 << arbo::plugins::format_expression_error(spec.expression, e);
        }
        plugin_rows.push_back(std::make_unique<Created>(
            poly, std::map<std::string, ParamValue>{{"expression", spec.expression}}, space));
      }
      std::mt19937_64 rng(20240601);
      std::uniform_real_distribution<double> u(0.0, 1.0);
      Eigen::VectorXd unit(static_cast<Eigen::Index>(space.size()));
      Eigen::VectorXd g;
      std::vector<double> user(space.size());
      for (int k = 0; k < 200; ++k) {
        for (Eigen::Index i = 0; i < unit.size(); ++i) unit[i] = u(rng);
        const Eigen::VectorXd x = space.from_unit(unit);
        known->known_values(x, g);
        ASSERT_EQ(g.size(), static_cast<Eigen::Index>(specs.size()));
        for (std::size_t i = 0; i < space.size(); ++i) {
          const double v = x[static_cast<Eigen::Index>(i)];
          user[i] = space[i].log_scale ? std::exp(v) : v;
        }
        for (std::size_t r = 0; r < rows.size(); ++r) {
          const double p = rows[r].value(x);
          const double gr = g[static_cast<Eigen::Index>(r)];
          const double scale = std::max({1.0, std::abs(gr), rows[r].polynomial().magnitude(user)});
          const bool eq = rows[r].equality();
          EXPECT_NEAR(eq ? std::abs(p) : p, eq ? std::abs(gr) : gr, 1e-9 * scale)
              << "known constraint '" << specs[r].name << "' (" << specs[r].expression << ") at "
              << space.describe(x);
          const double s = arbo::constraints_test::expected_row_scale(rows[r].polynomial(), space);
          EXPECT_NEAR(plugin_rows[r]->constraint->violation(x) * s,
                      eq ? std::abs(gr) : std::max(0.0, gr), 1e-9 * scale);
        }
      }
      ++checked;
    }
  }
  // Stock problems declare known constraints (the LEAF-GP g-problems, NN+MILP's Ising): none
  // means the problem libraries are missing from the plugin directory.
  EXPECT_GT(checked, 0) << "no problem library in " << ARBO_PLUGIN_DIR
                        << " declares known constraints";
  RecordProperty("problems_checked", checked);
}

}  // namespace
