// SPDX-License-Identifier: MIT
#include "discrete_functions.hpp"

#include <cmath>
#include <numbers>

#include <fmt/format.h>

namespace arbo::plugins {

namespace {

constexpr int kAckleyInts = 10;
constexpr int kAckleyReals = 3;
constexpr int kRosenbrockInts = 6;
constexpr int kRosenbrockReals = 4;

sdk::Space mixed_space(int num_int, std::int64_t int_lo, std::int64_t int_hi, int num_real,
                       double real_lo, double real_hi) {
  std::vector<sdk::Parameter> p;
  for (int i = 0; i < num_int; ++i)
    p.push_back(sdk::Parameter::integer(fmt::format("x_{}", i), int_lo, int_hi));
  for (int i = 0; i < num_real; ++i) {
    p.push_back(sdk::Parameter::real(fmt::format("x_{}", num_int + i), real_lo, real_hi));
  }
  return sdk::Space(std::move(p));
}

double rosenbrock_at_z(const Eigen::VectorXd& z) {
  double f = 0.0;
  for (Eigen::Index k = 0; k + 1 < z.size(); ++k) {
    const double a = z[k + 1] - z[k] * z[k];
    const double b = 1.0 - z[k];
    f += 100.0 * a * a + b * b;
  }
  return f;
}

// Computed offline by brute force over the 4^6 integer parts and Newton's method from 300
// random starts on the reals; f(x*) reproduces f* to the last digit.
constexpr double kRosenbrockOptimum = 8.969896989707385;
constexpr double kRosenbrockOptimizerReals[kRosenbrockReals] = {
    0.010103050698336918, 0.01020205090770604, 0.010004041428432196, 0.00010008084487645128};

}  // namespace

DiscreteAckley13::DiscreteAckley13(const sdk::CreateArgs&)
    : BenchmarkProblem("discrete_ackley13",
                       mixed_space(kAckleyInts, 0, 1, kAckleyReals, -1.0, 1.0)) {}

sdk::ProblemInfo DiscreteAckley13::info() const {
  sdk::ProblemInfo i;
  i.source =
      "BARK (Boyne et al.), Table 5 DiscreteAckley (Dreczkowski et al. 2023; Bliek 2021), "
      "D = 13 (BARK Sec. 7.2)";
  i.optimum = 20.0 - 20.0 * std::exp(-0.2 * std::sqrt(10.0 / 13.0));
  Eigen::VectorXd zeros = Eigen::VectorXd::Zero(kAckleyInts + kAckleyReals);
  Eigen::VectorXd ones = zeros;
  ones.head(kAckleyInts).setOnes();
  Eigen::VectorXd mixed = zeros;
  for (int k = 0; k < kAckleyInts; k += 2) mixed[k] = 1.0;
  i.optimizers = {zeros, ones, mixed};
  return i;
}

void DiscreteAckley13::evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) {
  prepare(x, out);
  constexpr double d = kAckleyInts + kAckleyReals;
  double squares = 0.0;
  double cosines = 0.0;
  for (Eigen::Index k = 0; k < x.size(); ++k) {
    const double z = k < kAckleyInts ? 2.0 * x[k] - 1.0 : x[k];
    squares += z * z;
    cosines += std::cos(2.0 * std::numbers::pi * z);
  }
  out.objective = -20.0 * std::exp(-0.2 * std::sqrt(squares / d)) - std::exp(cosines / d) + 20.0 +
                  std::numbers::e;
}

DiscreteRosenbrock10::DiscreteRosenbrock10(const sdk::CreateArgs&)
    : BenchmarkProblem("discrete_rosenbrock10",
                       mixed_space(kRosenbrockInts, -1, 2, kRosenbrockReals, -5.0, 10.0)) {}

sdk::ProblemInfo DiscreteRosenbrock10::info() const {
  sdk::ProblemInfo i;
  i.source =
      "BARK (Boyne et al.), Table 5 DiscreteRosenbrock (Dreczkowski et al. 2023), D = 10 "
      "(BARK Sec. 7.2); f* computed numerically (docs/methods/bark.md: 8.9699)";
  i.optimum = kRosenbrockOptimum;
  Eigen::VectorXd xs = Eigen::VectorXd::Zero(kRosenbrockInts + kRosenbrockReals);
  for (int k = 0; k < kRosenbrockReals; ++k) xs[kRosenbrockInts + k] = kRosenbrockOptimizerReals[k];
  i.optimizers = {xs};
  return i;
}

void DiscreteRosenbrock10::evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) {
  prepare(x, out);
  Eigen::VectorXd z = x;
  z.head(kRosenbrockInts) *= 5.0;
  out.objective = rosenbrock_at_z(z);
}

}  // namespace arbo::plugins
