// SPDX-License-Identifier: MIT
/// @file
/// @brief Template known constraint: a ball over the real parameters.
///
/// From the SDK's constraint template (`tools/new-plugin constraint NAME` copies and renames it).
/// The contract is in <arbo/sdk/constraint.hpp>; the conformance kit checks it
/// (constraint_xyz_test.cpp).
#pragma once

#include <vector>

#include <arbo/sdk/capabilities/constraint.hpp>
#include <arbo/sdk/constraint.hpp>

namespace xyz {

/// Keeps the always-active real parameters inside a ball: with s_j = (x_j - lower_j) /
/// (upper_j - lower_j) the coordinates scaled to [0, 1] (encoded units, so log-scaled
/// parameters are scaled in ln), the constraint is ||s - center|| <= radius.
///
/// Besides `violation`, it offers the optional `FormulatesConstraint` capability: model-based
/// inner solvers find it with `dynamic_cast` and add the ball as one convex quadratic row.
/// Capabilities are how a component opts into more of the SDK without changing its kind.
class ConstraintXyz final : public arbo::sdk::Constraint, public arbo::sdk::FormulatesConstraint {
 public:
  /// @throws arbo::sdk::ParamError when `center` does not have one entry per real parameter.
  explicit ConstraintXyz(const arbo::sdk::CreateArgs& args);
  static const arbo::sdk::ParamSpecList& params();

  /// max(0, ||s - center|| - radius): zero inside, distance to the ball (scaled units) outside.
  double violation(const Eigen::VectorXd& x) const override;
  std::string describe() const override;

  /// sum_j (a_j x_j + b_j)^2 <= radius^2 with a_j = 1/range_j, b_j = -lower_j/range_j - c_j.
  void formulate(arbo::sdk::Model& model, const arbo::sdk::PointVariables& point) const override;

 private:
  std::vector<Eigen::Index> reals_;  // coordinates the ball acts on
  std::vector<std::string> names_;
  Eigen::VectorXd a_, b_;  // s_j - c_j = a_j x_j + b_j, per entry of reals_
  double radius_;
};

}  // namespace xyz
