// SPDX-License-Identifier: MIT
/// @file
/// @brief problem/branin: the Branin-Hoo function on [-5, 10] x [0, 15].
#pragma once

#include <arbo/sdk/problem.hpp>

namespace arbo::plugins {

/// Branin-Hoo at (x1, x2): (x2 - 5.1 x1^2/(4 pi^2) + 5 x1/pi - 6)^2 + 10 (1 - 1/(8 pi)) cos x1
/// + 10.
double branin_value(double x1, double x2) noexcept;

/// The two-parameter space x1 in [-5, 10], x2 in [0, 15] shared by both Branin problems.
sdk::Space branin_space();

/// Unconstrained Branin; three global minima f* = 5/(4 pi) = 0.397887.
class Branin final : public sdk::Problem {
 public:
  explicit Branin(const sdk::CreateArgs& args);
  static const sdk::ParamSpecList& params();

  const sdk::Space& space() const override { return space_; }
  sdk::ProblemInfo info() const override;
  void evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) override;

 private:
  sdk::Space space_;
};

}  // namespace arbo::plugins
