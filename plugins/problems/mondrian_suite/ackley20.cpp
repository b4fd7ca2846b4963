// SPDX-License-Identifier: MIT
#include "ackley20.hpp"

#include <cmath>
#include <numbers>

namespace arbo::plugins::mondrian {

namespace {
constexpr int kDim = 20;
}  // namespace

double ackley_value(const Eigen::VectorXd& x) noexcept {
  const double d = static_cast<double>(x.size());
  double sq = 0.0;
  double cs = 0.0;
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    sq += x[i] * x[i];
    cs += std::cos(2.0 * std::numbers::pi * x[i]);
  }
  return -20.0 * std::exp(-0.2 * std::sqrt(sq / d)) - std::exp(cs / d) + std::numbers::e + 20.0;
}

// ---------------------------------------------------------------------- ackley20_constrained

Ackley20Constrained::Ackley20Constrained(const sdk::CreateArgs& /*args*/)
    : BenchmarkProblem("ackley20_constrained", real_cube(kDim, -5.0, 10.0, 1), {"sum", "ball"}) {}

sdk::ProblemInfo Ackley20Constrained::info() const {
  sdk::ProblemInfo i;
  i.source = thesis_source(
      "App. A.1.9 (Ackley 1987; constraints of Eriksson & Poloczek 2021)",
      "Table 6.1's feasible fraction 0.0035% is inconsistent with the constraints (3.7e-12)");
  i.optimum = 0.0;
  i.optimizers = {Eigen::VectorXd::Zero(kDim)};
  return i;
}

void Ackley20Constrained::evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) {
  prepare(x, out);
  out.objective = ackley_value(x);
  out.constraints[0] = x.sum();
  out.constraints[1] = x.norm() - 5.0;
}

// ------------------------------------------------------------------------------------ ackley20

Ackley20::Ackley20(const sdk::CreateArgs& /*args*/)
    : BenchmarkProblem("ackley20", real_cube(kDim, -5.0, 10.0, 1)) {}

sdk::ProblemInfo Ackley20::info() const {
  sdk::ProblemInfo i;
  i.source = thesis_source(
      "§6.4 (Fig. 6.8) and §6.5, \"Ackley Unconstrained\": App. A.1.9 without constraints");
  i.optimum = 0.0;
  i.optimizers = {Eigen::VectorXd::Zero(kDim)};
  return i;
}

void Ackley20::evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) {
  prepare(x, out);
  out.objective = ackley_value(x);
}

}  // namespace arbo::plugins::mondrian
