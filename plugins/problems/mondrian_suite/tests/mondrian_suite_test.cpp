// SPDX-License-Identifier: MIT
// Values of the Mondrian-thesis and c-TPE problems at their optimizers and at hand-computed
// points, their feasible fractions, and the claims of info().
//
// Reference values were computed independently in Python (double precision) from the
// definitions of the thesis's App. A and c-TPE's App. F, as corrected in docs/methods/,
// never by calling this library. Exact feasible fractions come from closed forms or from 1-D
// numerical integration of the constraint's sections.
//
// Feasible fractions are deterministic Monte Carlo estimates (fixed seed) over uniform points of
// the space (categorical values equally likely). The tolerance is 5 standard errors of our
// estimate against an exact value, and 5 standard errors of the difference of two estimates
// (ours and the thesis's, which used 10^6 samples) against a published value.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <arbo/sdk/error.hpp>
#include <arbo/sdk/testing/conformance.hpp>

#include "common/problem_test_util.hpp"

namespace {

using namespace arbo::sdk;
using arbo::sdk::testing::PluginUnderTest;

constexpr double kPi = std::numbers::pi;

using Instance = arbo::test::ProblemInstance;
using arbo::test::Estimate;
using arbo::test::feasible_fraction;

const PluginUnderTest& plugin() {
  return arbo::test::problem_library("libarbo_problem_mondrian_suite.so");
}

std::unique_ptr<Instance> make(const std::string& name,
                               const std::map<std::string, ParamValue>& raw = {}) {
  return arbo::test::make_problem(plugin(), name, raw);
}

Eigen::VectorXd constant(Eigen::Index d, double v) { return Eigen::VectorXd::Constant(d, v); }

// Checks f* and the single optimizer of info(), and that the problem evaluates there to f*
// (within `tol`) with every constraint <= `feas_tol`.
void expect_optimum(Instance& p, double f_star, const Eigen::VectorXd& x_star, double tol,
                    double feas_tol = 0.0) {
  const ProblemInfo info = p.problem->info();
  EXPECT_FALSE(info.maximize);
  ASSERT_TRUE(info.optimum.has_value());
  EXPECT_NEAR(*info.optimum, f_star, tol);
  ASSERT_EQ(info.optimizers.size(), 1u);
  ASSERT_EQ(info.optimizers[0].size(), x_star.size());
  EXPECT_TRUE(info.optimizers[0].isApprox(x_star, 1e-12) ||
              (info.optimizers[0] - x_star).norm() < 1e-12)
      << info.optimizers[0].transpose();
  EXPECT_TRUE(p.space().contains(x_star));
  const Evaluation e = p.at(x_star);
  EXPECT_NEAR(e.objective, f_star, tol);
  ASSERT_EQ(e.constraints.size(), static_cast<Eigen::Index>(p.problem->constraint_names().size()));
  for (Eigen::Index j = 0; j < e.constraints.size(); ++j) {
    EXPECT_LE(e.constraints[j], feas_tol) << "constraint " << j;
  }
}

// 5 standard errors of (our estimate - the thesis's 10^6-sample estimate).
double vs_thesis_tol(double rho, int n) {
  return 5.0 * std::sqrt(rho * (1.0 - rho) * (1.0 / n + 1e-6));
}

// Expects that no feasible point of a (g+1)^2 grid over the two real coordinates (every
// combination of the categorical coordinates 2.. listed in `cats`) is below f* - 1e-9.
void expect_no_grid_point_below(Instance& p, double f_star, int g,
                                const std::vector<std::vector<double>>& cats = {{}}) {
  const Space& s = p.space();
  const auto d = static_cast<Eigen::Index>(s.size());
  Eigen::VectorXd x(d);
  Evaluation e;
  double best = std::numeric_limits<double>::infinity();
  for (const auto& c : cats) {
    for (std::size_t k = 0; k < c.size(); ++k) x[static_cast<Eigen::Index>(k) + 2] = c[k];
    for (int i = 0; i <= g; ++i) {
      for (int j = 0; j <= g; ++j) {
        x[0] = s.lower()[0] + (s.upper()[0] - s.lower()[0]) * i / g;
        x[1] = s.lower()[1] + (s.upper()[1] - s.lower()[1]) * j / g;
        p.problem->evaluate(x, e);
        if ((e.constraints.array() <= 0.0).all()) best = std::min(best, e.objective);
      }
    }
  }
  EXPECT_GE(best, f_star - 1e-9);
  // The grid also comes close to f*, so a wrong (too low) f* would be caught too.
  EXPECT_LT(best, f_star + 0.05 * std::max(1.0, std::abs(f_star)));
}

void expect_reals(const Space& s, const std::vector<std::pair<double, double>>& bounds) {
  ASSERT_EQ(s.size(), bounds.size());
  for (std::size_t i = 0; i < bounds.size(); ++i) {
    const auto k = static_cast<Eigen::Index>(i);
    EXPECT_EQ(s[i].type, ParamType::Real) << i;
    EXPECT_EQ(s[i].name, "x" + std::to_string(i + 1));
    EXPECT_DOUBLE_EQ(s.lower()[k], bounds[i].first) << i;
    EXPECT_DOUBLE_EQ(s.upper()[k], bounds[i].second) << i;
  }
}

// ------------------------------------------------------------------------------------ library

TEST(problem_mondrian_suite, loads_all_fourteen_problems) {
  ASSERT_TRUE(plugin().compatible()) << plugin().header_error();
  const std::vector<std::string> names = {"rosenbrock_constrained",
                                          "g6_reduced",
                                          "gardner",
                                          "alpine_modified",
                                          "townsend",
                                          "sphere_constrained",
                                          "welded_beam",
                                          "ackley20_constrained",
                                          "ackley20",
                                          "keane_bump30",
                                          "mixed_branin",
                                          "func3c",
                                          "ctpe_vanished_constraints",
                                          "ctpe_small_overlap",
                                          "ctpe_two_parts"};
  EXPECT_EQ(plugin().components().size(), names.size());
  for (const auto& n : names) EXPECT_NE(plugin().find(Kind::Problem, n), nullptr) << n;
}

TEST(problem_mondrian_suite, rejects_points_of_the_wrong_length_or_category) {
  Evaluation e;
  EXPECT_THROW(make("gardner")->problem->evaluate(Eigen::VectorXd::Zero(3), e), InvalidArgument);
  EXPECT_THROW(make("keane_bump30")->problem->evaluate(Eigen::VectorXd::Zero(29), e),
               InvalidArgument);
  auto mb = make("mixed_branin");
  EXPECT_THROW(mb->at({0.5, 0.5, 2.0, 0.0}), InvalidArgument);
  EXPECT_THROW(mb->at({0.5, 0.5, 0.5, 0.0}), InvalidArgument);
  EXPECT_THROW(make("func3c")->at({0.0, 0.0, 0.0, 5.0, 0.0}), InvalidArgument);
}

// ---------------------------------------------------------------------- rosenbrock_constrained

TEST(problem_mondrian_suite, rosenbrock_constrained) {
  auto p = make("rosenbrock_constrained");
  expect_reals(p->space(), {{-2.048, 2.048}, {-2.048, 2.048}});
  EXPECT_EQ(p->problem->constraint_names(), std::vector<std::string>{"max_band"});
  // c(1, 1) = |1| - 1 = 0 exactly: on the boundary, feasible.
  expect_optimum(*p, 0.0, Eigen::Vector2d(1.0, 1.0), 0.0);
  Evaluation e = p->at({-1.5, 0.5});
  EXPECT_NEAR(e.objective, 312.5, 1e-10);
  EXPECT_NEAR(e.constraints[0], -0.5, 1e-15);
  // max(x) = -1.2: the absolute value makes it infeasible.
  e = p->at({-1.5, -1.2});
  EXPECT_NEAR(e.objective, 1196.5, 1e-9);
  EXPECT_NEAR(e.constraints[0], 0.2, 1e-15);
  expect_no_grid_point_below(*p, 0.0, 400);
}

TEST(problem_mondrian_suite, rosenbrock_constrained_feasible_fraction) {
  // Exact: -1 <= max(x1, x2) <= 1 on [-a, a]^2 has fraction 1/a = 48.828%; thesis 48.8489%.
  auto p = make("rosenbrock_constrained");
  const int n = 1000000;
  const Estimate r = feasible_fraction(*p, n);
  EXPECT_NEAR(r.rho, 1.0 / 2.048, 5 * r.se);
  EXPECT_NEAR(r.rho, 0.488489, vs_thesis_tol(r.rho, n));
}

// ---------------------------------------------------------------------------------- g6_reduced

TEST(problem_mondrian_suite, g6_reduced) {
  auto p = make("g6_reduced");
  expect_reals(p->space(), {{13.5, 14.5}, {0.5, 1.5}});
  EXPECT_EQ(p->problem->constraint_names(),
            (std::vector<std::string>{"outside_disk", "inside_disk"}));
  // Both constraints active; c2 rounds to +-1.4e-14. Thesis: -6961.8138 at (14.0950, 0.8430).
  expect_optimum(*p, -6961.813875580135, Eigen::Vector2d(14.095, 0.8429607892154802), 1e-8, 1e-12);
  const Evaluation e = p->at({14.0, 1.0});
  EXPECT_NEAR(e.objective, -6795.0, 1e-9);
  EXPECT_NEAR(e.constraints[0], 3.0, 1e-12);
  EXPECT_NEAR(e.constraints[1], -2.81, 1e-12);
  expect_no_grid_point_below(*p, -6961.813875580135, 400);
}

TEST(problem_mondrian_suite, g6_reduced_feasible_fraction) {
  // Exact (integration over x2): 1.1160%; thesis 1.1237%.
  auto p = make("g6_reduced");
  const int n = 1000000;
  const Estimate r = feasible_fraction(*p, n);
  EXPECT_NEAR(r.rho, 0.0111600917, 5 * r.se);
  EXPECT_NEAR(r.rho, 0.011237, vs_thesis_tol(r.rho, n));
}

// ------------------------------------------------------------------------------------- gardner

TEST(problem_mondrian_suite, gardner) {
  auto p = make("gardner");
  expect_reals(p->space(), {{0.0, 2 * kPi}, {0.0, 2 * kPi}});
  // Thesis: 0.2532 at (4.7124, 1.2532). The constraint is active (0 up to rounding).
  expect_optimum(*p, 0.25323589750337505, Eigen::Vector2d(1.5 * kPi, std::asin(0.95)), 1e-12,
                 1e-15);
  EXPECT_NEAR(p->at({4.7124, 1.2532}).objective, 0.2532, 1e-4);
  const Evaluation e = p->at({kPi / 2, kPi});
  EXPECT_NEAR(e.objective, 1.0 + kPi, 1e-12);
  EXPECT_NEAR(e.constraints[0], 0.95, 1e-12);
  expect_no_grid_point_below(*p, 0.25323589750337505, 600);
}

TEST(problem_mondrian_suite, gardner_feasible_fraction) {
  // Exact (integration over x1): 1.6119%; thesis 1.6226%.
  auto p = make("gardner");
  const int n = 1000000;
  const Estimate r = feasible_fraction(*p, n);
  EXPECT_NEAR(r.rho, 0.0161186949, 5 * r.se);
  EXPECT_NEAR(r.rho, 0.016226, vs_thesis_tol(r.rho, n));
}

// ----------------------------------------------------------------------------- alpine_modified

TEST(problem_mondrian_suite, alpine_modified) {
  auto p = make("alpine_modified");
  expect_reals(p->space(), {{-10.0, 10.0}, {-10.0, 10.0}});
  expect_optimum(*p, -1.0, Eigen::Vector2d(0.0, 0.0), 0.0);
  EXPECT_NEAR(p->at({0.0, 0.0}).constraints[0], -8.0, 1e-15);
  // Inside the disk: 2 |sin 1 + 0.1| - 1.
  Evaluation e = p->at({1.0, 1.0});
  EXPECT_NEAR(e.objective, 0.882941969615793, 1e-14);
  EXPECT_NEAR(e.constraints[0], -1.5147186257614296, 1e-14);
  // In the infeasible ring: no -1, c = (3 - 2)(4 - 3).
  e = p->at({3.0, 0.0});
  EXPECT_NEAR(e.objective, 0.7233600241796017, 1e-14);
  EXPECT_NEAR(e.constraints[0], 1.0, 1e-15);
  expect_no_grid_point_below(*p, -1.0, 400);
}

TEST(problem_mondrian_suite, alpine_modified_feasible_fraction) {
  // Exact: 1 - 12 pi / 400 = 90.575% (the ring lies inside the box); thesis 90.6292%.
  auto p = make("alpine_modified");
  const int n = 1000000;
  const Estimate r = feasible_fraction(*p, n);
  EXPECT_NEAR(r.rho, 1.0 - 12.0 * kPi / 400.0, 5 * r.se);
  EXPECT_NEAR(r.rho, 0.906292, vs_thesis_tol(r.rho, n));
}

// ------------------------------------------------------------------------------------ townsend

TEST(problem_mondrian_suite, townsend) {
  auto p = make("townsend");
  expect_reals(p->space(), {{-2.25, 2.5}, {-2.5, 1.75}});
  expect_optimum(*p, -3.1997240723188867, Eigen::Vector2d(-2.2435689534809446, -1.3036851717891977),
                 1e-12);
  // The thesis's optimizer is feasible and within 3e-4 of f*, which it rounds to -3.2.
  const Evaluation t = p->at({-2.25, -1.2964});
  EXPECT_NEAR(t.objective, -3.1994675972499276, 1e-12);
  EXPECT_NEAR(t.constraints[0], -0.5705792528219107, 1e-12);
  EXPECT_NEAR(t.objective, -3.2, 1e-3);
  Evaluation e = p->at({0.0, 0.0});
  EXPECT_NEAR(e.objective, -1.0, 1e-15);
  EXPECT_NEAR(e.constraints[0], -1.0, 1e-15);
  e = p->at({1.0, 1.0});
  EXPECT_NEAR(e.objective, 0.3704035426544718, 1e-13);
  EXPECT_NEAR(e.constraints[0], 0.9899924966004454, 1e-13);
  expect_no_grid_point_below(*p, -3.1997240723188867, 800);
}

TEST(problem_mondrian_suite, townsend_feasible_fraction) {
  // Exact (c = -cos(1.5 (x1 + x2)), integration over x1): 50.085%; thesis 50.0139%.
  auto p = make("townsend");
  const int n = 1000000;
  const Estimate r = feasible_fraction(*p, n);
  EXPECT_NEAR(r.rho, 0.5008508120, 5 * r.se);
  EXPECT_NEAR(r.rho, 0.500139, vs_thesis_tol(r.rho, n));
}

// -------------------------------------------------------------------------- sphere_constrained

TEST(problem_mondrian_suite, sphere_constrained) {
  auto p = make("sphere_constrained");
  expect_reals(p->space(), {{-1.0, 0.75}, {-1.0, 1.0}});
  expect_optimum(*p, 0.0, Eigen::Vector2d(-0.5, 0.0), 0.0);
  // Barely feasible at the optimum: sin(-2.4 pi) + 0.95.
  EXPECT_NEAR(p->at({-0.5, 0.0}).constraints[0], -0.0010565162951535756, 1e-14);
  const Evaluation e = p->at({0.25, 0.25});
  EXPECT_NEAR(e.objective, 0.625, 1e-15);
  EXPECT_NEAR(e.constraints[0], -0.0989434837048464, 1e-14);
}

TEST(problem_mondrian_suite, sphere_constrained_feasible_fraction_does_not_reproduce) {
  // NOT REPRODUCED: Table 6.1 gives 17.4385%, but the printed constraint (kept, the intended
  // one being unknown) has 51.815% feasible (integration over x2; the independent numerical
  // check in docs/methods/mondrian-nelder-mead.md gives 51.7% too).
  auto p = make("sphere_constrained");
  const int n = 1000000;
  const Estimate r = feasible_fraction(*p, n);
  EXPECT_NEAR(r.rho, 0.5181492216, 5 * r.se);
  EXPECT_GT(std::abs(r.rho - 0.174385), 0.3);
}

// ---------------------------------------------------------------------------------- welded_beam

TEST(problem_mondrian_suite, welded_beam_best_known) {
  auto p = make("welded_beam");
  expect_reals(p->space(), {{0.125, 10.0}, {0.1, 10.0}, {0.1, 10.0}, {0.1, 10.0}});
  EXPECT_EQ(p->problem->constraint_names(),
            (std::vector<std::string>{"shear_stress", "bending_stress", "weld_thickness",
                                      "buckling_load", "deflection"}));
  EXPECT_TRUE(p->problem->info().optimum_is_best_known);
  // The refined vertex (c1..c4 active, strictly feasible after rounding): f = 2.3811341,
  // which is the thesis's best known 2.3811.
  Eigen::VectorXd x(4);
  x << 0.244368953448, 6.218606919, 8.291471769715, 0.244368953451;
  expect_optimum(*p, 2.381134117005522, x, 1e-12);
  EXPECT_NEAR(p->at(x).objective, 2.3811, 5e-5);
  // The thesis's point: 2.38161 (not its stated 2.3811), tau = 13599.03, feasible only with
  // tau_max = 13600.
  const Evaluation t = p->at({0.2444, 6.2158, 8.2939, 0.2444});
  EXPECT_NEAR(t.objective, 2.3816070807210132, 1e-12);
  const double expected_c[5] = {-0.9654096752783516, -21.372531053992134, 0.0, -3.5075133841228308,
                                -0.23425667328756097};
  for (int j = 0; j < 5; ++j) EXPECT_NEAR(t.constraints[j], expected_c[j], 1e-8) << j;
  // Unit point.
  const Evaluation u = p->at(Eigen::VectorXd::Ones(4));
  EXPECT_NEAR(u.objective, 1.8263600000000002, 1e-13);
  const double unit_c[5] = {51905.76726390439, 474000.0, 0.0, -56917.943967238796, 1.9452};
  for (int j = 0; j < 5; ++j) EXPECT_NEAR(u.constraints[j], unit_c[j], 1e-8) << j;
}

TEST(problem_mondrian_suite, welded_beam_printed_tau_max) {
  auto p = make("welded_beam", {{"tau_max", 13000.0}});
  // No published optimum for 13000; arbo's own vertex.
  Eigen::VectorXd x(4);
  x << 0.244368953448, 6.611783986, 8.291471769715, 0.244368953451;
  expect_optimum(*p, 2.445398320485723, x, 1e-12);
  EXPECT_TRUE(p->problem->info().optimum_is_best_known);
  // The thesis's best point violates the printed limit by 599 psi.
  EXPECT_NEAR(p->at({0.2444, 6.2158, 8.2939, 0.2444}).constraints[0], 599.0345903247216, 1e-8);
  // Any other limit: no known optimum.
  auto q = make("welded_beam", {{"tau_max", 14000.0}});
  EXPECT_FALSE(q->problem->info().optimum.has_value());
  EXPECT_TRUE(q->problem->info().optimizers.empty());
}

TEST(problem_mondrian_suite, welded_beam_feasible_fraction) {
  // Thesis 37.4383%. Independent estimates (4e6 samples each, standard error 0.024%): 37.592%
  // with the default tau_max = 13600 and 37.403% with the printed 13000. Both agree with the
  // thesis within our 5-sigma rule (2.9 and 0.7 combined standard errors), so the thesis's
  // figure cannot tell which limit it used.
  const int n = 1000000;
  auto literature = make("welded_beam");
  const Estimate r13600 = feasible_fraction(*literature, n);
  EXPECT_NEAR(r13600.rho, 0.37592175, 5 * std::hypot(r13600.se, 0.00024218));
  EXPECT_NEAR(r13600.rho, 0.374383, vs_thesis_tol(r13600.rho, n));
  auto printed = make("welded_beam", {{"tau_max", 13000.0}});
  const Estimate r13000 = feasible_fraction(*printed, n);
  EXPECT_NEAR(r13000.rho, 0.374034, 5 * std::hypot(r13000.se, 0.00024194));
  EXPECT_NEAR(r13000.rho, 0.374383, vs_thesis_tol(r13000.rho, n));
  // Same samples: a lower limit can only remove feasible points.
  EXPECT_LT(r13000.rho, r13600.rho);
}

// ------------------------------------------------------------------------------------- ackley20

TEST(problem_mondrian_suite, ackley20_constrained) {
  auto p = make("ackley20_constrained");
  std::vector<std::pair<double, double>> box(20, {-5.0, 10.0});
  expect_reals(p->space(), box);
  EXPECT_EQ(p->problem->constraint_names(), (std::vector<std::string>{"sum", "ball"}));
  // At the origin sum(x) = 0 is active and the ball constraint is -5.
  expect_optimum(*p, 0.0, Eigen::VectorXd::Zero(20), 1e-14);
  EXPECT_NEAR(p->at(Eigen::VectorXd::Zero(20)).constraints[1], -5.0, 1e-15);
  // All ones: 20 - 20 exp(-0.2); infeasible (sum 20), inside the ball.
  Evaluation e = p->at(constant(20, 1.0));
  EXPECT_NEAR(e.objective, 3.6253849384403622, 1e-13);
  EXPECT_NEAR(e.constraints[0], 20.0, 1e-13);
  EXPECT_NEAR(e.constraints[1], -0.5278640450004204, 1e-13);
  // Half +-0.5: sum 0 (boundary), norm sqrt 5.
  Eigen::VectorXd h(20);
  h << constant(10, 0.5), constant(10, -0.5);
  e = p->at(h);
  EXPECT_NEAR(e.objective, 4.253654026568412, 1e-13);
  EXPECT_NEAR(e.constraints[0], 0.0, 1e-15);
  EXPECT_NEAR(e.constraints[1], -2.76393202250021, 1e-13);
}

TEST(problem_mondrian_suite, ackley20_constrained_feasible_fraction_does_not_reproduce) {
  // NOT REPRODUCED: the feasible set is half a ball of radius 5 (inside the box), a fraction
  // (pi^10 / 10!) 5^20 / 2 / 15^20 = 3.7e-12 of the box; Table 6.1 says 0.0035%. A direct
  // estimate of 3.7e-12 is out of reach, so the check is weaker: at the thesis's 3.5e-5,
  // 10^6 uniform points would hold 35 feasible ones on average (P(none) = e^-35 = 6e-16); we
  // find none.
  auto p = make("ackley20_constrained");
  const Estimate r = feasible_fraction(*p, 1000000);
  EXPECT_EQ(r.rho, 0.0);
}

TEST(problem_mondrian_suite, ackley20_unconstrained) {
  auto p = make("ackley20");
  EXPECT_TRUE(p->problem->constraint_names().empty());
  EXPECT_EQ(p->space().size(), 20u);
  expect_optimum(*p, 0.0, Eigen::VectorXd::Zero(20), 1e-14);
  const Evaluation e = p->at(constant(20, 1.0));
  EXPECT_NEAR(e.objective, 3.6253849384403622, 1e-13);
  EXPECT_EQ(e.constraints.size(), 0);
}

// ---------------------------------------------------------------------------------- keane_bump30

TEST(problem_mondrian_suite, keane_bump30_best_known) {
  auto p = make("keane_bump30");
  std::vector<std::pair<double, double>> box(30, {0.0, 10.0});
  expect_reals(p->space(), box);
  EXPECT_EQ(p->problem->constraint_names(), (std::vector<std::string>{"product", "sum"}));
  EXPECT_TRUE(p->problem->info().optimum_is_best_known);
  Eigen::VectorXd x(30);
  x << 6.264840642712, 3.150345526562, 3.128091131121, 3.106090419224, 3.084237508944,
      3.062431652296, 3.040573188711, 3.018559515454, 2.996280751132, 2.973614453207,
      2.950418683912, 2.926522166139, 0.476668105565, 0.473092803123, 0.469645076613,
      0.466315465093, 0.463095548996, 0.459977800292, 0.456955505158, 0.454022626865,
      0.451173706456, 0.448403808114, 0.445708423622, 0.443083459656, 0.440525159389,
      0.438030052803, 0.435594991792, 0.433217026644, 0.430893448267, 0.428621761771;
  expect_optimum(*p, -0.8218843966678693, x, 1e-12);
  const Evaluation e = p->at(x);
  EXPECT_NEAR(e.constraints[0], -2.02171612784241e-13, 1e-14);
  EXPECT_NEAR(e.constraints[1], -177.182969590367, 1e-9);
  // Lower than the thesis's best known (Mishra 2007).
  EXPECT_LT(e.objective, -0.818056222);
}

TEST(problem_mondrian_suite, keane_bump30_hand_computed_points) {
  auto p = make("keane_bump30");
  // All ones: -|30 cos^4(1) - 2 cos^60(1)| / sqrt(465).
  Evaluation e = p->at(constant(30, 1.0));
  EXPECT_NEAR(e.objective, -0.11856105693851232, 1e-15);
  EXPECT_NEAR(e.constraints[0], -0.25, 1e-15);
  EXPECT_NEAR(e.constraints[1], -195.0, 1e-12);
  // sum = 228 > 225 = 7.5 d: infeasible through the corrected c2.
  e = p->at(constant(30, 7.6));
  EXPECT_NEAR(e.objective, -0.0007295810066453556, 1e-16);
  EXPECT_NEAR(e.constraints[1], 3.0, 1e-10);
  EXPECT_LT(e.constraints[0], -1e26);
  // The origin is finite (guarded denominator) and infeasible.
  e = p->at(Eigen::VectorXd::Zero(30));
  EXPECT_TRUE(std::isfinite(e.objective));
  EXPECT_NEAR(e.constraints[0], 0.75, 1e-15);
}

TEST(problem_mondrian_suite, keane_bump30_feasible_fraction) {
  // Exact infeasible mass: P(sum > 225) = 4.23e-7 (Irwin-Hall) plus P(prod < 0.75) < 1e-8, so
  // rho = 99.99996%; thesis 99.9999%. With 10^6 points we expect 0.42 infeasible ones;
  // allowing up to 5 (P(more) = 5e-6 for a Poisson(0.42)) checks rho >= 99.9995%.
  auto p = make("keane_bump30");
  const int n = 1000000;
  const Estimate r = feasible_fraction(*p, n);
  EXPECT_GE(r.rho, 1.0 - 5.0 / n);
}

// --------------------------------------------------------------------------------- mixed_branin

TEST(problem_mondrian_suite, mixed_branin) {
  auto p = make("mixed_branin");
  const Space& s = p->space();
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[2].type, ParamType::Categorical);
  EXPECT_EQ(s[2].choices, (std::vector<std::string>{"A", "B"}));
  EXPECT_EQ(s[3].type, ParamType::Categorical);
  EXPECT_EQ(s[3].choices, (std::vector<std::string>{"A", "B"}));
  EXPECT_EQ(s.encode({0.3, 0.7, std::string("B"), std::string("A")})[2], 1.0);
  // Thesis: -0.814299 at (1.0, 0.4, A, A), where the corrected constraint 0.4 - x1 x2 is 0.
  expect_optimum(*p, -0.8142990112882579, Eigen::Vector4d(1.0, 0.4, 0.0, 0.0), 1e-13);
  // The four category pairs at (0.5, 0.5).
  const double f[4] = {-0.5877287369438277, -0.23509149477753108, 3.4407965527078708,
                       1.6938643684719137};
  const double c[4] = {0.15, 0.025, -0.175, 0.0};
  for (int k = 0; k < 4; ++k) {
    const Evaluation e = p->at({0.5, 0.5, static_cast<double>(k / 2), static_cast<double>(k % 2)});
    EXPECT_NEAR(e.objective, f[k], 1e-13) << k;
    EXPECT_NEAR(e.constraints[0], c[k], 1e-15) << k;
  }
  expect_no_grid_point_below(*p, -0.8142990112882579, 400,
                             {{0.0, 0.0}, {0.0, 1.0}, {1.0, 0.0}, {1.0, 1.0}});
}

