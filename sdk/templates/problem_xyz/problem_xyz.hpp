// SPDX-License-Identifier: MIT
/// @file
/// @brief Template problem: the sphere function in `dim` reals.
///
/// From the SDK's problem template (`tools/new-plugin problem NAME` copies and renames it). The
/// contract is in <arbo/sdk/problem.hpp>; the conformance kit checks it (problem_xyz_test.cpp),
/// including the value at the declared optimum.
#pragma once

#include <arbo/sdk/problem.hpp>

namespace xyz {

/// f(x) = sum_j x_j^2 on [-5, 5]^dim; f* = 0 at the origin. No black-box constraints.
///
/// A problem defines its own space (its CreateArgs carry an empty one) and must be
/// deterministic unless a parameter makes it noisy, drawing the noise from `Context::rng()`.
class ProblemXyz final : public arbo::sdk::Problem {
 public:
  explicit ProblemXyz(const arbo::sdk::CreateArgs& args);
  static const arbo::sdk::ParamSpecList& params();

  const arbo::sdk::Space& space() const override { return space_; }
  arbo::sdk::ProblemInfo info() const override;
  /// O(dim). Throws `InvalidArgument` on a point of the wrong length.
  void evaluate(const Eigen::VectorXd& x, arbo::sdk::Evaluation& out) override;

 private:
  arbo::sdk::Space space_;
};

}  // namespace xyz
