// SPDX-License-Identifier: MIT
#include "ctpe_toys.hpp"

#include <cmath>
#include <numbers>

namespace arbo::plugins::mondrian {

namespace {

constexpr double kSmallOverlapRadius2 = 3.0;

// The paper does not state the domain; [-5, 5]^2 is the authors' toy script's and reproduces
// the feasible fractions the paper reports for Fig. 2 (App. B.2.1; docs/methods/c-tpe.md).
sdk::Space toy_space() {
  return sdk::Space({sdk::Parameter::real("x", -5.0, 5.0), sdk::Parameter::real("y", -5.0, 5.0)});
}

// Minimizes ||p - a||^2 over the disk ||p - c|| <= r, with a and c on the diagonal (a, a) and
// (c, c): the answer is a if it is feasible, else the disk point nearest to a.
void diagonal_projection(double a, double c, double r, sdk::ProblemInfo& info) {
  const double dist = std::abs(a - c) * std::numbers::sqrt2;
  if (dist <= r) {
    info.optimum = 0.0;
    info.optimizers = {vec({a, a})};
    return;
  }
  const double t = c + (a - c) * r / dist;
  info.optimum = (dist - r) * (dist - r);
  info.optimizers = {vec({t, t})};
}

std::string ctpe_source(const char* figure) {
  return std::string(
             "S. Watanabe and F. Hutter, c-TPE: Generalizing Tree-structured Parzen Estimator with "
             "Inequality Constraints for Continuous and Categorical Hyperparameter Optimization, "
             "App. B.2, ") +
         figure + "; domain [-5, 5]^2 as in the authors' code (docs/methods/c-tpe.md)";
}

}  // namespace

// -------------------------------------------------------------------- ctpe_vanished_constraints

const sdk::ParamSpecList& CtpeVanishedConstraints::params() {
  static const sdk::ParamSpecList specs = {sdk::ParamSpec::real(
      "threshold",
      "c* of the constraint (x - 1)^2 + (y - 1)^2 <= c*: 4 is the paper's tight case (top of "
      "Fig. 2), 16 its loose case (bottom).",
      4.0, 0.01, 100.0)};
  return specs;
}

CtpeVanishedConstraints::CtpeVanishedConstraints(const sdk::CreateArgs& args)
    : BenchmarkProblem("ctpe_vanished_constraints", toy_space(), {"disk"}),
      threshold_(args.params.get_real("threshold")) {}

sdk::ProblemInfo CtpeVanishedConstraints::info() const {
  sdk::ProblemInfo i;
  i.source = ctpe_source("Fig. 2 (vanished constraints)");
  diagonal_projection(-2.0, 1.0, std::sqrt(threshold_), i);
  return i;
}

void CtpeVanishedConstraints::evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) {
  prepare(x, out);
  const double a = x[0] + 2.0;
  const double b = x[1] + 2.0;
  out.objective = a * a + b * b;
  const double u = x[0] - 1.0;
  const double v = x[1] - 1.0;
  out.constraints[0] = u * u + v * v - threshold_;
}

// --------------------------------------------------------------------------- ctpe_small_overlap

const sdk::ParamSpecList& CtpeSmallOverlap::params() {
  static const sdk::ParamSpecList specs = {sdk::ParamSpec::real(
      "center",
      "z of the constraint (x - z)^2 + (y - z)^2 <= 3: 2.3 is the paper's small-overlap case "
      "(bottom of Fig. 3), 0.5 its large-overlap case (top).",
      2.3, -3.0, 3.0)};
  return specs;
}

CtpeSmallOverlap::CtpeSmallOverlap(const sdk::CreateArgs& args)
    : BenchmarkProblem("ctpe_small_overlap", toy_space(), {"disk"}),
      center_(args.params.get_real("center")) {}

sdk::ProblemInfo CtpeSmallOverlap::info() const {
  sdk::ProblemInfo i;
  i.source = ctpe_source("Fig. 3 (small overlap)");
  diagonal_projection(0.0, center_, std::sqrt(kSmallOverlapRadius2), i);
  return i;
}

void CtpeSmallOverlap::evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) {
  prepare(x, out);
  out.objective = x[0] * x[0] + x[1] * x[1];
  const double u = x[0] - center_;
  const double v = x[1] - center_;
  out.constraints[0] = u * u + v * v - kSmallOverlapRadius2;
}

// ------------------------------------------------------------------------------ ctpe_two_parts

CtpeTwoParts::CtpeTwoParts(const sdk::CreateArgs& args)
    : BenchmarkProblem(
          "ctpe_two_parts",
          sdk::Space({sdk::Parameter::real("x", -2.0, 2.0), sdk::Parameter::real("y", -2.0, 2.0)}),
          {"wells", "notch"}) {
  (void)args;
}

sdk::ProblemInfo CtpeTwoParts::info() const {
  sdk::ProblemInfo i;
  i.source =
      "arbo (issue 24): two disjoint feasible parts, the global optimum on the smaller part's "
      "boundary; for the remark of S. Watanabe and F. Hutter, c-TPE (Sec. 6), that the method "
      "is local and may be weak on multimodal problems";
  // SLSQP from the best point of a 2001^2 grid, ftol 1e-15 (plugins/problems/mondrian_suite/
  // README.md); `wells` is active there (3.8e-13), `notch` is not (-1.65).
  i.optimum = 0.5989532814685592;
  i.optimizers = {vec({0.8134099338296855, 0.6208942054222242})};
  return i;
}

void CtpeTwoParts::evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) {
  prepare(x, out);
  const double a = x[0] - 0.3;
  const double b = x[1] - 1.2;
  out.objective = a * a + b * b;
  const double w = x[0] * x[0] - 1.0;
  out.constraints[0] = w * w + x[1] * x[1] - 0.5;
  const double u = x[0] - 1.5;
  const double v = x[1] + 0.5;
  out.constraints[1] = 0.15 - u * u * u * u - v * v * v * v;
}

}  // namespace arbo::plugins::mondrian
