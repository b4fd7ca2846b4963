// SPDX-License-Identifier: MIT
/// @file
/// @brief problem/ackley20_constrained and problem/ackley20: Ackley on [-5, 10]^20.
#pragma once

#include "suite_common.hpp"

namespace arbo::plugins::mondrian {

/// Ackley's function in d dimensions (a = 20, b = 0.2, c = 2 pi); 0 at the origin.
double ackley_value(const Eigen::VectorXd& x) noexcept;

/// Ackley-20D with the SCBO constraints sum(x) <= 0 and ||x||_2 <= 5 (thesis App. A.1.9).
/// The feasible set is half a ball of radius 5: a fraction 3.7e-12 of the box, not the
/// thesis's 0.0035%. f* = 0 at the origin, where sum(x) = 0 is active.
class Ackley20Constrained final : public BenchmarkProblem {
 public:
  explicit Ackley20Constrained(const sdk::CreateArgs& args);
  sdk::ProblemInfo info() const override;
  void evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) override;
};

/// The same objective without constraints ("Ackley Unconstrained" of the thesis, Fig. 6.8 and
/// §6.5).
class Ackley20 final : public BenchmarkProblem {
 public:
  explicit Ackley20(const sdk::CreateArgs& args);
  sdk::ProblemInfo info() const override;
  void evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) override;
};

}  // namespace arbo::plugins::mondrian
