// SPDX-License-Identifier: MIT
// The expression parser shared by constraint/polynomial and constraint/linear: accepted
// forms, precedence, expansion, exponent rules, exact error messages, and evaluation.
#include <cmath>
#include <map>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "expression.hpp"
#include "polynomial.hpp"

namespace {

using namespace arbo;
using arbo::plugins::ExpressionError;
using arbo::plugins::Monomial;
using arbo::plugins::parse_constraints;
using arbo::plugins::ParseOptions;
using arbo::plugins::Polynomial;

// Coordinates: 0 x, 1 y, 2 z, 3 n, 4 b, 5 c, 6 lg, 7 li.
sdk::Space test_space() {
  return sdk::Space(
      {sdk::Parameter::real("x", -2.0, 3.0), sdk::Parameter::real("y", 0.0, 4.0),
       sdk::Parameter::real("z", -1.0, 1.0), sdk::Parameter::integer("n", 0, 8),
       sdk::Parameter::binary("b"), sdk::Parameter::categorical("c", {"red", "green", "blue"}),
       sdk::Parameter::real("lg", 0.01, 100.0, true), sdk::Parameter::integer("li", 1, 64, true)});
}

const sdk::Space& space() {
  static const sdk::Space s = test_space();
  return s;
}

constexpr ParseOptions kLinear{.max_degree = 1, .allow_list = true};

Polynomial poly(const std::string& text) {
  const auto rows = parse_constraints(text, space());
  EXPECT_EQ(rows.size(), 1u);
  return rows.at(0).polynomial();
}

using Terms = std::map<Monomial, double>;

void expect_poly(const std::string& text, const Terms& expected) {
  SCOPED_TRACE(text);
  const Polynomial p = poly(text);
  ASSERT_EQ(p.terms.size(), expected.size()) << plugins::to_string(p, space());
  for (const auto& [m, c] : expected) {
    const auto it = p.terms.find(m);
    ASSERT_NE(it, p.terms.end()) << "missing a monomial in " << plugins::to_string(p, space());
    EXPECT_NEAR(it->second, c, 1e-12 * std::max(1.0, std::abs(c)));
  }
}

// The formatted message of the first error, or "" when the text parses.
std::string error_of(const std::string& text, const ParseOptions& options = {}) {
  try {
    parse_constraints(text, space(), options);
  } catch (const ExpressionError& e) {
    return plugins::format_expression_error(text, e);
  }
  return "";
}

// --- accepted forms -------------------------------------------------------------------------

TEST(constraint_expression, comparisons_normalize_to_p_le_0) {
  expect_poly("x <= 1", {{{0}, 1.0}, {{}, -1.0}});
  expect_poly("x >= 1", {{{0}, -1.0}, {{}, 1.0}});
  expect_poly("1 >= x", {{{0}, 1.0}, {{}, -1.0}});
  expect_poly("x == y", {{{0}, 1.0}, {{1}, -1.0}});
  expect_poly("x = y", {{{0}, 1.0}, {{1}, -1.0}});
  EXPECT_FALSE(parse_constraints("x <= 1", space())[0].equality());
  EXPECT_FALSE(parse_constraints("x >= 1", space())[0].equality());
  EXPECT_TRUE(parse_constraints("x == 1", space())[0].equality());
  EXPECT_TRUE(parse_constraints("x = 1", space())[0].equality());
}

TEST(constraint_expression, whitespace_numbers_and_parameter_types) {
  expect_poly("x<=1", {{{0}, 1.0}, {{}, -1.0}});
  expect_poly("  x\n\t+ y\r\n <=  2 ", {{{0}, 1.0}, {{1}, 1.0}, {{}, -2.0}});
  expect_poly("1.5e3*x + 2E-2*y + .5*z + 3.*n + 1e+1*b <= 0",
              {{{0}, 1500.0}, {{1}, 0.02}, {{2}, 0.5}, {{3}, 3.0}, {{4}, 10.0}});
  expect_poly("lg + li <= 7", {{{6}, 1.0}, {{7}, 1.0}, {{}, -7.0}});
}

TEST(constraint_expression, precedence_and_associativity) {
  expect_poly("x + y*z <= 0", {{{0}, 1.0}, {{1, 2}, 1.0}});
  expect_poly("2*x^2 <= 0", {{{0, 0}, 2.0}});
  expect_poly("x - y - z <= 0", {{{0}, 1.0}, {{1}, -1.0}, {{2}, -1.0}});
  expect_poly("x/2/4 <= 0", {{{0}, 0.125}});
  expect_poly("2^3^2*x <= 0", {{{0}, 512.0}});  // right-associative: 2^(3^2)
  expect_poly("x*y^2 <= 0", {{{0, 1, 1}, 1.0}});
  expect_poly("(x*y)^2 <= 0", {{{0, 0, 1, 1}, 1.0}});
  expect_poly("12/4*x - 6/3 <= 0", {{{0}, 3.0}, {{}, -2.0}});
}

TEST(constraint_expression, unary_minus) {
  expect_poly("-x^2 <= 0", {{{0, 0}, -1.0}});  // -(x^2)
  expect_poly("(-x)^2 <= 0", {{{0, 0}, 1.0}});
  expect_poly("x - -y <= 0", {{{0}, 1.0}, {{1}, 1.0}});
  expect_poly("2*-x <= 0", {{{0}, -2.0}});
  expect_poly("--x <= 0", {{{0}, 1.0}});
  expect_poly("+x <= -1", {{{0}, 1.0}, {{}, 1.0}});
  expect_poly("-2^2 + x <= 0", {{{0}, 1.0}, {{}, -4.0}});
}

TEST(constraint_expression, nested_parentheses) {
  expect_poly("((x + (y - (z))))*2 <= 1", {{{0}, 2.0}, {{1}, 2.0}, {{2}, -2.0}, {{}, -1.0}});
  expect_poly("(((x)))^((2)) <= (((4)))", {{{0, 0}, 1.0}, {{}, -4.0}});
  std::string deep = "x";
  for (int i = 0; i < 150; ++i) deep = "(" + deep + ")";
  expect_poly(deep + " <= 1", {{{0}, 1.0}, {{}, -1.0}});
}

TEST(constraint_expression, expands_products_of_sums) {
  expect_poly("(x + y)*(x - y) <= 0", {{{0, 0}, 1.0}, {{1, 1}, -1.0}});
  expect_poly("(x + 1)^3 <= 0", {{{0, 0, 0}, 1.0}, {{0, 0}, 3.0}, {{0}, 3.0}, {{}, 1.0}});
  expect_poly(
      "(x + y + z)^2 <= 0",
      {{{0, 0}, 1.0}, {{1, 1}, 1.0}, {{2, 2}, 1.0}, {{0, 1}, 2.0}, {{0, 2}, 2.0}, {{1, 2}, 2.0}});
  expect_poly("x*(y + z) - x*y <= 0", {{{0, 2}, 1.0}});  // cancelled terms are dropped
  expect_poly("(x - 2.5)^2 + (y - 7.5)^2 <= 50",
              {{{0, 0}, 1.0}, {{0}, -5.0}, {{1, 1}, 1.0}, {{1}, -15.0}, {{}, 6.25 + 56.25 - 50}});
  expect_poly("(x + y)^2 - (x - y)^2 >= 0", {{{0, 1}, -4.0}});
  const Polynomial big = poly("(x + y + z + n)^6 <= 1");
  EXPECT_EQ(big.terms.size(), 84u + 1u);  // C(9, 3) monomials of degree 6, and the constant
  EXPECT_EQ(big.degree(), 6);
}

TEST(constraint_expression, exponent_rules) {
  expect_poly("x^0 + y <= 1", {{{1}, 1.0}});  // x^0 = 1
  expect_poly("x^1 <= 1", {{{0}, 1.0}, {{}, -1.0}});
  expect_poly("x^(1 + 1) <= 0", {{{0, 0}, 1.0}});
  expect_poly("x^(4/2) <= 0", {{{0, 0}, 1.0}});
  expect_poly("x^2.0 <= 0", {{{0, 0}, 1.0}});
  expect_poly("x^(y - y + 3) <= 0", {{{0, 0, 0}, 1.0}});  // constant after expansion
  expect_poly("0^0 + x <= 0", {{{0}, 1.0}, {{}, 1.0}});
  expect_poly("x^64 <= 1", {{Monomial(64, 0), 1.0}, {{}, -1.0}});
}

TEST(constraint_expression, lists_of_rows) {
  const auto rows = parse_constraints("x <= 1; y >= 2;", space(), kLinear);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].begin(), 0u);
  EXPECT_EQ(rows[0].end(), 6u);
  EXPECT_EQ(rows[1].begin(), 8u);
  EXPECT_EQ(rows[1].normalized(space()), "-y + 2 <= 0");
  EXPECT_EQ(parse_constraints(";; x <= 1 ;;\n y == 2", space(), kLinear).size(), 2u);
}

