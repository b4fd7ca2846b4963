// SPDX-License-Identifier: MIT
/// @file
/// @brief Expanded multivariate polynomials over the coordinates of a search space.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <arbo/sdk/space.hpp>

namespace arbo::plugins {

/// A product of coordinates: the sorted multiset of their indices. `{}` is the constant 1,
/// `{0, 0, 3}` is x0^2 * x3.
using Monomial = std::vector<int>;

/// sum over terms of coefficient * monomial. Zero coefficients are never stored, so two
/// polynomials are equal iff their maps are, and the zero polynomial has no terms.
struct Polynomial {
  std::map<Monomial, double> terms;

  static Polynomial constant(double c);
  static Polynomial variable(int coordinate);

  /// True when no term has degree >= 1.
  bool is_constant() const;
  /// Coefficient of the empty monomial.
  double constant_term() const;
  /// Largest monomial degree; 0 for constants (and for the zero polynomial).
  int degree() const;
  /// Distinct coordinates that appear, ascending.
  std::vector<int> coordinates() const;
  /// Value with coordinate i set to `values[i]`.
  double evaluate(const std::vector<double>& values) const;
  /// Sum of |coefficient * monomial| at `values`: the scale of the rounding error of any
  /// evaluation of this polynomial, used to compare values computed in different orders.
  double magnitude(const std::vector<double>& values) const;
};

/// Term limit of `multiply`/`power`; the caller reports exceeding it.
inline constexpr std::size_t kMaxPolynomialTerms = 10000;
/// Work limit of `multiply`/`power`: products of two terms, each O(degree). A product of two
/// large factors whose result still has few terms would otherwise run for seconds.
inline constexpr std::size_t kMaxPolynomialProducts = 200000;

Polynomial add(const Polynomial& a, const Polynomial& b, double b_factor = 1.0);
/// `a = add(a, b, b_factor)` without copying `a`: O(|b| log |a|), so that a long sum is linear.
void add_to(Polynomial& a, const Polynomial& b, double b_factor = 1.0);
Polynomial scale(const Polynomial& a, double factor);
enum class Expansion { Ok, TooManyTerms, TooMuchWork };

/// Product. Anything but Ok leaves `out` unspecified: TooManyTerms when it would exceed
/// kMaxPolynomialTerms, TooMuchWork when `budget` (when given: the term products left, decreased
/// by one per product) runs out first.
Expansion multiply(const Polynomial& a, const Polynomial& b, Polynomial& out,
                   std::size_t* budget = nullptr);
/// a^e by repeated squaring, with the limits of `multiply`.
Expansion power(const Polynomial& a, int e, Polynomial& out, std::size_t* budget = nullptr);

/// Readable, re-parseable form with parameter names: "x0^2 + x1*x2 - 3*x3 - 25". Terms by
/// degree (highest first), then by coordinate; "0" for the zero polynomial.
std::string to_string(const Polynomial& p, const sdk::Space& space);

}  // namespace arbo::plugins
