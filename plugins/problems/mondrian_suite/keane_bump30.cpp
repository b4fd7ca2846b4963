// SPDX-License-Identifier: MIT
#include "keane_bump30.hpp"

#include <algorithm>
#include <cmath>

namespace arbo::plugins::mondrian {

namespace {
constexpr int kDim = 30;
// The objective tends to -inf at the origin (numerator 28, denominator 0); the floor keeps the
// value finite at the corner x = 0, which bound-clamping inner solvers can reach. The origin
// is infeasible (prod x = 0 < 0.75), so the floor never touches a feasible value.
constexpr double kMinDenominator = 1e-12;
}  // namespace

KeaneBump30::KeaneBump30(const sdk::CreateArgs& /*args*/)
    : BenchmarkProblem("keane_bump30", real_cube(kDim, 0.0, 10.0, 1), {"product", "sum"}) {}

sdk::ProblemInfo KeaneBump30::info() const {
  sdk::ProblemInfo i;
  i.source = thesis_source(
      "App. A.1.10 (Keane 1994)",
      "Best known: the thesis cites -0.818056222 (Mishra 2007), which arbo's local search "
      "reproduces (to 4e-8) from 13 large coordinates; starting from 12 large coordinates with "
      "x1 near 2 pi it finds -0.8218844, reported here");
  i.optimum = -0.8218843966678693;
  i.optimum_is_best_known = true;
  // The product constraint is active (c1 = -2e-13 after rounding x1 outwards).
  i.optimizers = {
      vec({6.264840642712, 3.150345526562, 3.128091131121, 3.106090419224, 3.084237508944,
           3.062431652296, 3.040573188711, 3.018559515454, 2.996280751132, 2.973614453207,
           2.950418683912, 2.926522166139, 0.476668105565, 0.473092803123, 0.469645076613,
           0.466315465093, 0.463095548996, 0.459977800292, 0.456955505158, 0.454022626865,
           0.451173706456, 0.448403808114, 0.445708423622, 0.443083459656, 0.440525159389,
           0.438030052803, 0.435594991792, 0.433217026644, 0.430893448267, 0.428621761771})};
  return i;
}

void KeaneBump30::evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) {
  prepare(x, out);
  double sum_c4 = 0.0;
  double prod_c2 = 1.0;
  double weighted = 0.0;
  double prod_x = 1.0;
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    const double c = std::cos(x[i]);
    const double c2 = c * c;
    sum_c4 += c2 * c2;
    prod_c2 *= c2;
    weighted += static_cast<double>(i + 1) * x[i] * x[i];
    prod_x *= x[i];
  }
  const double den = std::max(std::sqrt(weighted), kMinDenominator);
  out.objective = -std::abs((sum_c4 - 2.0 * prod_c2) / den);
  out.constraints[0] = 0.75 - prod_x;
  // Corrected (docs/methods/mondrian-nelder-mead.md): sum(x) - 225 with 225 = 7.5 d; the thesis
  // prints "sum -225".
  out.constraints[1] = x.sum() - 7.5 * kDim;
}

}  // namespace arbo::plugins::mondrian
