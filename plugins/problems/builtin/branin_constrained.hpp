// SPDX-License-Identifier: MIT
/// @file
/// @brief problem/branin_constrained: Branin with one black-box disk constraint.
#pragma once

#include "benchmark_problem.hpp"

namespace arbo::plugins {

/// Branin subject to c = (x1 - 2.5)^2 + (x2 - 7.5)^2 - 50 <= 0 (Mondrian/Nelder-Mead thesis).
/// Only the minimizer (pi, 2.275) is feasible, so f* = 0.397887 is unchanged. The disk lies
/// inside the box, so the feasible fraction is 50 pi / 225 = 69.81%.
class BraninConstrained final : public problems_common::BenchmarkProblem {
 public:
  explicit BraninConstrained(const sdk::CreateArgs& args);
  sdk::ProblemInfo info() const override;
  void evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) override;
};

}  // namespace arbo::plugins