TEST(constraint_expression, normalized_form_is_readable_and_reparses) {
  const auto row = parse_constraints("x0 <= 1", sdk::Space({sdk::Parameter::real("x0", 0, 1)}));
  EXPECT_EQ(row[0].normalized(sdk::Space({sdk::Parameter::real("x0", 0, 1)})), "x0 - 1 <= 0");
  for (const std::string text :
       {"x^2 + y*z - 3*n <= 25", "(x - 0.1)^3 >= y/3", "x*y*z*n - b == 1e-5", "-x <= 0"}) {
    SCOPED_TRACE(text);
    const auto parsed = parse_constraints(text, space());
    const std::string normal = parsed[0].normalized(space());
    const auto again = parse_constraints(normal, space());
    EXPECT_EQ(again[0].polynomial().terms, parsed[0].polynomial().terms) << normal;
    EXPECT_EQ(again[0].equality(), parsed[0].equality());
  }
  EXPECT_EQ(parse_constraints("x^2 + y*z - 3*n <= 25", space())[0].normalized(space()),
            "x^2 + y*z - 3*n - 25 <= 0");
  EXPECT_EQ(parse_constraints("x*y >= 4", space())[0].normalized(space()), "-x*y + 4 <= 0");
  EXPECT_EQ(parse_constraints("x^3*y == 0.5*x", space())[0].normalized(space()),
            "x^3*y - 0.5*x == 0");
}

