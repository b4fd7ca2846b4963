// SPDX-License-Identifier: MIT
/// @file
/// @brief Optional capability of a problem: constraints its source treats as known.
#pragma once

#include <string>
#include <vector>

#include <Eigen/Core>

#include "arbo/sdk/export.hpp"

namespace arbo::sdk {

/// One known constraint of a problem, as a polynomial inequality over parameter names in the
/// syntax of the `constraint/polynomial` plugin: terms with + - * / (division by constants
/// only), ^ with non-negative integer exponents, parentheses, numbers, parameter names, and one
/// of <=, >=, == between two sides. Example: "x0^2 + x1*x2 - 3*x3 <= 25".
struct KnownConstraintSpec {
  std::string name;        ///< unique within the problem, e.g. "g1"; names it in messages
  std::string expression;  ///< the inequality, over the names of the problem's parameters
};

/// Problem whose source treats some of its constraints as *known*: closed-form, checked before
/// evaluation, and formulated into the acquisition's model by solvers that can. The kernel adds
/// them to the study's known constraints automatically: one `constraint/polynomial`
/// component per spec, created from `expression` (so that model-based solvers can formulate
/// it and designs can project onto it), or, when that plugin is not loaded, one kernel-side
/// constraint that checks `known_values`. Both must therefore agree; the problem tests
/// compare them. These constraints are separate from the black-box `constraint_names()`.
class ARBO_SDK_API HasKnownConstraints {
 public:
  virtual ~HasKnownConstraints();
  /// The constraints, in a fixed order (the order of `known_values`). Called once per study.
  virtual std::vector<KnownConstraintSpec> known_constraints() const = 0;
  /// Writes g_k(x) for every known constraint at encoded point `x` into `out` (resized); the
  /// point satisfies constraint k iff out[k] <= 0 (for "==" constraints: |g_k| <= tolerance,
  /// the kernel's 1e-6 for a proposal). `x` is snapped and has the space's dimension; g_k is
  /// in the units of the expression (the same value the polynomial component computes).
  /// Pure function of x, O(size of the expressions).
  virtual void known_values(const Eigen::VectorXd& x, Eigen::VectorXd& out) const = 0;
};

}  // namespace arbo::sdk
