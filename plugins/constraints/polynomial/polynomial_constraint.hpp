// SPDX-License-Identifier: MIT
/// @file
/// @brief constraint/polynomial: one polynomial (in)equality over parameter names.
#pragma once

#include "polynomial_rows.hpp"

namespace arbo::plugins {

/// `expression` = "x0^2 + x1*x2 - 3*x3 <= 25" (syntax in expression.hpp and the README),
/// parsed once at construction and normalized to p(x) <= 0 or p(x) == 0. Violation,
/// formulation (with degrees above 2 lifted to quadratics) and projection are those of
/// `PolynomialRowsConstraint`.
class PolynomialConstraint final : public PolynomialRowsConstraint {
 public:
  /// @throws sdk::ParamError with key "expression" and a caret under the first error.
  explicit PolynomialConstraint(const sdk::CreateArgs& args);
  static const sdk::ParamSpecList& params();
};

}  // namespace arbo::plugins
