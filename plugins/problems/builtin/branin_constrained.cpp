// SPDX-License-Identifier: MIT
#include "branin_constrained.hpp"

#include <numbers>
#include <random>

#include <arbo/sdk/error.hpp>

#include "branin.hpp"

namespace arbo::plugins {

const sdk::ParamSpecList& BraninConstrained::params() {
  static const sdk::ParamSpecList specs;
  return specs;
}

BraninConstrained::BraninConstrained(const sdk::CreateArgs& args) : space_(branin_space()) {}

sdk::ProblemInfo BraninConstrained::info() const {
  constexpr double pi = std::numbers::pi;
  sdk::ProblemInfo i;
  i.source =
      "Branin with the black-box constraint of the Mondrian/Nelder-Mead thesis (Braun 2022), "
      "Table 6.1 and App. A";
  i.optimum = 10.0 / (8.0 * pi);
  // (-pi, 12.275) and (3 pi, 2.475) lie outside the disk (c = 4.63 and 23.2).
  i.optimizers = {Eigen::Vector2d(pi, 2.275)};
  return i;
}

void BraninConstrained::evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) {
  if (x.size() != 2) {
    throw sdk::InvalidArgument("problem/branin_constrained: evaluate() needs 2 coordinates");
  }
  out.objective = branin_value(x[0], x[1]);
  const double d1 = x[0] - 2.5;
  const double d2 = x[1] - 7.5;
  out.constraints.resize(1);
  out.constraints[0] = d1 * d1 + d2 * d2 - 50.0;
}

}  // namespace arbo::plugins
