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
/// Model-based inner solvers require it of every known constraint (the kernel refuses the
/// pipeline at start-up otherwise), and `project_onto_constraints` (projection.hpp) works
/// only with constraints that have it, which is how designs and sampling solvers reach
/// feasible sets too small to hit at random.
class ARBO_SDK_API FormulatesConstraint {
 public:
  virtual ~FormulatesConstraint();
  /// Adds rows (and auxiliary variables, e.g. lifted products of a polynomial) to `model` over
  /// `point.x_vars`, so that the model's feasible points are exactly the points with
  /// `violation(x) == 0`, up to the solver's tolerance in the same units as `violation`. Adds
  /// no objective. Called once per model; the model may already hold other blocks.
  virtual void formulate(Model& model, const PointVariables& point) const = 0;
};

/// Known constraint that can map a point to a nearby feasible one (Euclidean for reals,
/// Hamming for categoricals), usually through `Context::model_solver()`. Implemented by
/// `constraint/polynomial` and `constraint/linear`; no stock component asks for it yet
/// (the kernel projects onto all known constraints jointly with `project_onto_constraints`).
class ARBO_SDK_API ProjectsPoints {
 public:
  virtual ~ProjectsPoints();
  /// Returns true and overwrites `x` with a point satisfying this constraint (snapped onto
  /// the space), or returns false and leaves `x` unchanged (no model solver, infeasible, or
  /// the solve found nothing within its limits). Cost: one model solve.
  virtual bool project(Eigen::VectorXd& x) const = 0;
};

}  // namespace arbo::sdk
