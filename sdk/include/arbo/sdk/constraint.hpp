// SPDX-License-Identifier: MIT
/// @file
/// @brief Known constraints: cheap, closed-form restrictions on x checked before evaluation.
///
/// A study has two sorts of constraints. *Known* constraints are components of this kind
/// (`[[known_constraints]]` tables, plus those a problem declares through `HasKnownConstraints`):
/// the kernel checks them before proposing a point, the initial design and the inner solver
/// only produce points that satisfy them, and model-based solvers formulate them into their
/// model (capabilities/constraint.hpp). *Black-box* constraints are not components: they are
/// measured by the evaluator with the objective and modelled by surrogates (dataset.hpp).
#pragma once

#include <string>
#include <vector>

#include <Eigen/Core>

#include "arbo/sdk/component.hpp"

namespace arbo::sdk {

/// A known constraint on encoded points (linear rows, polynomial inequalities, ...).
/// Black-box constraints are not components: they are measured by the evaluator.
class ARBO_SDK_API Constraint : public Component {
 public:
  ~Constraint() override;

  /// Violation at encoded point `x` (length d, snapped by the caller): 0 when satisfied, > 0
  /// otherwise, in the constraint's own units (e.g. the largest row excess, scaled as the
  /// component documents). Finite; a NaN is treated as violated by `satisfies`. The kernel
  /// accepts a proposal whose violation is at most 1e-6, so choose units in which 1e-6 is a
  /// negligible excess. Pure function of x; O(size of the constraint). Called very often (by
  /// sampling solvers, once per candidate): allocate nothing per call.
  virtual double violation(const Eigen::VectorXd& x) const = 0;

  /// One line for logs, error messages and `arbo show`, e.g. "x0 + x1 <= 1 (2 rows)". The
  /// default returns "known constraint".
  virtual std::string describe() const;
};

/// True when every constraint's violation at `x` is <= `tolerance`; a NaN violation fails.
/// Stops at the first failing constraint: at most one `Constraint::violation` call each.
/// Thread-safe if the constraints' `violation` is.
ARBO_SDK_API bool satisfies(const std::vector<const Constraint*>& constraints,
                            const Eigen::VectorXd& x, double tolerance = 0.0);

}  // namespace arbo::sdk