TEST(problem_mondrian_suite, mixed_branin_feasible_fraction_does_not_reproduce) {
  // NOT REPRODUCED: Table 6.1 gives 3.8110%. With the corrected sign, P(x1 x2 >= a) =
  // 1 - a + a ln a averaged over the four pairs gives 40.395% (59.605% with the printed sign).
  auto p = make("mixed_branin");
  const int n = 1000000;
  const Estimate r = feasible_fraction(*p, n);
  EXPECT_NEAR(r.rho, 0.4039470392, 5 * r.se);
  EXPECT_GT(std::abs(r.rho - 0.03811), 0.3);
}

// --------------------------------------------------------------------------------------- func3c

TEST(problem_mondrian_suite, func3c) {
  auto p = make("func3c");
  const Space& s = p->space();
  ASSERT_EQ(s.size(), 5u);
  EXPECT_EQ(s[2].choices.size(), 3u);
  EXPECT_EQ(s[3].choices.size(), 5u);
  EXPECT_EQ(s[4].choices.size(), 2u);
  EXPECT_EQ(s.encode({0.0, 0.0, std::string("2"), std::string("4"), std::string("1")})[3], 4.0);
  // The thesis's optimizer; its value -0.23144967 (the refined minimum is 2.5e-13 lower).
  Eigen::VectorXd x(5);
  x << -0.116834, 0.591213, 0.0, 0.0, 0.0;
  expect_optimum(*p, -0.2314496671363225, x, 1e-12);
  EXPECT_NEAR(p->at(x).objective, -0.23144967, 1e-8);
  EXPECT_NEAR(p->at(x).constraints[0], -0.6368170050749999, 1e-14);
  // Beale twice (z1 = 2, z2 = 4) and Rosenbrock/500 (z3 = 1); the codes enter the constraint.
  Evaluation e = p->at({0.5, -0.5, 2.0, 4.0, 1.0});
  EXPECT_NEAR(e.objective, 0.44628124999999996, 1e-14);
  EXPECT_NEAR(e.constraints[0], 20.5, 1e-14);
  e = p->at({0.5, -0.5, 1.0, 0.0, 0.0});
  EXPECT_NEAR(e.objective, 0.11270833333333335, 1e-14);
  EXPECT_NEAR(e.constraints[0], 0.5, 1e-15);
  std::vector<std::vector<double>> cats;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 5; ++b)
      for (int c = 0; c < 2; ++c) cats.push_back({double(a), double(b), double(c)});
  expect_no_grid_point_below(*p, -0.2314496671365693, 200, cats);
}

