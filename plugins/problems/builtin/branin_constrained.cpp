// SPDX-License-Identifier: MIT
#include "branin_constrained.hpp"

#include "branin.hpp"

namespace arbo::plugins {

BraninConstrained::BraninConstrained(const sdk::CreateArgs&)
    : BenchmarkProblem("branin_constrained", branin_space(), {"disk"}) {}

sdk::ProblemInfo BraninConstrained::info() const {
  // Of Branin's minimizers only (pi, 2.275) is feasible: (-pi, 12.275) and (3 pi, 2.475) lie
  // outside the disk (c = 4.63 and 23.2).
  return {.source =
              "Branin with the black-box constraint of the Mondrian/Nelder-Mead thesis (Braun "
              "2022), Table 6.1 and App. A",
          .optimum = branin_optimum(),
          .optimizers = {branin_minimizers().front()}};
}

void BraninConstrained::evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) {
  prepare(x, out);
  out.objective = branin_value(x[0], x[1]);
  const double d1 = x[0] - 2.5;
  const double d2 = x[1] - 7.5;
  out.constraints[0] = d1 * d1 + d2 * d2 - 50.0;
}

}  // namespace arbo::plugins
