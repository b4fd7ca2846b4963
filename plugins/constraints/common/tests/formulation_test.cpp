// SPDX-License-Identifier: MIT
// PolynomialRowsConstraint (the engine of both plugins): violation, the model rows with
// lifted auxiliaries checked through sdk::Model::evaluate, convexity flags, and projection
// with a brute-force model solver.
#include <cmath>
#include <numbers>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include <arbo/sdk/error.hpp>

#include "polynomial_rows.hpp"
#include "test_support.hpp"

namespace {

using namespace arbo;
using arbo::constraints_test::definitions;
using arbo::constraints_test::EnumerationSolver;
using arbo::constraints_test::fill_definitions;
using arbo::constraints_test::projection_cost;
using arbo::constraints_test::SolverContext;
using arbo::plugins::ParseOptions;
using arbo::plugins::PolynomialRowsConstraint;

// Coordinates: 0 x, 1 y, 2 z, 3 n, 4 b, 5 c, 6 lg.
sdk::Space make_space() {
  return sdk::Space({sdk::Parameter::real("x", -2.0, 3.0), sdk::Parameter::real("y", 0.0, 4.0),
                     sdk::Parameter::real("z", -1.0, 1.0), sdk::Parameter::integer("n", 0, 8),
                     sdk::Parameter::binary("b"),
                     sdk::Parameter::categorical("c", {"red", "green", "blue"}),
                     sdk::Parameter::real("lg", 0.01, 100.0, true)});
}

class Rows final : public PolynomialRowsConstraint {
 public:
  Rows(const sdk::CreateArgs& args, const ParseOptions& options)
      : PolynomialRowsConstraint(args, "test/rows", "expression", options, "t") {}
};

// A constraint with everything its CreateArgs refer to.
struct Instance {
  Instance(const std::string& text, sdk::ModelSolver* solver = nullptr, ParseOptions options = {})
      : ctx(solver), space(make_space()) {
    params.set("expression", text);
    rows = std::make_unique<Rows>(sdk::CreateArgs{ctx, params, space}, options);
  }
  SolverContext ctx;
  sdk::ParamSet params;
  sdk::Space space;
  std::unique_ptr<Rows> rows;
};

// A model with one variable per non-categorical coordinate, as a model-based solver builds it.
struct PointModel {
  explicit PointModel(const sdk::Space& space) : x_vars(space.size(), -1) {
    for (std::size_t i = 0; i < space.size(); ++i) {
      const sdk::Parameter& p = space[i];
      if (p.type == sdk::ParamType::Categorical) continue;
      const sdk::VarType t = p.type == sdk::ParamType::Real      ? sdk::VarType::Continuous
                             : p.type == sdk::ParamType::Integer ? sdk::VarType::Integer
                                                                 : sdk::VarType::Binary;
      const auto k = static_cast<Eigen::Index>(i);
      x_vars[i] = model.add_variable(p.name, t, space.lower()[k], space.upper()[k]);
    }
  }
  sdk::Model model;
  std::vector<int> x_vars;
};

Eigen::VectorXd random_point(const sdk::Space& space, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Eigen::VectorXd unit(static_cast<Eigen::Index>(space.size()));
  for (Eigen::Index i = 0; i < unit.size(); ++i) unit[i] = u(rng);
  return space.from_unit(unit);
}

// Model values with the point's coordinates and the auxiliaries at their implied values.
std::vector<double> model_values(const PointModel& pm, const Eigen::VectorXd& x) {
  std::vector<double> v(pm.model.num_variables(), 0.0);
  for (std::size_t i = 0; i < pm.x_vars.size(); ++i) {
    if (pm.x_vars[i] >= 0)
      v[static_cast<std::size_t>(pm.x_vars[i])] = x[static_cast<Eigen::Index>(i)];
  }
  fill_definitions(definitions(pm.model), v);
  return v;
}

TEST(constraint_rows, violation_is_worst_row) {
  Instance lin("x + y <= 1; x - y >= -1; n == 2", nullptr, {.max_degree = 1, .allow_list = true});
  // Magnitudes 8, 8 and 10 on the box: far below 1 / kScaleFraction, so the scales are 1.
  ASSERT_EQ(lin.rows->scales(), (std::vector<double>{1.0, 1.0, 1.0}));
  Eigen::VectorXd p(7);
  p << 0.5, 0.25, 0.0, 2.0, 0.0, 1.0, 0.0;
  EXPECT_EQ(lin.rows->violation(p), 0.0);
  p[1] = 1.0;  // row 1: 0.5 over
  EXPECT_DOUBLE_EQ(lin.rows->violation(p), 0.5);
  p[1] = 2.0;  // row 1: 1.5 over, row 2: 0.5 over
  EXPECT_DOUBLE_EQ(lin.rows->violation(p), 1.5);
  p[1] = 0.0;
  p[3] = 5.0;  // equality: |5 - 2|
  EXPECT_DOUBLE_EQ(lin.rows->violation(p), 3.0);
  p[3] = 0.0;
  EXPECT_DOUBLE_EQ(lin.rows->violation(p), 2.0);
  EXPECT_EQ(lin.rows->describe(), "x + y - 1 <= 0; -x + y - 1 <= 0; n - 2 == 0 (3 rows)");
  EXPECT_THROW(lin.rows->violation(Eigen::VectorXd::Zero(3)), sdk::InvalidArgument);

  Instance poly("x^2*lg >= 2");
  p << 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, std::log(0.5);
  EXPECT_NEAR(poly.rows->violation(p), 1.5, 1e-15);
  p[6] = std::log(4.0);
  EXPECT_EQ(poly.rows->violation(p), 0.0);
  p[0] = std::nan("");
  EXPECT_EQ(poly.rows->violation(p), std::numeric_limits<double>::max());

  // A large row is measured in units of kScaleFraction times its magnitude over the box:
  // 2e9 + 3^2 * 100 * 1e5 (lg in user units).
  Instance large("1e5*x^2*lg >= 2e9");
  ASSERT_EQ(large.rows->scales(), std::vector<double>{1e-4 * (2e9 + 9e7)});
  p[0] = 3.0;
  p[6] = std::log(100.0);  // 2e9 - 9e7 short
  EXPECT_NEAR(large.rows->violation(p), 1.91e9 / 2.09e5, 1e-9);
}

// The penalty of LEAF-GP's Eq. 14: squared excesses summed over the rows, in user units (no
// scale), equality rows by |h|.
TEST(constraint_rows, squared_excess_sums_the_rows_in_user_units) {
  Instance lin("x + y <= 1; x - y >= -1; n == 2", nullptr, {.max_degree = 1, .allow_list = true});
  Eigen::VectorXd p(7);
  p << 0.5, 0.25, 0.0, 2.0, 0.0, 1.0, 0.0;
  EXPECT_EQ(lin.rows->squared_excess(p), 0.0);
  p[1] = 2.0;  // row 1: 1.5 over, row 2: 0.5 over
  EXPECT_DOUBLE_EQ(lin.rows->squared_excess(p), 2.25 + 0.25);
  p[3] = 5.0;  // and the equality: |5 - 2|
  EXPECT_DOUBLE_EQ(lin.rows->squared_excess(p), 2.25 + 0.25 + 9.0);
  // A large row's excess is not divided by its scale (violation's units are).
  Instance large("1e5*x^2*lg >= 2e9");
  p << 3.0, 0.0, 0.0, 0.0, 0.0, 0.0, std::log(100.0);  // 2e9 - 9e7 short
  EXPECT_NEAR(large.rows->squared_excess(p), 1.91e9 * 1.91e9, 1e-12 * 1.91e9 * 1.91e9);
  EXPECT_NEAR(large.rows->violation(p), 1.91e9 / 2.09e5, 1e-9);
  // Within the rounding it is 0, like the violation; NaN is the largest finite double.
  const double x = 123456789.0;
  Instance r("0.1*x + 0.2*x <= 0.3*x");
  p = Eigen::VectorXd::Zero(7);
  p[0] = x;
  EXPECT_EQ(r.rows->squared_excess(p), 0.0);
  p[0] = std::nan("");
  EXPECT_EQ(r.rows->squared_excess(p), std::numeric_limits<double>::max());
}

TEST(constraint_rows, excess_within_rounding_is_no_violation) {
  // In exact arithmetic 0.1 x + 0.2 x - 0.3 x is 0; in doubles it is 7.5e-9 at this x.
  const double x = 123456789.0;
  ASSERT_GT((0.1 * x + 0.2 * x) - 0.3 * x, 0.0);
  Instance r("0.1*x + 0.2*x <= 0.3*x");
  Eigen::VectorXd p = Eigen::VectorXd::Zero(7);
  p[0] = x;
  EXPECT_EQ(r.rows->violation(p), 0.0);
  // A real excess still counts, however small against the terms' rounding it is not.
  Instance one("x <= 1");
  p[0] = 1.0 + 1e-9;
  EXPECT_NEAR(one.rows->violation(p), 1e-9, 1e-15);
  // An excess of 200, above the rounding (0.1 here), counts in units of the scale
  // 1e-4 * (1e12 + 9).
  Instance big("x^2 <= 1e12");
  p[0] = 1e6 * (1.0 + 1e-10);
  EXPECT_NEAR(big.rows->violation(p), 2e-6, 1e-11);
}

TEST(constraint_rows, describe_is_bounded) {
  std::string text = "x";
  for (int i = 0; i < 100; ++i) text += " + " + std::to_string(i + 1) + "*y";
  Instance big(text + " <= 1");
  EXPECT_EQ(big.rows->describe(), "x + 5050*y - 1 <= 0");
  std::string many;
  for (int i = 0; i < 40; ++i) many += fmt::format("x + {}*y <= {};", i + 1, i);
  Instance lin(many, nullptr, {.max_degree = 1, .allow_list = true});
  const std::string d = lin.rows->describe();
  EXPECT_EQ(d.substr(d.size() - 13), "... (40 rows)");
  EXPECT_EQ(d.size(), 240u + 10u);
}

// For random points: the row activities reproduce p(x), the auxiliaries' bounds contain their
// implied values, and the rows are satisfied iff the constraint is.
TEST(constraint_rows, formulation_reproduces_the_polynomial) {
  const std::vector<std::string> texts = {
      "x + 2*y - 3*n + b <= 1",
      "x^2 + y^2 <= 4",
      "x*y - z*n >= -1",
      "x^3 + y <= 2",
      "x^3*y - 2*x*y*z + n^2*b <= 0.5",
      "(x + y + z)^4 >= 30",
      "x^5 - x^4*z + y*z*n*b == 1",
      "(x - 1)^2*(y - 2)^2*(z + 0.5)^2 <= 0.7",
  };
  std::mt19937_64 rng(7);
  for (const auto& text : texts) {
    SCOPED_TRACE(text);
    Instance in(text);
    PointModel pm(in.space);
    const std::size_t base_vars = pm.model.num_variables();
    in.rows->formulate(pm.model, sdk::PointVariables{pm.x_vars});
    const auto& p = in.rows->rows()[0];
    const bool lifted = p.polynomial().degree() > 2;
    EXPECT_EQ(pm.model.num_variables() > base_vars, lifted);
    const bool linear = p.polynomial().degree() <= 1;
    ASSERT_EQ(pm.model.linear_rows().size(), linear ? 1u : 0u);
    const std::size_t main = pm.model.quadratic_rows().size() - 1;  // added last
    EXPECT_EQ(definitions(pm.model).size(), pm.model.num_variables() - base_vars);
    int feasible = 0;
    for (int k = 0; k < 300; ++k) {
      Eigen::VectorXd x = random_point(in.space, rng);
      if (p.equality() && k % 2 == 0) {
        // Solve the equality for x by bisection so that the satisfied branch is tested too.
        double lo = in.space.lower()[0], hi = in.space.upper()[0];
        x[0] = lo;
        const double flo = p.value(x);
        x[0] = hi;
        if ((flo < 0) == (p.value(x) < 0)) continue;
        for (int it = 0; it < 200; ++it) {
          x[0] = 0.5 * (lo + hi);
          if ((p.value(x) < 0) == (flo < 0))
            lo = x[0];
          else
            hi = x[0];
        }
      }
      const std::vector<double> v = model_values(pm, x);
      const sdk::ModelEvaluation e = pm.model.evaluate(v);
      EXPECT_EQ(e.max_bound_violation, 0.0) << "an auxiliary leaves its interval bounds";
      const double activity = linear ? e.linear_activity[0] : e.quadratic_activity[main];
      const double rhs =
          linear ? pm.model.linear_rows()[0].rhs : pm.model.quadratic_rows()[main].rhs;
      std::vector<double> user(static_cast<std::size_t>(x.size()));
      for (Eigen::Index i = 0; i < x.size(); ++i) user[static_cast<std::size_t>(i)] = x[i];
      const double scale = std::max(1.0, p.polynomial().magnitude(user));
      const double px = p.value(x);
      // The model row is p divided by the row's scale, as violation() is.
      const double s = in.rows->scales()[0];
      EXPECT_EQ(s, constraints_test::expected_row_scale(p.polynomial(), in.space));
      EXPECT_NEAR((activity - rhs) * s, px, 1e-12 * scale);
      const double tol = 1e-9 * scale;
      if (std::abs(px) > tol || p.equality()) {
        const bool satisfied = in.rows->violation(x) <= (p.equality() ? tol / s : 0.0);
        EXPECT_EQ(e.max_row_violation <= tol / s, satisfied) << "p(x) = " << px;
        feasible += satisfied;
      }
    }
    EXPECT_GT(feasible, 0) << "no satisfied point was drawn: the test checks one side only";
  }
}

TEST(constraint_rows, lifting_bounds_are_exact_intervals) {
  Instance in("x^3*y <= 1");  // x in [-2, 3], y in [0, 4]
  PointModel pm(in.space);
  in.rows->formulate(pm.model, sdk::PointVariables{pm.x_vars});
  const auto defs = definitions(pm.model);
  ASSERT_EQ(defs.size(), 2u);  // x^2 and x*y, then the row is their product
  const auto& w1 = pm.model.variables()[static_cast<std::size_t>(defs[0].w)];
  const auto& w2 = pm.model.variables()[static_cast<std::size_t>(defs[1].w)];
  EXPECT_NEAR(w1.lower, 0.0, 1e-15);
  EXPECT_NEAR(w1.upper, 9.0, 1e-10);
  EXPECT_NEAR(w2.lower, -8.0, 1e-10);
  EXPECT_NEAR(w2.upper, 12.0, 1e-10);
  EXPECT_LE(w2.lower, -8.0);
  EXPECT_GE(w2.upper, 12.0);
  // Corners of the box, where rounding could push an implied value outside its bounds.
  for (double x : {-2.0, 3.0, 0.0}) {
    for (double y : {0.0, 4.0}) {
      Eigen::VectorXd p = Eigen::VectorXd::Zero(7);
      p[0] = x;
      p[1] = y;
      EXPECT_EQ(pm.model.evaluate(model_values(pm, p)).max_bound_violation, 0.0);
    }
  }
  // x^5 = x^2 * x^3 with x^3 = x * x^2: the square is shared.
  Instance five("x^5 <= 1");
  PointModel pm5(five.space);
  five.rows->formulate(pm5.model, sdk::PointVariables{pm5.x_vars});
  const auto d5 = definitions(pm5.model);
  ASSERT_EQ(d5.size(), 2u);
  const auto& cube = pm5.model.variables()[static_cast<std::size_t>(d5[1].w)];
  EXPECT_NEAR(cube.lower, -8.0, 1e-10);
  EXPECT_NEAR(cube.upper, 27.0, 1e-10);
}

bool main_row_convex(const std::string& text) {
  Instance in(text);
  PointModel pm(in.space);
  in.rows->formulate(pm.model, sdk::PointVariables{pm.x_vars});
  EXPECT_FALSE(pm.model.quadratic_rows().empty()) << text;
  return pm.model.quadratic_rows().back().convex;
}

TEST(constraint_rows, convexity_flag) {
  EXPECT_TRUE(main_row_convex("x^2 + y^2 <= 1"));
  EXPECT_TRUE(main_row_convex("3*x^2 + 0.5*(y - z)^2 + x - n <= 4"));
  EXPECT_TRUE(main_row_convex("(x - y)^2 <= 1"));  // positive semidefinite, singular
  EXPECT_TRUE(main_row_convex("2*x^2 + 2*x*y + y^2 + x <= 3"));
  EXPECT_TRUE(main_row_convex("-x^2 >= -4"));
  EXPECT_FALSE(main_row_convex("x^2 + y^2 >= 1"));
  EXPECT_FALSE(main_row_convex("x*y <= 1"));
  EXPECT_FALSE(main_row_convex("x^2 - y^2 <= 1"));
  EXPECT_FALSE(main_row_convex("x^2 + 2*x*y + 0.5*y^2 <= 1"));
  EXPECT_FALSE(main_row_convex("x^2 + y^2 == 1"));
  // x^4 <= 1 becomes w*w <= 1 with w = x^2: convex in w; the definition row is not.
  Instance quartic("x^4 <= 1");
  PointModel pm(quartic.space);
  quartic.rows->formulate(pm.model, sdk::PointVariables{pm.x_vars});
  ASSERT_EQ(pm.model.quadratic_rows().size(), 2u);
  EXPECT_FALSE(pm.model.quadratic_rows()[0].convex);
  EXPECT_TRUE(pm.model.quadratic_rows()[1].convex);
  EXPECT_TRUE(plugins::is_positive_semidefinite({}));
}

TEST(constraint_rows, formulation_errors) {
  Instance logged("x + lg <= 3");
  PointModel pm(logged.space);
  try {
    logged.rows->formulate(pm.model, sdk::PointVariables{pm.x_vars});
    ADD_FAILURE() << "a row over a log-scaled parameter was formulated";
  } catch (const sdk::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("parameter 'lg' is log-scaled"), std::string::npos)
        << e.what();
  }
  Instance plain("x + y <= 3");
  std::vector<int> missing = pm.x_vars;
  missing[1] = -1;
  EXPECT_THROW(plain.rows->formulate(pm.model, sdk::PointVariables{missing}), sdk::InvalidArgument);
  EXPECT_THROW(plain.rows->formulate(pm.model, sdk::PointVariables{{0}}), sdk::InvalidArgument);
}

