// SPDX-License-Identifier: MIT
/// @file
/// @brief problem/hartmann6: the six-dimensional Hartmann function on [0, 1]^6.
#pragma once

#include "benchmark_problem.hpp"

namespace arbo::plugins {

/// Hartmann 6-D: f = -sum_i c_i exp(-sum_j A_ij (x_j - P_ij)^2), six local minima, global
/// minimum f* = -3.32237.
class Hartmann6 final : public problems_common::BenchmarkProblem {
 public:
  explicit Hartmann6(const sdk::CreateArgs& args);
  sdk::ProblemInfo info() const override;
  void evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) override;
};

}  // namespace arbo::plugins
