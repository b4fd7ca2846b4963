// SPDX-License-Identifier: MIT
/// @file
/// @brief Optional capabilities of a known constraint: formulating itself into a model,
/// projecting points onto its feasible set.
#pragma once

#include <Eigen/Core>

#include "arbo/sdk/export.hpp"
#include "arbo/sdk/model.hpp"

namespace arbo::sdk {

/// Known constraint that can write itself into a model as linear/quadratic rows.
class ARBO_SDK_API FormulatesConstraint {
 public:
  virtual ~FormulatesConstraint();
  virtual void formulate(Model& model, const PointVariables& point) const = 0;
};

/// Known constraint that can map a point to a nearby feasible one (Euclidean for reals,
/// Hamming for categoricals), usually through `Context::model_solver()`.
class ARBO_SDK_API ProjectsPoints {
 public:
  virtual ~ProjectsPoints();
  /// Returns true and overwrites `x` with a feasible point, or returns false.
  virtual bool project(Eigen::VectorXd& x) const = 0;
};

}  // namespace arbo::sdk