// --- projection with the brute-force solver ---------------------------------------------------

TEST(constraint_rows_projection, feasible_points_are_kept_and_no_solver_means_false) {
  EnumerationSolver solver;
  Instance in("x^2 + y^2 <= 1", &solver);
  Eigen::VectorXd p(7);
  p << 0.5, 0.5, 0.3, 4.0, 1.0, 2.0, 1.0;
  const Eigen::VectorXd before = p;
  EXPECT_TRUE(in.rows->project(p));
  EXPECT_EQ(p, before);
  EXPECT_EQ(solver.calls, 0);

  Instance none("x^2 + y^2 <= 1");
  p[0] = 2.5;
  const Eigen::VectorXd outside = p;
  EXPECT_FALSE(none.rows->project(p));
  EXPECT_EQ(p, outside);
}

TEST(constraint_rows_projection, disk_nearest_point_in_scaled_metric) {
  EnumerationSolver solver(400);
  Instance in("x^2 + y^2 <= 1", &solver);
  Eigen::VectorXd p(7);
  p << 2.5, 3.5, 0.3, 4.0, 1.0, 2.0, 1.0;
  const Eigen::VectorXd x0 = p;
  ASSERT_TRUE(in.rows->project(p));
  EXPECT_LE(in.rows->violation(p), 1e-7);
  // Only x and y may move.
  for (int i : {2, 3, 4, 5, 6}) EXPECT_EQ(p[i], x0[i]) << i;
  // The optimum lies on the quarter circle; a fine search over the angle finds it.
  double best = std::numeric_limits<double>::infinity();
  for (int k = 0; k <= 200000; ++k) {
    const double t = 0.5 * std::numbers::pi * k / 200000;
    Eigen::VectorXd q = x0;
    q[0] = std::cos(t);
    q[1] = std::sin(t);
    best = std::min(best, projection_cost(in.space, q, x0));
  }
  const double got = projection_cost(in.space, p, x0);
  EXPECT_GE(got, best - 1e-9);
  EXPECT_LE(got, best + 0.01);  // the grid spacing is 1/80 of each range
}

