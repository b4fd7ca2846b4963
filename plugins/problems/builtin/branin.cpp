// SPDX-License-Identifier: MIT
#include "branin.hpp"

#include <cmath>
#include <numbers>
#include <random>

#include <arbo/sdk/error.hpp>

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

const sdk::ParamSpecList& Branin::params() {
  static const sdk::ParamSpecList specs;
  return specs;
}

Branin::Branin(const sdk::CreateArgs& args) : space_(branin_space()) {}

sdk::ProblemInfo Branin::info() const {
  constexpr double pi = std::numbers::pi;
  sdk::ProblemInfo i;
  i.source =
      "Branin & Hoo (1972), as defined in the Mondrian/Nelder-Mead thesis (Braun 2022), "
      "Table 6.1 and App. A";
  // At each minimizer the squared bracket vanishes and cos x1 = -1, so f* = 10/(8 pi) exactly.
  i.optimum = 10.0 / (8.0 * pi);
  i.optimizers = {Eigen::Vector2d(pi, 2.275), Eigen::Vector2d(-pi, 12.275),
                  Eigen::Vector2d(3.0 * pi, 2.475)};
  return i;
}

void Branin::evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) {
  if (x.size() != 2) throw sdk::InvalidArgument("problem/branin: evaluate() needs 2 coordinates");
  out.objective = branin_value(x[0], x[1]);
  out.constraints.resize(0);
}

}  // namespace arbo::plugins
