// SPDX-License-Identifier: MIT
#include "branin.hpp"

#include <cmath>
#include <numbers>

namespace arbo::plugins {

double branin_value(double x1, double x2) noexcept {
  constexpr double pi = std::numbers::pi;
  constexpr double b = 5.1 / (4.0 * pi * pi);
  constexpr double c = 5.0 / pi;
  constexpr double t = 1.0 / (8.0 * pi);
  const double bracket = x2 - b * x1 * x1 + c * x1 - 6.0;
  return bracket * bracket + 10.0 * (1.0 - t) * std::cos(x1) + 10.0;
}

sdk::Space branin_space() {
  return sdk::Space(
      {sdk::Parameter::real("x1", -5.0, 10.0), sdk::Parameter::real("x2", 0.0, 15.0)});
}

std::vector<Eigen::VectorXd> branin_minimizers() {
  constexpr double pi = std::numbers::pi;
  return {Eigen::Vector2d(pi, 2.275), Eigen::Vector2d(-pi, 12.275),
          Eigen::Vector2d(3.0 * pi, 2.475)};
}

double branin_optimum() noexcept { return 10.0 / (8.0 * std::numbers::pi); }

Branin::Branin(const sdk::CreateArgs&) : BenchmarkProblem("branin", branin_space()) {}

sdk::ProblemInfo Branin::info() const {
  // At each minimizer the squared bracket vanishes and cos x1 = -1, so f* = 10/(8 pi) exactly.
  return {.source =
              "Branin & Hoo (1972), as defined in the Mondrian/Nelder-Mead thesis (Braun 2022), "
              "Table 6.1 and App. A",
          .optimum = branin_optimum(),
          .optimizers = branin_minimizers()};
}

void Branin::evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) {
  prepare(x, out);
  out.objective = branin_value(x[0], x[1]);
}

}  // namespace arbo::plugins
