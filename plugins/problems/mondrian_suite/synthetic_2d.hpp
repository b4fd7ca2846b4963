// SPDX-License-Identifier: MIT
/// @file
/// @brief The two-dimensional continuous problems of the Mondrian/Nelder-Mead thesis
/// (Braun 2022, App. A.1.2-A.1.7), each with black-box constraints (feasible iff c <= 0).
///
/// Branin and its constrained form (App. A.1.1) are problem/branin and
/// problem/branin_constrained in the builtin library.
#pragma once

#include "suite_common.hpp"

namespace arbo::plugins::mondrian {

/// Rosenbrock on [-2.048, 2.048]^2 with the thesis's own discontinuous-gradient constraint
/// c = |max(x1, x2)| - 1. f* = 0 at (1, 1), on the constraint boundary.
class RosenbrockConstrained final : public BenchmarkProblem {
 public:
  explicit RosenbrockConstrained(const sdk::CreateArgs& args);
  sdk::ProblemInfo info() const override;
  void evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) override;
};

/// G6 (Floudas & Pardalos) on the thesis's reduced box [13.5, 14.5] x [0.5, 1.5], two
/// constraints. f* = -6961.81388 at (14.095, 5 - sqrt(17.280975)), where both are active.
class G6Reduced final : public BenchmarkProblem {
 public:
  explicit G6Reduced(const sdk::CreateArgs& args);
  sdk::ProblemInfo info() const override;
  void evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) override;
};

/// Gardner et al. (2014) problem 2: f = sin x1 + x2, c = sin x1 sin x2 + 0.95 on [0, 2 pi]^2.
/// Disjoint feasible parts; f* = asin(0.95) - 1 at (3 pi / 2, asin 0.95).
class Gardner final : public BenchmarkProblem {
 public:
  explicit Gardner(const sdk::CreateArgs& args);
  sdk::ProblemInfo info() const override;
  void evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) override;
};

/// Alpine-1, modified by the thesis: minus one inside the disk r <= 2, with the ring
/// 2 < r < 4 infeasible. f* = -1 at the origin.
class AlpineModified final : public BenchmarkProblem {
 public:
  explicit AlpineModified(const sdk::CreateArgs& args);
  sdk::ProblemInfo info() const override;
  void evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) override;
};

/// Constrained Townsend function in the GPflowOpt form (the thesis's printed formulas are
/// wrong, see the README). f* = -3.19972 near (-2.2436, -1.3037).
class Townsend final : public BenchmarkProblem {
 public:
  explicit Townsend(const sdk::CreateArgs& args);
  sdk::ProblemInfo info() const override;
  void evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) override;
};

/// The thesis's own shifted sphere with a wave constraint. f* = 0 at (-0.5, 0), where the
/// constraint is -0.00106 (barely feasible).
class SphereConstrained final : public BenchmarkProblem {
 public:
  explicit SphereConstrained(const sdk::CreateArgs& args);
  sdk::ProblemInfo info() const override;
  void evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) override;
};

}  // namespace arbo::plugins::mondrian
