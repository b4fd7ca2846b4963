// SPDX-License-Identifier: MIT
#include "synthetic_2d.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace arbo::plugins::mondrian {

namespace {
constexpr double kPi = std::numbers::pi;
}  // namespace

// ---------------------------------------------------------------------- rosenbrock_constrained

RosenbrockConstrained::RosenbrockConstrained(const sdk::CreateArgs& /*args*/)
    : BenchmarkProblem("rosenbrock_constrained", real_cube(2, -2.048, 2.048, 1), {"max_band"}) {}

sdk::ProblemInfo RosenbrockConstrained::info() const {
  sdk::ProblemInfo i;
  i.source = thesis_source("App. A.1.2 (own constraint)");
  i.optimum = 0.0;
  // c(1, 1) = 0: the minimizer lies on the boundary and counts as feasible (c <= 0).
  i.optimizers = {vec({1.0, 1.0})};
  return i;
}

void RosenbrockConstrained::evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) {
  prepare(x, out);
  const double a = 1.0 - x[0];
  const double b = x[1] - x[0] * x[0];
  out.objective = a * a + 100.0 * b * b;
  out.constraints[0] = std::abs(std::max(x[0], x[1])) - 1.0;
}

// ---------------------------------------------------------------------------------- g6_reduced

G6Reduced::G6Reduced(const sdk::CreateArgs& /*args*/)
    : BenchmarkProblem("g6_reduced", real_box({{13.5, 14.5}, {0.5, 1.5}}, 1),
                       {"outside_disk", "inside_disk"}) {}

sdk::ProblemInfo G6Reduced::info() const {
  sdk::ProblemInfo i;
  i.source = thesis_source("App. A.1.3 (G6 of Floudas & Pardalos on a reduced box)");
  // Both circles active: subtracting them gives 2 x1 - 11 = 17.19, then x2 from the first.
  const double x1 = 14.095;
  const double x2 = 5.0 - std::sqrt(100.0 - (x1 - 5.0) * (x1 - 5.0));
  i.optimum = std::pow(x1 - 10.0, 3) + std::pow(x2 - 20.0, 3);
  i.optimizers = {vec({x1, x2})};
  return i;
}

void G6Reduced::evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) {
  prepare(x, out);
  const double a = x[0] - 10.0;
  const double b = x[1] - 20.0;
  out.objective = a * a * a + b * b * b;
  const double u = x[0] - 5.0;
  const double v = x[1] - 5.0;
  const double w = x[0] - 6.0;
  out.constraints[0] = -u * u - v * v + 100.0;
  out.constraints[1] = w * w + v * v - 82.81;
}

// ------------------------------------------------------------------------------------- gardner

Gardner::Gardner(const sdk::CreateArgs& /*args*/)
    : BenchmarkProblem("gardner", real_cube(2, 0.0, 2.0 * kPi, 1), {"sin_product"}) {}

sdk::ProblemInfo Gardner::info() const {
  sdk::ProblemInfo i;
  i.source = thesis_source("App. A.1.4 (Gardner et al., ICML 2014, problem 2)");
  // sin x1 = -1 is the lowest the first term goes; the constraint then asks sin x2 >= 0.95.
  i.optimum = std::asin(0.95) - 1.0;
  i.optimizers = {vec({1.5 * kPi, std::asin(0.95)})};
  return i;
}

void Gardner::evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) {
  prepare(x, out);
  const double s1 = std::sin(x[0]);
  out.objective = s1 + x[1];
  out.constraints[0] = s1 * std::sin(x[1]) + 0.95;
}

// ----------------------------------------------------------------------------- alpine_modified

AlpineModified::AlpineModified(const sdk::CreateArgs& /*args*/)
    : BenchmarkProblem("alpine_modified", real_cube(2, -10.0, 10.0, 1), {"ring"}) {}

sdk::ProblemInfo AlpineModified::info() const {
  sdk::ProblemInfo i;
  i.source = thesis_source("App. A.1.5 (Alpine-1 of Rahnamayan et al., modified by the thesis)");
  i.optimum = -1.0;
  i.optimizers = {vec({0.0, 0.0})};
  return i;
}

void AlpineModified::evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) {
  prepare(x, out);
  const double s =
      std::abs(x[0] * std::sin(x[0]) + 0.1 * x[0]) + std::abs(x[1] * std::sin(x[1]) + 0.1 * x[1]);
  const double r = std::hypot(x[0], x[1]);
  out.objective = r <= 2.0 ? s - 1.0 : s;
  out.constraints[0] = (r - 2.0) * (4.0 - r);
}

// ------------------------------------------------------------------------------------ townsend

Townsend::Townsend(const sdk::CreateArgs& /*args*/)
    : BenchmarkProblem("townsend", real_box({{-2.25, 2.5}, {-2.5, 1.75}}, 1), {"cos_band"}) {}

sdk::ProblemInfo Townsend::info() const {
  sdk::ProblemInfo i;
  i.source = thesis_source(
      "App. A.1.6 (constrained Townsend function of van der Herten / GPflowOpt)",
      "Optimizer found by local refinement of a grid search, not the thesis's (-2.25, -1.2964), "
      "where f = -3.199468");
  // An interior stationary point (gradient ~ 1e-8), feasible with c = -0.5716; the thesis
  // rounds its value to -3.2.
  i.optimum = -3.1997240723188867;
  i.optimizers = {vec({-2.2435689534809446, -1.3036851717891977})};
  return i;
}

void Townsend::evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) {
  prepare(x, out);
  const double x1 = x[0];
  const double x2 = x[1];
  const double c = std::cos((x1 - 0.1) * x2);
  // Corrected (docs/methods/mondrian-nelder-mead.md): sin(3 x1 + x2) as in GPflowOpt; the thesis
  // prints sin(3 x1 x2), with which its optimum is infeasible and f* != -3.2.
  out.objective = -c * c - x1 * std::sin(3.0 * x1 + x2);
  // Corrected (docs/methods/mondrian-nelder-mead.md): the GPflowOpt constraint
  // -[-cos(1.5 x1 + pi) cos(1.5 x2) + sin(1.5 x1 + pi) sin(1.5 x2)] = -cos(1.5 (x1 + x2)); the
  // thesis prints -cos(1.5 pi x1) cos(1.5 pi x2) - sin(1.5 pi x1) sin(1.5 pi x2).
  out.constraints[0] = -(-std::cos(1.5 * x1 + kPi) * std::cos(1.5 * x2) +
                         std::sin(1.5 * x1 + kPi) * std::sin(1.5 * x2));
}

// -------------------------------------------------------------------------- sphere_constrained

SphereConstrained::SphereConstrained(const sdk::CreateArgs& /*args*/)
    : BenchmarkProblem("sphere_constrained", real_box({{-1.0, 0.75}, {-1.0, 1.0}}, 1), {"waves"}) {}

sdk::ProblemInfo SphereConstrained::info() const {
  sdk::ProblemInfo i;
  i.source = thesis_source("App. A.1.7 (own problem)",
                           "The printed constraint is kept although it gives a feasible fraction "
                           "of 51.8%, not the 17.44% of Table 6.1");
  i.optimum = 0.0;
  i.optimizers = {vec({-0.5, 0.0})};
  return i;
}

void SphereConstrained::evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) {
  prepare(x, out);
  const double a = x[0] + 0.5;
  out.objective = a * a + x[1] * x[1];
  const double s = std::sin(2.0 * kPi * x[1]);
  out.constraints[0] = std::sin(4.0 * kPi * (x[0] - 0.1)) - 2.0 * s * s + 0.95;
}

}  // namespace arbo::plugins::mondrian
