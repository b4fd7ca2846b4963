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
  std::string name;
  std::string expression;
};

/// Problem whose source treats some of its constraints as *known*: closed-form, checked before
/// evaluation, and formulated into the acquisition's model by solvers that can. The kernel adds
/// them to the study's known constraints automatically.
class ARBO_SDK_API HasKnownConstraints {
 public:
  virtual ~HasKnownConstraints();
  /// The constraints, in a fixed order.
  virtual std::vector<KnownConstraintSpec> known_constraints() const = 0;
  /// Writes g_k(x) for every known constraint at encoded point `x` into `out` (resized); the
  /// point satisfies constraint k iff out[k] <= 0 (for "==" constraints: |g_k| <= tolerance).
  virtual void known_values(const Eigen::VectorXd& x, Eigen::VectorXd& out) const = 0;
};

}  // namespace arbo::sdk
