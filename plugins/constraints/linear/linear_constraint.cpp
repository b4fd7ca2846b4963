// SPDX-License-Identifier: MIT
#include "linear_constraint.hpp"

namespace arbo::plugins {

const sdk::ParamSpecList& LinearConstraint::params() {
  static const sdk::ParamSpecList specs{sdk::ParamSpec::string(
      "rows",
      "Linear rows over parameter names separated by ';', e.g. \"x1 + 2*x2 <= 3; x1 - x2 >= -1; "
      "x3 == 2\": numbers, names of real/integer/binary parameters (in user units), + - * / "
      "with constant factors and divisors, parentheses, and one of <=, >=, == (or =) per row.",
      "")};
  return specs;
}

LinearConstraint::LinearConstraint(const sdk::CreateArgs& args)
    : PolynomialRowsConstraint(args, "constraint/linear", "rows",
                               ParseOptions{.max_degree = 1, .allow_list = true}, "lin") {}

}  // namespace arbo::plugins