TEST(problem_mondrian_suite, func3c_feasible_fraction) {
  // Exact: only z = (0, 0, 0) (1 of 30 combinations) has a disk of positive area, pi/4 of
  // [-1, 1]^2: pi / 120 = 2.6180%; thesis 2.6029%.
  auto p = make("func3c");
  const int n = 1000000;
  const Estimate r = feasible_fraction(*p, n);
  EXPECT_NEAR(r.rho, kPi / 120.0, 5 * r.se);
  EXPECT_NEAR(r.rho, 0.026029, vs_thesis_tol(r.rho, n));
}

// ---------------------------------------------------------------------------------- c-TPE toys

TEST(problem_mondrian_suite, ctpe_vanished_constraints) {
  auto tight = make("ctpe_vanished_constraints");
  const Space& s = tight->space();
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].name, "x");
  EXPECT_EQ(s[1].name, "y");
  EXPECT_EQ(s.lower()[0], -5.0);
  EXPECT_EQ(s.upper()[1], 5.0);
  // Nearest point of the disk of radius 2 around (1, 1) to (-2, -2): (3 sqrt 2 - 2)^2.
  const double t4 = -0.4142135623730949;
  expect_optimum(*tight, 5.029437251522862, Eigen::Vector2d(t4, t4), 1e-12, 1e-12);
  const Evaluation e = tight->at({0.0, 0.0});
  EXPECT_NEAR(e.objective, 8.0, 1e-15);
  EXPECT_NEAR(e.constraints[0], -2.0, 1e-15);
  expect_no_grid_point_below(*tight, 5.029437251522862, 400);

  auto loose = make("ctpe_vanished_constraints", {{"threshold", 16.0}});
  const double t16 = -1.8284271247461898;
  expect_optimum(*loose, 0.058874503045719076, Eigen::Vector2d(t16, t16), 1e-12, 1e-12);
  EXPECT_NEAR(loose->at({0.0, 0.0}).constraints[0], -14.0, 1e-15);
  // A disk that contains (-2, -2): the unconstrained minimum.
  auto wide = make("ctpe_vanished_constraints", {{"threshold", 20.0}});
  expect_optimum(*wide, 0.0, Eigen::Vector2d(-2.0, -2.0), 0.0);
}