TEST(constraint_rows_projection, binary_flips_when_it_must_and_categoricals_stay) {
  EnumerationSolver solver(200);
  Instance in("x - 10*b <= -5", &solver);
  Eigen::VectorXd p(7);
  p << 1.0, 3.0, 0.0, 2.0, 0.0, 2.0, 0.0;
  ASSERT_TRUE(in.rows->project(p));
  EXPECT_EQ(p[4], 1.0);
  EXPECT_NEAR(p[0], 1.0, 1e-12);
  EXPECT_EQ(p[5], 2.0);

  // Moving the integer by 5/8 of its range costs less than flipping the binary.
  Instance mixed("n + 7*b >= 7", &solver);
  p << 0.0, 0.0, 0.0, 2.0, 0.0, 1.0, 0.0;
  ASSERT_TRUE(mixed.rows->project(p));
  EXPECT_EQ(p[3], 7.0);
  EXPECT_EQ(p[4], 0.0);
}

TEST(constraint_rows_projection, lifted_rows_equalities_and_failures) {
  EnumerationSolver solver(400);
  Instance cubic("x^3 + y >= 10", &solver);
  Eigen::VectorXd p(7);
  p << 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0;
  ASSERT_TRUE(cubic.rows->project(p));
  EXPECT_LE(cubic.rows->violation(p), 1e-7);

  Instance eq("x == 1.25", &solver, {.max_degree = 1, .allow_list = true});
  p << 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0;
  ASSERT_TRUE(eq.rows->project(p));
  EXPECT_NEAR(p[0], 1.25, 1e-12);
  EXPECT_EQ(p[1], 1.0);

  Instance infeasible("x >= 10", &solver);
  p << 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0;
  const Eigen::VectorXd before = p;
  EXPECT_FALSE(infeasible.rows->project(p));
  EXPECT_EQ(p, before);

  const int calls = solver.calls;
  Instance logged("x + lg >= 4", &solver);
  EXPECT_FALSE(logged.rows->project(p));
  EXPECT_EQ(solver.calls, calls);
}

}  // namespace
