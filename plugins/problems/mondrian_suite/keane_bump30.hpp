// SPDX-License-Identifier: MIT
/// @file
/// @brief problem/keane_bump30: Keane's bump function in 30 dimensions.
#pragma once

#include "suite_common.hpp"

namespace arbo::plugins::mondrian {

/// Keane's bump, d = 30, on [0, 10]^30 with prod(x) >= 0.75 and sum(x) <= 7.5 d
/// (thesis App. A.1.10). The optimum is unknown: `info()` reports the best value known to this
/// library (a point found by arbo's own local search, lower than the thesis's -0.818056222).
class KeaneBump30 final : public BenchmarkProblem {
 public:
  explicit KeaneBump30(const sdk::CreateArgs& args);
  sdk::ProblemInfo info() const override;
  void evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) override;
};

}  // namespace arbo::plugins::mondrian