// --- errors -----------------------------------------------------------------------------------

TEST(constraint_expression_errors, names) {
  EXPECT_EQ(error_of("x + speed <= 1"),
            "unknown parameter 'speed' at column 5:\n"
            "  x + speed <= 1\n"
            "      ^");
  EXPECT_EQ(error_of("x + x9 <= 1"),
            "unknown parameter 'x9' (did you mean 'x'?) at column 5:\n"
            "  x + x9 <= 1\n"
            "      ^");
  EXPECT_EQ(error_of("x + 2*c <= 1"),
            "parameter 'c' is categorical: expressions can use real, integer and binary "
            "parameters only at column 7:\n"
            "  x + 2*c <= 1\n"
            "        ^");
}

TEST(constraint_expression_errors, division_and_exponents) {
  EXPECT_EQ(error_of("x / y <= 1"),
            "division by a non-constant (divisors must be constants) at column 3:\n"
            "  x / y <= 1\n"
            "    ^");
  EXPECT_EQ(error_of("x / (y - y) <= 1"),
            "division by zero at column 3:\n"
            "  x / (y - y) <= 1\n"
            "    ^");
  EXPECT_EQ(error_of("x^0.5 <= 1"),
            "non-integer exponent 0.5 (expected a non-negative integer) at column 2:\n"
            "  x^0.5 <= 1\n"
            "   ^");
  EXPECT_EQ(error_of("y + x^-2 <= 1"),
            "negative exponent -2 (expected a non-negative integer) at column 6:\n"
            "  y + x^-2 <= 1\n"
            "       ^");
  EXPECT_EQ(error_of("2^y <= 1"),
            "non-constant exponent (expected a non-negative integer) at column 2:\n"
            "  2^y <= 1\n"
            "   ^");
  EXPECT_EQ(error_of("x^65 <= 1"),
            "exponent 65 is above the maximum of 64 at column 2:\n"
            "  x^65 <= 1\n"
            "   ^");
  EXPECT_EQ(error_of("x^40*y^40 <= 1"),
            "degree 80 is above the maximum of 64 at column 5:\n"
            "  x^40*y^40 <= 1\n"
            "      ^");
  // 210 terms times 54 powers far enough apart that no two products meet: 11,340 terms.
  std::string powers;
  for (const char* v : {"x", "y", "z", "n", "lg", "li"}) {
    for (int e = 20; e <= 60; e += 5)
      powers += (powers.empty() ? "" : " + ") + std::string(v) + "^" + std::to_string(e);
  }
  const std::string wide = "(x + y + z + n + lg + li + 1)^4 * (" + powers + ") <= 1";
  EXPECT_EQ(error_of(wide).rfind("the expansion has more than 10000 terms at column 33:\n", 0), 0u)
      << error_of(wide);
}

