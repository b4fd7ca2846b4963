// SPDX-License-Identifier: MIT
/// @file
/// @brief problem/discrete_ackley13 and problem/discrete_rosenbrock10: the mixed
/// integer/real synthetic functions of the BARK paper (Table 5; Dreczkowski et al. 2023).
#pragma once

#include "benchmark_problem.hpp"

namespace arbo::plugins {

/// Ackley on z = [2i - 1, x], i in {0,1}^10 (integers x_0..x_9), x in [-1,1]^3 (x_10..x_12):
/// f = -20 exp(-0.2 sqrt(|z|^2/13)) - exp(sum cos(2 pi z)/13) + 20 + e. Every integer part
/// has |z_int|^2 = 10 and cos = 1, so f* = 20 - 20 exp(-0.2 sqrt(10/13)) = 3.21785 at x = 0,
/// for all 1024 integer parts.
class DiscreteAckley13 final : public problems_common::BenchmarkProblem {
 public:
  explicit DiscreteAckley13(const sdk::CreateArgs& args);
  sdk::ProblemInfo info() const override;
  void evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) override;
};

/// Rosenbrock on z = [5 i, x], i in {-1,0,1,2}^6 (integers x_0..x_5), x in [-5,10]^4
/// (x_6..x_9): f = sum_{k=1}^{9} 100 (z_{k+1} - z_k^2)^2 + (1 - z_k)^2. f* = 8.969897 at
/// i = 0, x = (0.010103, 0.010202, 0.010004, 0.000100): the integers are forced to 0 and the
/// reals sit in a shallow valley, BARK's failure case.
class DiscreteRosenbrock10 final : public problems_common::BenchmarkProblem {
 public:
  explicit DiscreteRosenbrock10(const sdk::CreateArgs& args);
  sdk::ProblemInfo info() const override;
  void evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) override;
};

}  // namespace arbo::plugins
