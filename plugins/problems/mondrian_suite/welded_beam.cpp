// SPDX-License-Identifier: MIT
#include "welded_beam.hpp"

#include <cmath>
#include <numbers>

namespace arbo::plugins::mondrian {

const sdk::ParamSpecList& WeldedBeam::params() {
  static const sdk::ParamSpecList specs = {sdk::ParamSpec::real(
      "tau_max",
      "Shear-stress limit of constraint c1 = tau - tau_max, in psi. 13600 is the literature "
      "value, with which the published best known point is feasible; the thesis prints 13000 "
      "(its Table 6.1 feasible fraction matches 13000). f* is known for these two values only.",
      13600.0, 1000.0, 100000.0)};
  return specs;
}

WeldedBeam::WeldedBeam(const sdk::CreateArgs& args)
    : BenchmarkProblem(
          "welded_beam", real_box({{0.125, 10.0}, {0.1, 10.0}, {0.1, 10.0}, {0.1, 10.0}}, 1),
          {"shear_stress", "bending_stress", "weld_thickness", "buckling_load", "deflection"}),
      tau_max_(args.params.get_real("tau_max")) {}

sdk::ProblemInfo WeldedBeam::info() const {
  sdk::ProblemInfo i;
  i.optimum_is_best_known = true;
  // Both points solve c1 = c2 = c3 = c4 = 0 (x1 = x4 and x3 fixed by c2 and c4, x2 by c1),
  // rounded outwards so that every constraint is strictly satisfied; f is within 1e-9 of the
  // vertex value.
  if (tau_max_ == 13600.0) {
    i.source = thesis_source(
        "App. A.1.8 (Eriksson & Poloczek 2021 form)",
        "Best known 2.3811 (thesis, literature); the thesis's point (0.2444, 6.2158, 8.2939, "
        "0.2444) evaluates to 2.38161, so the optimizer given here is the refined vertex");
    i.optimum = 2.381134117005522;
    i.optimizers = {vec({0.244368953448, 6.218606919, 8.291471769715, 0.244368953451})};
  } else if (tau_max_ == 13000.0) {
    i.source = thesis_source(
        "App. A.1.8 (Eriksson & Poloczek 2021 form) with the printed "
        "tau_max = 13000",
        "No published optimum for this variant: best value found by "
        "arbo's own search (vertex of c1..c4)");
    i.optimum = 2.445398320485723;
    i.optimizers = {vec({0.244368953448, 6.611783986, 8.291471769715, 0.244368953451})};
  } else {
    i.source = thesis_source("App. A.1.8 (Eriksson & Poloczek 2021 form)",
                             "No known optimum for this tau_max");
  }
  return i;
}

void WeldedBeam::evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) {
  prepare(x, out);
  const double x1 = x[0];
  const double x2 = x[1];
  const double x3 = x[2];
  const double x4 = x[3];
  out.objective = 1.10471 * x1 * x1 * x2 + 0.04811 * x3 * x4 * (14.0 + x2);

  const double s = x1 + x3;
  const double r = std::sqrt(0.25 * (x2 * x2 + s * s));
  // Corrected (docs/methods/mondrian-nelder-mead.md): the literature's 6000 / (sqrt(2) x1 x2); the
  // thesis prints 6000 / sqrt(2 x1 x2).
  const double tau1 = 6000.0 / (std::numbers::sqrt2 * x1 * x2);
  // 1.414 as printed. Formulations with 2 sqrt(2) here have a larger polar moment and the
  // better optimum 1.7249 at (0.2057, 3.4705, 9.0366, 0.2057), which is infeasible in this one.
  const double tau2 =
      6000.0 * (14.0 + 0.5 * x2) * r / (1.414 * x1 * x2 * (x2 * x2 / 12.0 + 0.25 * s * s));
  const double tau = std::sqrt(tau1 * tau1 + tau2 * tau2 + x2 * tau1 * tau2 / r);
  const double sigma = 504000.0 / (x3 * x3 * x4);
  const double p_c = 64746.022 * (1.0 - 0.0282346 * x3) * x3 * x4 * x4 * x4;
  const double delta = 2.1952 / (x3 * x3 * x3 * x4);

  // Corrected (docs/methods/mondrian-nelder-mead.md): tau_max is a parameter; the thesis prints
  // 13000, the literature (and the thesis's best known point) needs 13600.
  out.constraints[0] = tau - tau_max_;
  out.constraints[1] = sigma - 30000.0;
  out.constraints[2] = x1 - x4;
  out.constraints[3] = 6000.0 - p_c;
  out.constraints[4] = delta - 0.25;
}

}  // namespace arbo::plugins::mondrian