// Found by bench/fuzz (fuzz_expression): a chain of sums or products is a tree as deep as the
// text is long, and a tower of powers nests without parentheses; both recursed once per
// operator and overflowed the stack (SIGSEGV) at 100,000 operators.
TEST(constraint_expression_limits, long_chains_are_parsed_expanded_and_evaluated_in_a_loop) {
  const int n = 100000;
  std::string sum = "x";
  std::string product = "2*x";
  for (int i = 1; i < n; ++i) {
    sum += i % 2 == 0 ? " + x" : " - y";
    product += i % 2 == 0 ? "*1" : "/1";
  }
  const auto sums = parse_constraints(sum + " <= 1", space());
  EXPECT_EQ(sums.at(0).normalized(space()), "50000*x - 50000*y - 1 <= 0");
  Eigen::VectorXd at = Eigen::VectorXd::Zero(8);
  at[0] = 1.0;
  at[1] = 2.0;
  EXPECT_EQ(sums.at(0).value(at), 50000.0 - 2 * 50000.0 - 1.0);
  EXPECT_EQ(sums.at(0).magnitude(at), 50000.0 + 2 * 50000.0 + 1.0);
  const auto products = parse_constraints(product + " <= 1", space());
  EXPECT_EQ(products.at(0).normalized(space()), "2*x - 1 <= 0");
  EXPECT_EQ(products.at(0).value(at), 1.0);
}

TEST(constraint_expression_limits, a_tower_of_powers_counts_as_nesting) {
  std::string tower = "x";
  for (int i = 0; i < 100000; ++i) tower += "^1";
  EXPECT_EQ(error_of(tower + " <= 1")
                .rfind("the expression is nested more than 200 levels deep at "
                       "column 402:",
                       0),
            0u)
      << error_of(tower + " <= 1").substr(0, 200);
  EXPECT_EQ(error_of("x^1^1^1 <= 1"), "");
}

// A product of two large factors stayed under the term limit and ran for seconds
// ((x+y+n+1)^16*(x+y+n+1)^16: 2.3 s; bench/fuzz found a power that took 14 s instrumented).
TEST(constraint_expression_limits, the_work_of_an_expansion_is_bounded) {
  // 924 terms times 924, refused before any of the 853,776 products.
  EXPECT_EQ(error_of("(x + y + z + n + lg + li + 1)^6 * (x + y + z + n + lg + li + 1)^6 <= 1"),
            "the expansion needs more than 200000 products of terms at column 33:\n"
            "  (x + y + z + n + lg + li + 1)^6 * (x + y + z + n + lg + li + 1)^6 <= 1\n"
            "                                  ^");
  // Its 16th power takes 245,025 products on the way: refused before the term limit is reached.
  EXPECT_EQ(error_of("(x + y + z + n + b)^20 <= 1"),
            "the expansion needs more than 200000 products of terms at column 20:\n"
            "  (x + y + z + n + b)^20 <= 1\n"
            "                     ^");
}

