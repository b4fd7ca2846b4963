// SPDX-License-Identifier: MIT
/// @file
/// @brief Parser of polynomial constraints over parameter names (the syntax of
/// `sdk::KnownConstraintSpec`), shared by constraint/polynomial and constraint/linear.
///
/// Grammar (whitespace is free; `;` separates constraints only where a list is allowed):
/// @code
///   list       := constraint { ";" constraint } [ ";" ]
///   constraint := sum ( "<=" | ">=" | "==" | "=" ) sum
///   sum        := product { ( "+" | "-" ) product }
///   product    := unary { ( "*" | "/" ) unary }
///   unary      := ( "+" | "-" ) unary | power
///   power      := atom [ "^" unary ]               (right-associative: 2^3^2 = 2^9)
///   atom       := number | name | "(" sum ")"
///   number     := digits [ "." digits ] [ ( "e" | "E" ) [ "+" | "-" ] digits ]  (or "." digits)
///   name       := ( letter | "_" ) { letter | digit | "_" }
/// @endcode
/// so `-x^2` is `-(x^2)`, `2*-x` is allowed, and `a - b - c` is `(a - b) - c`. Semantic rules:
/// a divisor must expand to a non-zero constant; an exponent must expand to an integer
/// constant in [0, 64]; a name must be a Real, Integer or Binary parameter of the space.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Core>
#include <arbo/sdk/space.hpp>

#include "polynomial.hpp"

namespace arbo::plugins {

/// A syntax or semantic error at a 0-based byte offset of the source text (`npos` when the
/// error is about the text as a whole). `what()` is the bare reason, e.g.
/// "unknown parameter 'x9'"; `format_expression_error` adds the caret display.
class ExpressionError : public std::runtime_error {
 public:
  ExpressionError(std::size_t column, const std::string& what)
      : std::runtime_error(what), column_(column) {}
  std::size_t column() const noexcept { return column_; }

 private:
  std::size_t column_;
};

/// "<what> at column <c>:\n  <source line>\n  <spaces>^" (with "line <l>, " for multi-line
/// sources); just <what> when the error has no column.
std::string format_expression_error(std::string_view text, const ExpressionError& error);

/// Largest exponent and degree accepted by default.
inline constexpr int kMaxExponent = 64;

struct ParseOptions {
  /// Largest degree of any sub-expression; 1 restricts the input to linear rows and reports
  /// products and powers of non-constants as "non-linear term" errors.
  int max_degree = kMaxExponent;
  /// Accept a `;`-separated list of constraints instead of exactly one.
  bool allow_list = false;
};

/// One node of a parsed expression tree; children are indices into the same arena.
struct ExprNode {
  enum class Op : std::uint8_t { Number, Coordinate, LogCoordinate, Neg, Add, Sub, Mul, Div, Pow };
  Op op = Op::Number;
  int a = -1;
  int b = -1;
  double number = 0.0;  ///< Number
  int coordinate = -1;  ///< Coordinate, LogCoordinate
  int exponent = 0;     ///< Pow, after validation
  std::size_t column = 0;
  /// Add/Sub and Mul/Div: `a op b op c ...` is a left-deep tree as deep as the text is long.
  /// Its nodes are linked so that it is walked in a loop, bottom up: `first` is the chain's
  /// lowest node (whose `a` is the chain's first operand), `up` the node above (-1 at the top).
  int first = -1;
  int up = -1;
};

/// One constraint `lhs <op> rhs`, normalized to p(x) <= 0 or p(x) == 0 with p = lhs - rhs
/// (rhs - lhs for ">=").
class ParsedConstraint {
 public:
  /// p at encoded point `x`, evaluated on the parse tree (so factored forms keep their
  /// accuracy) in user units: a log-scaled coordinate enters as exp(x_i). O(size of the text).
  double value(const Eigen::VectorXd& x) const;
  /// The same evaluation with every operand and term taken by its absolute value: the scale
  /// of value()'s rounding error (value() is exact up to a few ulps of this). O(size of the
  /// text).
  double magnitude(const Eigen::VectorXd& x) const;
  /// The expanded p.
  const Polynomial& polynomial() const noexcept { return polynomial_; }
  bool equality() const noexcept { return equality_; }
  /// Byte offsets of the constraint in the source text.
  std::size_t begin() const noexcept { return begin_; }
  std::size_t end() const noexcept { return end_; }
  /// "p <= 0" or "p == 0" with parameter names.
  std::string normalized(const sdk::Space& space) const;

 private:
  friend class ExpressionParser;
  double eval(int node, const Eigen::VectorXd& x, bool magnitude) const;

  std::vector<ExprNode> nodes_;
  int lhs_ = -1;
  int rhs_ = -1;
  bool flip_ = false;  // ">=": p = rhs - lhs
  bool equality_ = false;
  Polynomial polynomial_;
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
};

/// Parses `text` against the parameter names of `space`.
/// @throws ExpressionError at the first error.
std::vector<ParsedConstraint> parse_constraints(std::string_view text, const sdk::Space& space,
                                                const ParseOptions& options = {});

}  // namespace arbo::plugins
