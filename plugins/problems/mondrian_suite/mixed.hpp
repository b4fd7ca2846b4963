// SPDX-License-Identifier: MIT
/// @file
/// @brief The mixed continuous/categorical problems of the thesis (App. A.2): Mixed Branin and
/// Func-3C, with real categorical parameters and one black-box constraint each.
#pragma once

#include "suite_common.hpp"

namespace arbo::plugins::mondrian {

/// Mixed Branin (Pelamatti et al.): x1, x2 in [0, 1], z1, z2 in {A, B}; a rescaled Branin h
/// transformed per category pair, and a hyperbola constraint per pair. With the corrections of
/// docs/methods/mondrian-nelder-mead.md f* = -0.814299 at (1, 0.4, A, A), on the constraint
/// boundary.
class MixedBranin final : public BenchmarkProblem {
 public:
  explicit MixedBranin(const sdk::CreateArgs& args);
  sdk::ProblemInfo info() const override;
  void evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) override;
};

/// Func-3C (Ru et al.) with the thesis's disk constraint: x1, x2 in [-1, 1], z1 in {0, 1, 2},
/// z2 in {0, ..., 4}, z3 in {0, 1}; the constraint counts the categories' integer codes, so
/// only z = (0, 0, 0) has a feasible region of positive area. f* = -0.23144967.
class Func3C final : public BenchmarkProblem {
 public:
  explicit Func3C(const sdk::CreateArgs& args);
  sdk::ProblemInfo info() const override;
  void evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) override;
};

}  // namespace arbo::plugins::mondrian