TEST(constraint_expression_errors, structure) {
  EXPECT_EQ(error_of("x + y"),
            "expected a comparison (<=, >= or ==) but found the end of the expression at column "
            "6:\n"
            "  x + y\n"
            "       ^");
  EXPECT_EQ(error_of("x y <= 1"),
            "expected an operator or a comparison (<=, >= or ==) but found 'y' at column 3:\n"
            "  x y <= 1\n"
            "    ^");
  EXPECT_EQ(error_of("x <= 1 <= 2"),
            "a constraint has one comparison but found a second '<=' at column 8:\n"
            "  x <= 1 <= 2\n"
            "         ^");
  EXPECT_EQ(error_of("(x + y <= 1"),
            "expected ')' to close the '(' at column 1 but found '<=' at column 8:\n"
            "  (x + y <= 1\n"
            "         ^");
  EXPECT_EQ(error_of("x + y) <= 1"),
            "unmatched ')' at column 6:\n"
            "  x + y) <= 1\n"
            "       ^");
  EXPECT_EQ(error_of("x <= (1))"),
            "unmatched ')' at column 9:\n"
            "  x <= (1))\n"
            "          ^");
  EXPECT_EQ(error_of("x + * y <= 1"),
            "expected a number, a parameter name or '(' but found '*' at column 5:\n"
            "  x + * y <= 1\n"
            "      ^");
  EXPECT_EQ(error_of("<= 1"),
            "expected a number, a parameter name or '(' but found '<=' at column 1:\n"
            "  <= 1\n"
            "  ^");
  EXPECT_EQ(error_of("x <= "),
            "expected a number, a parameter name or '(' but found the end of the expression at "
            "column 6:\n"
            "  x <= \n"
            "       ^");
  EXPECT_EQ(error_of("x - x <= 1"),
            "the constraint does not depend on any parameter at column 7:\n"
            "  x - x <= 1\n"
            "        ^");
  EXPECT_EQ(error_of("   "),
            "empty expression: expected a constraint such as \"x0^2 + x1*x2 <= 25\"");
  EXPECT_EQ(error_of(" ; ", kLinear),
            "no rows: expected rows such as \"x1 + 2*x2 <= 3; x1 - x2 >= -1\"");
  EXPECT_EQ(error_of("x <= 1; y <= 2"),
            "expected an operator or the end of the expression but found ';' at column 7:\n"
            "  x <= 1; y <= 2\n"
            "        ^");
  std::string deep = "x";
  for (int i = 0; i < 250; ++i) deep = "(" + deep + ")";
  EXPECT_EQ(error_of(deep + " <= 1").substr(0, 60),
            "the expression is nested more than 200 levels deep at column");
}

TEST(constraint_expression_errors, tokens) {
  EXPECT_EQ(error_of("x < 1"),
            "strict comparison '<' is not supported: use '<=' at column 3:\n"
            "  x < 1\n"
            "    ^");
  EXPECT_EQ(error_of("x > 1"),
            "strict comparison '>' is not supported: use '>=' at column 3:\n"
            "  x > 1\n"
            "    ^");
  EXPECT_EQ(error_of("x =< 1"),
            "unknown comparison '=<': use '<=' at column 3:\n"
            "  x =< 1\n"
            "    ^");
  EXPECT_EQ(error_of("x != 1"),
            "'!=' is not supported: a constraint uses one of <=, >=, == at column 3:\n"
            "  x != 1\n"
            "    ^");
  EXPECT_EQ(error_of("x $ 1"),
            "unexpected character '$' at column 3:\n"
            "  x $ 1\n"
            "    ^");
  EXPECT_EQ(error_of("x ≤ 1"),
            "unexpected character '≤' at column 3:\n"
            "  x ≤ 1\n"
            "    ^");
  EXPECT_EQ(error_of("x ** 2 <= 1"),
            "expected a number, a parameter name or '(' but found '*' at column 4:\n"
            "  x ** 2 <= 1\n"
            "     ^");
  EXPECT_EQ(error_of("1e <= x"),
            "malformed number '1e': expected digits after the exponent 'e' at column 2:\n"
            "  1e <= x\n"
            "   ^");
  EXPECT_EQ(error_of("1.2.3*x <= 1"),
            "malformed number '1.2.3': a second '.' at column 4:\n"
            "  1.2.3*x <= 1\n"
            "     ^");
  EXPECT_EQ(error_of("2x <= 1"),
            "expected an operator after the number '2' but found 'x' (write 2*x) at column 2:\n"
            "  2x <= 1\n"
            "   ^");
  EXPECT_EQ(error_of("1e999*x <= 1"),
            "number '1e999' is out of range at column 1:\n"
            "  1e999*x <= 1\n"
            "  ^");
}

