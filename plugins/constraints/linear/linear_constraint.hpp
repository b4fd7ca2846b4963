// SPDX-License-Identifier: MIT
/// @file
/// @brief constraint/linear: linear rows a'x (<=, >=, ==) b over parameter names.
#pragma once

#include "polynomial_rows.hpp"

namespace arbo::plugins {

/// `rows` = "x1 + 2*x2 <= 3; x1 - x2 >= -1; x3 == 2": the syntax of constraint/polynomial
/// restricted to degree 1, several rows separated by ';'. Violation = the worst row.
class LinearConstraint final : public PolynomialRowsConstraint {
 public:
  /// @throws sdk::ParamError with key "rows" and a caret under the first error (a product or
  ///         power of parameters is a "non-linear term").
  explicit LinearConstraint(const sdk::CreateArgs& args);
  static const sdk::ParamSpecList& params();
};

}  // namespace arbo::plugins
