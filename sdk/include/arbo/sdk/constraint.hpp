// SPDX-License-Identifier: MIT
/// @file
/// @brief Known constraints: cheap, closed-form restrictions on x checked before evaluation.
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

  /// Violation at encoded point `x`: 0 when satisfied, > 0 otherwise (in the constraint's own
  /// units, e.g. the largest row excess). Finite. O(size of the constraint).
  virtual double violation(const Eigen::VectorXd& x) const = 0;

  /// One line for logs and `arbo show`, e.g. "x0 + x1 <= 1 (2 rows)".
  virtual std::string describe() const;
};

/// True when every constraint's violation at `x` is <= `tolerance`; a NaN violation fails.
/// Stops at the first failing constraint: at most one `Constraint::violation` call each.
ARBO_SDK_API bool satisfies(const std::vector<const Constraint*>& constraints,
                            const Eigen::VectorXd& x, double tolerance = 0.0);

}  // namespace arbo::sdk