TEST(problem_mondrian_suite, ctpe_vanished_constraints_feasible_fraction) {
  // Disks of area 4 pi and 16 pi inside the 100-unit box: 12.57% and 50.27%. The paper reports
  // gamma_hat_1 = 0.12 and 0.50 from 200 random points (standard error 0.023 and 0.035);
  // we accept the paper's values within 2 of those errors.
  const int n = 1000000;
  auto tight = make("ctpe_vanished_constraints");
  const Estimate r4 = feasible_fraction(*tight, n);
  EXPECT_NEAR(r4.rho, 4.0 * kPi / 100.0, 5 * r4.se);
  EXPECT_NEAR(r4.rho, 0.12, 2 * 0.023);
  auto loose = make("ctpe_vanished_constraints", {{"threshold", 16.0}});
  const Estimate r16 = feasible_fraction(*loose, n);
  EXPECT_NEAR(r16.rho, 16.0 * kPi / 100.0, 5 * r16.se);
  EXPECT_NEAR(r16.rho, 0.50, 2 * 0.035);
}

TEST(problem_mondrian_suite, ctpe_small_overlap) {
  auto small = make("ctpe_small_overlap");
  ASSERT_EQ(small->space().size(), 2u);
  // Nearest point of the disk of radius sqrt 3 around (2.3, 2.3) to the origin.
  const double t = 1.0752551286084109;
  expect_optimum(*small, 2.3123471831973803, Eigen::Vector2d(t, t), 1e-12, 1e-12);
  const Evaluation e = small->at({1.0, 2.0});
  EXPECT_NEAR(e.objective, 5.0, 1e-15);
  EXPECT_NEAR(e.constraints[0], -1.2200000000000006, 1e-14);
  expect_no_grid_point_below(*small, 2.3123471831973803, 400);

  auto large = make("ctpe_small_overlap", {{"center", 0.5}});
  expect_optimum(*large, 0.0, Eigen::Vector2d(0.0, 0.0), 0.0);
  EXPECT_NEAR(large->at({0.0, 0.0}).constraints[0], -2.5, 1e-15);
}

