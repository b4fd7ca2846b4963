// SPDX-License-Identifier: MIT
#include "unconstrained.hpp"

#include <cmath>
#include <numbers>
#include <string>

#include <fmt/format.h>

#include "suite_common.hpp"

namespace arbo::plugins::leafgp {

namespace {

constexpr int kDim = 10;

// Root of x sin(sqrt x)' = 0 near 420.9687 and the maximum of x sin(sqrt x) there, computed by
// Newton's method in double precision; the maximum is 418.98288727243374, so the rounded
// constant 418.9829 leaves 10 * 1.2728e-5 at the optimum.
constexpr double kSchwefelArgmax = 420.9687463599821;
constexpr double kSchwefelOptimum = 1.2727566263492918e-4;

// Root of 4t^3 - 32t + 5 = 0 near -2.9 (50-digit Newton), and 10 times the 1-D minimum.
constexpr double kStyblinskiArgmin = -2.903534027771177;
constexpr double kStyblinskiOptimum = -391.66165703771415;

const char* const kTableSource =
    "LEAF-GP (Thebelt et al., NeurIPS 2022) Table 1 domain; formula of the authors' reference "
    "code tree_kernel_gp (after Surjanovic & Bingham); LEAF-GP Sec. 5.2";

std::string source_of(const char* name) { return fmt::format("{}: {}", name, kTableSource); }

}  // namespace

Rastrigin10::Rastrigin10(const sdk::CreateArgs&)
    : BenchmarkProblem("rastrigin10", real_cube(kDim, -4.0, 5.0, 0)) {}

sdk::ProblemInfo Rastrigin10::info() const {
  return {.source = source_of("Rastrigin 10-D"),
          .optimum = 0.0,
          .optimizers = {Eigen::VectorXd::Zero(kDim)}};
}

void Rastrigin10::evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) {
  prepare(x, out);
  double f = 10.0 * kDim;
  for (Eigen::Index i = 0; i < kDim; ++i) {
    f += x[i] * x[i] - 10.0 * std::cos(2.0 * std::numbers::pi * x[i]);
  }
  out.objective = f;
}

Schwefel10::Schwefel10(const sdk::CreateArgs&)
    : BenchmarkProblem("schwefel10", real_cube(kDim, -500.0, 500.0, 0)) {}

sdk::ProblemInfo Schwefel10::info() const {
  return {.source = source_of("Schwefel 10-D"),
          .optimum = kSchwefelOptimum,
          .optimizers = {Eigen::VectorXd::Constant(kDim, kSchwefelArgmax)}};
}

void Schwefel10::evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) {
  prepare(x, out);
  double s = 0.0;
  for (Eigen::Index i = 0; i < kDim; ++i) s += x[i] * std::sin(std::sqrt(std::abs(x[i])));
  out.objective = 418.9829 * kDim - s;
}

StyblinskiTang10::StyblinskiTang10(const sdk::CreateArgs&)
    : BenchmarkProblem("styblinski_tang10", real_cube(kDim, -5.0, 5.0, 0)) {}

sdk::ProblemInfo StyblinskiTang10::info() const {
  return {.source = source_of("Styblinski-Tang 10-D"),
          .optimum = kStyblinskiOptimum,
          .optimizers = {Eigen::VectorXd::Constant(kDim, kStyblinskiArgmin)}};
}

void StyblinskiTang10::evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) {
  prepare(x, out);
  double s = 0.0;
  for (Eigen::Index i = 0; i < kDim; ++i) {
    const double t2 = x[i] * x[i];
    s += t2 * t2 - 16.0 * t2 + 5.0 * x[i];
  }
  out.objective = 0.5 * s;
}

}  // namespace arbo::plugins::leafgp
