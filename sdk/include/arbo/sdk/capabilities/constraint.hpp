// SPDX-License-Identifier: MIT
/// @file
/// @brief Optional capabilities of a known constraint: formulating itself into a model,
/// projecting points onto its feasible set, reporting its rows' excesses in user units.
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

/// Known constraint made of rows g_k(x) <= 0 and h_k(x) = 0 that reports their excesses in the
/// problem's own units, which `Constraint::violation` need not use (constraint/polynomial
/// divides each row by a scale). The kernel's known-constraint penalty (`[proposal]
/// known_penalty`, Eq. 14 of Thebelt et al. 2022: f + lambda * (sum max(g_k, 0)^2 + sum h_k^2))
/// adds lambda times this to the objective the surrogates see; a constraint without it counts
/// as violation(x)^2.
class ARBO_SDK_API ReportsRowExcesses {
 public:
  virtual ~ReportsRowExcesses();
  /// Sum over the rows of max(0, g_k(x))^2 and h_k(x)^2 at encoded point `x` (snapped), in the
  /// rows' user units; excesses within the evaluation's rounding count 0, as in `violation`.
  /// Finite (a NaN row counts as the largest finite double). O(size of the constraint).
  virtual double squared_excess(const Eigen::VectorXd& x) const = 0;
};

}  // namespace arbo::sdk