TEST(problem_mondrian_suite, ctpe_small_overlap_feasible_fraction) {
  // A disk of area 3 pi inside the box for both centers: 9.42%. The paper gives no fraction.
  const int n = 1000000;
  for (double z : {2.3, 0.5}) {
    auto p = make("ctpe_small_overlap", {{"center", z}});
    const Estimate r = feasible_fraction(*p, n);
    EXPECT_NEAR(r.rho, 3.0 * kPi / 100.0, 5 * r.se) << z;
  }
}

TEST(problem_mondrian_suite, ctpe_two_parts) {
  auto p = make("ctpe_two_parts");
  ASSERT_EQ(p->space().size(), 2u);
  EXPECT_EQ(p->problem->constraint_names(), (std::vector<std::string>{"wells", "notch"}));
  // On the boundary of `wells` (within 1e-12), inside `notch`.
  expect_optimum(*p, 0.5989532814685592, Eigen::Vector2d(0.8134099338296855, 0.6208942054222242),
                 1e-12, 1e-12);
  const Evaluation e = p->at({1.0, -0.5});
  EXPECT_NEAR(e.objective, 0.49 + 2.89, 1e-14);
  EXPECT_NEAR(e.constraints[0], 0.25 - 0.5, 1e-15);
  EXPECT_NEAR(e.constraints[1], 0.15 - 0.0625, 1e-15);  // cut out by `notch`
  expect_no_grid_point_below(*p, 0.5989532814685592, 400);
  // The two parts: x = 0 is infeasible for every y ((0 - 1)^2 + y^2 > 0.5), and the left part
  // alone has the local optimum 1.504223 at (-0.704743, 0.496640), 0.905 above f*.
  Evaluation a = p->at({0.0, 0.0});
  EXPECT_GT(a.constraints[0], 0.0);
  const Eigen::Vector2d left(-0.704743145813094, 0.49664047896301006);
  a = p->at(left);
  EXPECT_NEAR(a.objective, 1.504223404891776, 1e-12);
  EXPECT_LE(a.constraints[0], 1e-12);
  double best_left = std::numeric_limits<double>::infinity();
  long left_feasible = 0, right_feasible = 0;
  const int g = 800;
  for (int i = 0; i <= g; ++i) {
    for (int j = 0; j <= g; ++j) {
      const double x = -2.0 + 4.0 * i / g, y = -2.0 + 4.0 * j / g;
      a = p->at({x, y});
      if (!(a.constraints.array() <= 0.0).all()) continue;
      if (x < 0.0) {
        ++left_feasible;
        best_left = std::min(best_left, a.objective);
      } else {
        ++right_feasible;
      }
    }
  }
  EXPECT_GE(best_left, 1.504223404891776 - 1e-9);
  EXPECT_LT(best_left, 1.504223404891776 + 1e-2);  // grid spacing 0.005
  // The left part is the larger one (5.2% against 3.4% of the box).
  const double cells = (g + 1.0) * (g + 1.0);
  EXPECT_NEAR(left_feasible / cells, 0.052, 0.002);
  EXPECT_NEAR(right_feasible / cells, 0.034, 0.002);
  const Estimate r = feasible_fraction(*p, 1000000);
  EXPECT_NEAR(r.rho, 0.0862, 5 * r.se + 0.001);
}

// The library passes the same conformance kit that third-party plugins use.
TEST(stock_plugin_conformance, problem_mondrian_suite) {
  arbo::sdk::testing::expect_plugin_conforms(ARBO_PLUGIN_DIR "/libarbo_problem_mondrian_suite.so");
}

}  // namespace
