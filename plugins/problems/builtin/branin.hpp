// SPDX-License-Identifier: MIT
/// @file
/// @brief problem/branin: the Branin-Hoo function on [-5, 10] x [0, 15].
#pragma once

#include <vector>

#include <Eigen/Core>

#include "benchmark_problem.hpp"

namespace arbo::plugins {

/// Branin-Hoo at (x1, x2): (x2 - 5.1 x1^2/(4 pi^2) + 5 x1/pi - 6)^2 + 10 (1 - 1/(8 pi)) cos x1
/// + 10.
double branin_value(double x1, double x2) noexcept;

/// The two-parameter space x1 in [-5, 10], x2 in [0, 15] shared by both Branin problems.
sdk::Space branin_space();

/// The three global minimizers (pi, 2.275), (-pi, 12.275), (3 pi, 2.475), in that order. At
/// each the squared bracket vanishes and cos x1 = -1, so f* = 10 / (8 pi) exactly.
std::vector<Eigen::VectorXd> branin_minimizers();

/// f* = 10 / (8 pi) = 0.397887.
double branin_optimum() noexcept;

/// Unconstrained Branin; three global minima f* = 5/(4 pi) = 0.397887.
class Branin final : public problems_common::BenchmarkProblem {
 public:
  explicit Branin(const sdk::CreateArgs& args);
  sdk::ProblemInfo info() const override;
  void evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) override;
};

}  // namespace arbo::plugins