TEST(constraint_expression_errors, linear_rows) {
  EXPECT_EQ(error_of("x + y*z <= 1", kLinear),
            "non-linear term: product of two non-constant factors (a linear row allows only "
            "constant multiples of parameters) at column 6:\n"
            "  x + y*z <= 1\n"
            "       ^");
  EXPECT_EQ(error_of("x <= 1; 2*y^2 >= 1", kLinear),
            "non-linear term: power of a non-constant (a linear row allows only constant "
            "multiples of parameters) at column 12:\n"
            "  x <= 1; 2*y^2 >= 1\n"
            "             ^");
  EXPECT_EQ(error_of("x <= 1;\n\ty / z >= 1", kLinear),
            "division by a non-constant (divisors must be constants) at line 2, column 4:\n"
            "   y / z >= 1\n"
            "     ^");
  EXPECT_EQ(error_of("x <= 1 y <= 2", kLinear),
            "expected an operator, ';' or the end of the rows but found 'y' at column 8:\n"
            "  x <= 1 y <= 2\n"
            "         ^");
  // Constant factors and divisors stay linear, as do powers of constants.
  EXPECT_EQ(error_of("2^3*x/4 - (y + 1)*3 + x^1 <= 1", kLinear), "");
}

// --- evaluation -------------------------------------------------------------------------------

Eigen::VectorXd point(double x, double y, double z, double n, double b, double c, double lg,
                      double li) {
  Eigen::VectorXd v(8);
  v << x, y, z, n, b, c, std::log(lg), std::log(li);
  return v;
}

double value(const std::string& text, const Eigen::VectorXd& x) {
  return parse_constraints(text, space())[0].value(x);
}

TEST(constraint_expression_eval, hand_computed_values) {
  const Eigen::VectorXd p = point(1.5, 2.0, -0.5, 3.0, 1.0, 2.0, 1.0, 1.0);
  // 2.25 - 1 - 9 - 25
  EXPECT_DOUBLE_EQ(value("x^2 + y*z - 3*n <= 25", p), -32.75);
  EXPECT_DOUBLE_EQ(value("x*y >= 4", p), 1.0);    // 4 - 3
  EXPECT_DOUBLE_EQ(value("x + y == 1", p), 2.5);  // 3.5 - 1
  EXPECT_DOUBLE_EQ(value("(x - 2.5)^2 + (y - 7.5)^2 <= 50", p), 1.0 + 30.25 - 50.0);
  EXPECT_DOUBLE_EQ(value("n/4 - b*z >= 0", p), -(0.75 + 0.5));
  EXPECT_DOUBLE_EQ(value("-(x - 1)^3*4 <= 2*y", p), -0.5 - 4.0);  // -(0.125)*4 - 4
  EXPECT_DOUBLE_EQ(value("x^0 <= y", p), 1.0 - 2.0);
}

TEST(constraint_expression_eval, log_scaled_parameters_in_user_units) {
  const Eigen::VectorXd p = point(0, 0, 0, 0, 0, 0, 3.0, 8.0);
  EXPECT_NEAR(value("2*lg <= 10", p), -4.0, 1e-12);
  EXPECT_NEAR(value("li^2 >= 60", p), 60.0 - 64.0, 1e-12);
  EXPECT_NEAR(value("lg*li == 20", p), 4.0, 1e-12);
  // The encoded coordinate is ln(value): ln(7) encodes 7.
  Eigen::VectorXd q = p;
  q[6] = std::log(7.0);
  EXPECT_NEAR(value("2*lg <= 10", q), 4.0, 1e-12);
}

TEST(constraint_expression_eval, tree_agrees_with_expansion_at_random_points) {
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (const std::string text :
       {"(x + y + z)^3 - 2*(x*y - n)^2 <= 3.5", "(x - 0.3)*(y + 1.7)*(z - n/3) >= b - 1",
        "x^5 - 4*x^3*y + (2*z - 1)^4 == 2e-3", "(lg + 2*li)^2/7 <= x*lg"}) {
    SCOPED_TRACE(text);
    const auto row = parse_constraints(text, space())[0];
    for (int k = 0; k < 100; ++k) {
      Eigen::VectorXd unit(8);
      for (int i = 0; i < 8; ++i) unit[i] = u(rng);
      const Eigen::VectorXd x = space().from_unit(unit);
      std::vector<double> user(8);
      for (int i = 0; i < 8; ++i) user[i] = space()[i].log_scale ? std::exp(x[i]) : x[i];
      const double expanded = row.polynomial().evaluate(user);
      const double scale = std::max(1.0, row.polynomial().magnitude(user));
      EXPECT_NEAR(row.value(x), expanded, 1e-12 * scale);
    }
  }
}

}  // namespace
