// SPDX-License-Identifier: MIT
#include "hartmann6.hpp"

#include <cmath>

namespace arbo::plugins {

namespace {

constexpr double kC[4] = {1.0, 1.2, 3.0, 3.2};
constexpr double kA[4][6] = {{10, 3, 17, 3.5, 1.7, 8},
                             {0.05, 10, 17, 0.1, 8, 14},
                             {3, 3.5, 1.7, 10, 17, 8},
                             {17, 8, 0.05, 10, 0.1, 14}};
constexpr double kP[4][6] = {{0.1312, 0.1696, 0.5569, 0.0124, 0.8283, 0.5886},
                             {0.2329, 0.4135, 0.8307, 0.3736, 0.1004, 0.9991},
                             {0.2348, 0.1451, 0.3522, 0.2883, 0.3047, 0.6650},
                             {0.4047, 0.8828, 0.8732, 0.5743, 0.1091, 0.0381}};

}  // namespace

Hartmann6::Hartmann6(const sdk::CreateArgs&)
    : BenchmarkProblem("hartmann6", problems_common::real_cube(6, 0.0, 1.0, 1)) {}

sdk::ProblemInfo Hartmann6::info() const {
  sdk::ProblemInfo i;
  i.source =
      "Hartmann 6-D (Dixon & Szegő 1978); constants as in LEAF-GP (Thebelt et al. 2022), "
      "Sec. 5.2, Table 1";
  i.optimum = -3.32237;
  Eigen::VectorXd xs(6);
  xs << 0.20169, 0.150011, 0.476874, 0.275332, 0.311652, 0.6573;
  i.optimizers = {xs};
  return i;
}

void Hartmann6::evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) {
  prepare(x, out);
  double f = 0.0;
  for (int i = 0; i < 4; ++i) {
    double inner = 0.0;
    for (int j = 0; j < 6; ++j) {
      const double d = x[j] - kP[i][j];
      inner += kA[i][j] * d * d;
    }
    f -= kC[i] * std::exp(-inner);
  }
  out.objective = f;
}

}  // namespace arbo::plugins
