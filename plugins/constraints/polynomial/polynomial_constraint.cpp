// SPDX-License-Identifier: MIT
#include "polynomial_constraint.hpp"

namespace arbo::plugins {

const sdk::ParamSpecList& PolynomialConstraint::params() {
  static const sdk::ParamSpecList specs{sdk::ParamSpec::string(
      "expression",
      "The constraint over parameter names, e.g. \"x0^2 + x1*x2 - 3*x3 <= 25\": numbers, names "
      "of real/integer/binary parameters (in user units, also when log-scaled), + - * /, "
      "division by constants only, ^ with integer exponents 0..64, parentheses, and one of <=, "
      ">=, == (or =).",
      "")};
  return specs;
}

PolynomialConstraint::PolynomialConstraint(const sdk::CreateArgs& args)
    : PolynomialRowsConstraint(args, "constraint/polynomial", "expression", ParseOptions{},
                               "poly") {}

}  // namespace arbo::plugins
