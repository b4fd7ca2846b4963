// SPDX-License-Identifier: MIT
// CPLEX LP files in and out: round trips of random models, hand-written snippets of every
// construct, and error messages with line numbers.
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "arbo/sdk/error.hpp"
#include "arbo/sdk/model_io.hpp"
#include "random_models.hpp"

namespace arbo::sdk {
namespace {

using test::QuadKind;
using test::RandomModelSpec;

std::string read_error(const std::string& text, const std::string& source = "bad.lp") {
  try {
    read_lp(text, source);
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected InvalidArgument for:\n" << text;
  return {};
}

void expect_contains(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << "'" << part << "' not in: " << text;
}

double scale_of(double a, double b) { return std::max({1.0, std::abs(a), std::abs(b)}); }

// Both models must agree on every point: objective, violations and row activities (the reader
// keeps the row order). Summation order may differ after duplicate terms are merged.
void expect_same_values(const Model& a, const Model& b, std::mt19937_64& rng, int points = 20) {
  ASSERT_EQ(a.num_variables(), b.num_variables());
  ASSERT_EQ(a.linear_rows().size(), b.linear_rows().size());
  ASSERT_EQ(a.quadratic_rows().size(), b.quadratic_rows().size());
  for (int p = 0; p < points; ++p) {
    const std::vector<double> x = test::random_point(rng, a);
    const ModelEvaluation ea = a.evaluate(x);
    const ModelEvaluation eb = b.evaluate(x);
    EXPECT_NEAR(ea.objective, eb.objective, 1e-12 * scale_of(ea.objective, eb.objective) * 1e3);
    EXPECT_EQ(ea.max_bound_violation, eb.max_bound_violation);
    EXPECT_EQ(ea.max_integrality_violation, eb.max_integrality_violation);
    EXPECT_NEAR(ea.max_row_violation, eb.max_row_violation,
                1e-9 * scale_of(ea.max_row_violation, eb.max_row_violation));
    for (std::size_t k = 0; k < ea.linear_activity.size(); ++k) {
      EXPECT_NEAR(ea.linear_activity[k], eb.linear_activity[k],
                  1e-9 * scale_of(ea.linear_activity[k], eb.linear_activity[k]));
    }
    for (std::size_t k = 0; k < ea.quadratic_activity.size(); ++k) {
      EXPECT_NEAR(ea.quadratic_activity[k], eb.quadratic_activity[k],
                  1e-9 * scale_of(ea.quadratic_activity[k], eb.quadratic_activity[k]));
    }
  }
}

bool valid_name(const std::string& n) {
  static const std::string specials = "!\"#$%&()/,.;?@_'`{}|~";
  if (n.empty() || n.size() > 255) return false;
  if (std::isdigit(static_cast<unsigned char>(n[0])) || n[0] == '.' || n[0] == '/') return false;
  for (char c : n) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && specials.find(c) == std::string::npos) {
      return false;
    }
  }
  return true;
}

// write -> read -> write gives the same text, the same variables in the same order, and the
// same values everywhere.
void check_round_trip(const Model& m, std::mt19937_64& rng, bool check_convexity) {
  const std::string text = write_lp(m);
  SCOPED_TRACE(text);
  const Model r = read_lp(text, "round_trip.lp");
  EXPECT_EQ(write_lp(r), text);
  ASSERT_EQ(r.num_variables(), m.num_variables());
  std::set<std::string> names;
  for (std::size_t i = 0; i < m.num_variables(); ++i) {
    const Variable& a = m.variables()[i];
    const Variable& b = r.variables()[i];
    EXPECT_TRUE(valid_name(b.name)) << b.name;
    EXPECT_TRUE(names.insert(b.name).second) << "duplicate " << b.name;
    const bool binary01 = a.type == VarType::Binary && a.lower == 0.0 && a.upper == 1.0;
    EXPECT_EQ(b.type, a.type == VarType::Binary && !binary01 ? VarType::Integer : a.type) << i;
    EXPECT_EQ(b.lower, a.lower) << i;
    EXPECT_EQ(b.upper, a.upper) << i;
  }
  EXPECT_EQ(r.objective().sense, m.objective().sense);
  EXPECT_EQ(r.objective().constant, m.objective().constant);
  if (check_convexity) {
    for (std::size_t k = 0; k < m.quadratic_rows().size(); ++k) {
      EXPECT_EQ(r.quadratic_rows()[k].convex, m.quadratic_rows()[k].convex) << k;
    }
  }
  expect_same_values(m, r, rng);
}

class RoundTrip : public ::testing::TestWithParam<int> {};

TEST_P(RoundTrip, Linear) {
  std::mt19937_64 rng(1000 + static_cast<unsigned>(GetParam()));
  RandomModelSpec spec;
  spec.variables = 1 + GetParam() % 12;
  spec.linear_rows = GetParam() % 7;
  check_round_trip(test::random_model(rng, spec), rng, true);
}

TEST_P(RoundTrip, Milp) {
  std::mt19937_64 rng(2000 + static_cast<unsigned>(GetParam()));
  RandomModelSpec spec;
  spec.variables = 2 + GetParam() % 15;
  spec.linear_rows = 1 + GetParam() % 6;
  spec.integers = true;
  check_round_trip(test::random_model(rng, spec), rng, true);
}

TEST_P(RoundTrip, ConvexQuadratic) {
  std::mt19937_64 rng(3000 + static_cast<unsigned>(GetParam()));
  RandomModelSpec spec;
  spec.variables = 2 + GetParam() % 8;
  spec.linear_rows = GetParam() % 3;
  spec.quadratic_rows = 1 + GetParam() % 3;
  spec.integers = GetParam() % 2 == 0;
  spec.quad = QuadKind::Convex;
  spec.quadratic_objective = GetParam() % 3 != 0;
  check_round_trip(test::random_model(rng, spec), rng, true);
}

TEST_P(RoundTrip, NonconvexQuadratic) {
  std::mt19937_64 rng(4000 + static_cast<unsigned>(GetParam()));
  RandomModelSpec spec;
  spec.variables = 2 + GetParam() % 8;
  spec.linear_rows = GetParam() % 3;
  spec.quadratic_rows = 1 + GetParam() % 3;
  spec.integers = GetParam() % 2 == 1;
  spec.quad = QuadKind::Nonconvex;
  spec.quadratic_objective = true;
  check_round_trip(test::random_model(rng, spec), rng, true);
}

INSTANTIATE_TEST_SUITE_P(Seeds, RoundTrip, ::testing::Range(0, 25));

TEST(ModelIo, LargeModelWrapsLinesAndKeepsOrder) {
  std::mt19937_64 rng(7);
  RandomModelSpec spec;
  spec.variables = 300;
  spec.linear_rows = 40;
  spec.integers = true;
  const Model m = test::random_model(rng, spec);
  const std::string text = write_lp(m);
  std::size_t start = 0, longest = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    longest = std::max(longest, (end == std::string::npos ? text.size() : end) - start);
    start = end == std::string::npos ? text.size() : end + 1;
  }
  // Only a single name can make a line longer than the wrapping width.
  EXPECT_LE(longest, 100u + 255u + 10u);
  check_round_trip(m, rng, true);
}

TEST(ModelIo, ObjectiveConstantIsAFixedVariable) {
  Model m;
  const int x = m.add_variable("x", VarType::Continuous, 0, 4);
  m.add_linear_row({"c", {{x, 1}}, RowSense::GreaterEqual, 1});
  m.set_objective({ObjectiveSense::Minimize, {{x, 2}}, {}, -7.25});
  const std::string text = write_lp(m);
  expect_contains(text, "obj: 2 x - 7.25 obj_constant\n");
  expect_contains(text, " obj_constant = 1\n");
  const Model r = read_lp(text);
  ASSERT_EQ(r.num_variables(), 1u);
  EXPECT_EQ(r.objective().constant, -7.25);
  ASSERT_EQ(r.objective().linear.size(), 1u);
  // A variable named obj_constant that does not follow the convention stays a variable.
  const Model s = read_lp(
      "Minimize\n obj: x + 3 obj_constant\nSubject To\n c: obj_constant + x >= 1\nBounds\n"
      " obj_constant = 1\nEnd\n");
  EXPECT_EQ(s.num_variables(), 2u);
  EXPECT_EQ(s.objective().constant, 0.0);
  // A model variable of that name is renamed, so the convention cannot capture it.
  Model t;
  t.add_variable("obj_constant", VarType::Continuous, 1, 1);
  t.set_objective({ObjectiveSense::Minimize, {{0, 3}}, {}, 0.0});
  const Model u = read_lp(write_lp(t));
  ASSERT_EQ(u.num_variables(), 1u);
  EXPECT_EQ(u.variables()[0].name, "_obj_constant");
}

// The offset travels as a comment: the objective (and GLPK's reading of it) stays as written.
TEST(ModelIo, ObjectiveOffsetIsAComment) {
  Model m;
  const int x = m.add_variable("x", VarType::Continuous, 0, 4);
  m.add_linear_row({"c", {{x, 1}}, RowSense::GreaterEqual, 1});
  Objective o{ObjectiveSense::Maximize, {{x, 2}}, {}, 0.1 + 0.2};
  o.offset = -1.0 / 3.0;
  m.set_objective(o);
  const std::string text = write_lp(m);
  expect_contains(text, "\\ arbo objective offset: -0.3333333333333333\nMaximize\n");
  expect_contains(text, "obj: 2 x + 0.30000000000000004 obj_constant\n");
  const Model r = read_lp(text);
  EXPECT_EQ(r.objective().constant, 0.1 + 0.2);
  EXPECT_EQ(r.objective().offset, -1.0 / 3.0);
  EXPECT_EQ(write_lp(r), text);
  // None declared: no comment, and NaN read back; a comment after a token is only a comment.
  EXPECT_TRUE(
      std::isnan(read_lp(write_lp(read_lp("Minimize\n obj: x\nEnd\n"))).objective().offset));
  EXPECT_TRUE(std::isnan(
      read_lp("Minimize\n obj: x \\ arbo objective offset: 2\nEnd\n").objective().offset));
  EXPECT_EQ(read_lp("  \\ arbo objective offset: 0 \nMinimize\n obj: x\nEnd\n").objective().offset,
            0.0);
}

TEST(ModelIo, ModelWithoutRowsOrVariables) {
  Model m;
  m.add_variable("x", VarType::Integer, -2, 3);
  m.set_objective({ObjectiveSense::Maximize, {{0, 1}}, {}, 0.0});
  const std::string text = write_lp(m);
  expect_contains(text, "Subject To\n no_constraints: 0 x >= 0\n");
  const Model r = read_lp(text);
  EXPECT_TRUE(r.linear_rows().empty());
  EXPECT_EQ(write_lp(r), text);

  const Model empty;
  const std::string e = write_lp(empty);
  const Model re = read_lp(e);
  EXPECT_EQ(re.num_variables(), 0u);
  EXPECT_EQ(write_lp(re), e);

  Model only_rows;  // rows without variables: constants only
  only_rows.add_linear_row({"c", {}, RowSense::GreaterEqual, 3});
  const Model ro = read_lp(write_lp(only_rows));
  ASSERT_EQ(ro.linear_rows().size(), 1u);
  EXPECT_EQ(ro.linear_rows()[0].rhs, 3.0);
}

TEST(ModelIo, ConcaveGreaterEqualRowIsStoredAsConvexLessEqual) {
  std::mt19937_64 rng(11);
  Model m;
  const int x = m.add_variable("x", VarType::Continuous, -kInfinity, kInfinity);
  const int y = m.add_variable("y", VarType::Continuous, -kInfinity, kInfinity);
  // -(x^2 + xy + y^2) + x >= -3: the negation is convex.
  m.add_quadratic_row(
      {"disk", {{x, x, -1}, {x, y, -1}, {y, y, -1}}, {{x, 1}}, RowSense::GreaterEqual, -3, false});
  const std::string text = write_lp(m);
  const Model r = read_lp(text);
  ASSERT_EQ(r.quadratic_rows().size(), 1u);
  const QuadraticRow& q = r.quadratic_rows()[0];
  EXPECT_TRUE(q.convex);
  EXPECT_EQ(q.sense, RowSense::LessEqual);
  EXPECT_EQ(q.rhs, 3.0);
  EXPECT_EQ(q.quad[0].coef, 1.0);
  EXPECT_EQ(q.linear[0].coef, -1.0);
  // The normalized text is a fixed point; values agree except for the activity's sign.
  EXPECT_EQ(write_lp(read_lp(write_lp(r))), write_lp(r));
  for (int p = 0; p < 10; ++p) {
    const auto pt = test::random_point(rng, m);
    EXPECT_DOUBLE_EQ(m.evaluate(pt).max_row_violation, r.evaluate(pt).max_row_violation);
  }
}

// ---- hand-written snippets

TEST(ModelIoRead, LinearWithCommentsContinuationAndConstants) {
  const Model m = read_lp(R"(\ A comment line
\* GLPK-style comment *\
MINIMIZE
 cost: 2 x + 3.5 y   \ trailing comment
   - z + 4
subject to
 c1: x + y
     + z >= 2
 c2: 3 x - y + 5 <= 10 \ the constant moves: rhs 5
 -x + 2 z = 1
 c4: x =< 7
 c5: y => -1
 c6: z < 9
 c7: z > -9
End
this text after End is ignored
)");
  ASSERT_EQ(m.num_variables(), 3u);
  EXPECT_EQ(m.variables()[0].name, "x");
  EXPECT_EQ(m.variables()[1].name, "y");
  EXPECT_EQ(m.variables()[2].name, "z");
  EXPECT_EQ(m.objective().sense, ObjectiveSense::Minimize);
  EXPECT_EQ(m.objective().constant, 4.0);
  ASSERT_EQ(m.objective().linear.size(), 3u);
  EXPECT_EQ(m.objective().linear[1].coef, 3.5);
  EXPECT_EQ(m.objective().linear[2].coef, -1.0);
  ASSERT_EQ(m.linear_rows().size(), 7u);
  const LinearRow& c1 = m.linear_rows()[0];
  EXPECT_EQ(c1.name, "c1");
  EXPECT_EQ(c1.terms.size(), 3u);
  EXPECT_EQ(c1.sense, RowSense::GreaterEqual);
  EXPECT_EQ(c1.rhs, 2.0);
  EXPECT_EQ(m.linear_rows()[1].rhs, 5.0);
  EXPECT_EQ(m.linear_rows()[1].sense, RowSense::LessEqual);
  EXPECT_EQ(m.linear_rows()[2].name, "");  // unnamed
  EXPECT_EQ(m.linear_rows()[2].sense, RowSense::Equal);
  EXPECT_EQ(m.linear_rows()[2].terms[0].coef, -1.0);
  EXPECT_EQ(m.linear_rows()[3].sense, RowSense::LessEqual);
  EXPECT_EQ(m.linear_rows()[4].sense, RowSense::GreaterEqual);
  EXPECT_EQ(m.linear_rows()[4].rhs, -1.0);
  EXPECT_EQ(m.linear_rows()[5].sense, RowSense::LessEqual);
  EXPECT_EQ(m.linear_rows()[6].sense, RowSense::GreaterEqual);
  EXPECT_TRUE(m.is_linear());
}

TEST(ModelIoRead, ConstraintKeywordSpellings) {
  for (const char* st : {"Subject To", "such that", "st", "S.T.", "st."}) {
    const Model m = read_lp(fmt::format("max\n obj: x\n{}\n c: x <= 1\nend\n", st));
    EXPECT_EQ(m.linear_rows().size(), 1u) << st;
    EXPECT_EQ(m.objective().sense, ObjectiveSense::Maximize) << st;
  }
  for (const char* word : {"Minimize", "minimise", "minimum", "MIN"}) {
    EXPECT_EQ(read_lp(fmt::format("{}\n obj: x\nst\n c: x >= 1\nEnd\n", word)).objective().sense,
              ObjectiveSense::Minimize);
  }
  for (const char* word : {"Maximize", "maximise", "Maximum", "max"}) {
    EXPECT_EQ(read_lp(fmt::format("{} obj: x\nst\n c: x <= 1\nEnd\n", word)).objective().sense,
              ObjectiveSense::Maximize);
  }
}

TEST(ModelIoRead, QuadraticConstraints) {
  const Model m = read_lp(R"(Minimize
 obj: x + y
Subject To
 c1: 3 x + [ x ^ 2 + 2 x * y ] <= 4
 ball: [ x ^ 2 + y ^ 2 ] <= 1
 cap: - [ x ^ 2 + y ^ 2 ] + x >= -2
 eq: [ x * y ] = 1
 two: [ x ^ 2 ] + [ 0.5 y ^ 2 ] + 2 y - 1 <= 3
End
)");
  ASSERT_EQ(m.quadratic_rows().size(), 5u);
  ASSERT_TRUE(m.linear_rows().empty());
  const QuadraticRow& c1 = m.quadratic_rows()[0];
  EXPECT_EQ(c1.name, "c1");
  ASSERT_EQ(c1.quad.size(), 2u);
  EXPECT_EQ(c1.quad[0].var1, 0);
  EXPECT_EQ(c1.quad[0].var2, 0);
  EXPECT_EQ(c1.quad[0].coef, 1.0);
  EXPECT_EQ(c1.quad[1].var1, 0);
  EXPECT_EQ(c1.quad[1].var2, 1);
  EXPECT_EQ(c1.quad[1].coef, 2.0);
  ASSERT_EQ(c1.linear.size(), 1u);
  EXPECT_EQ(c1.linear[0].coef, 3.0);
  EXPECT_EQ(c1.rhs, 4.0);
  EXPECT_FALSE(c1.convex);  // [[1 1] [1 0]] is indefinite
  EXPECT_TRUE(m.quadratic_rows()[1].convex);
  // A >= row whose negation is convex becomes `x^2 + y^2 - x <= 2`.
  const QuadraticRow& cap = m.quadratic_rows()[2];
  EXPECT_TRUE(cap.convex);
  EXPECT_EQ(cap.sense, RowSense::LessEqual);
  EXPECT_EQ(cap.rhs, 2.0);
  EXPECT_EQ(cap.quad[0].coef, 1.0);
  EXPECT_EQ(cap.linear[0].coef, -1.0);
  EXPECT_FALSE(m.quadratic_rows()[3].convex);
  EXPECT_EQ(m.quadratic_rows()[3].sense, RowSense::Equal);
  const QuadraticRow& two = m.quadratic_rows()[4];
  EXPECT_EQ(two.quad.size(), 2u);
  EXPECT_EQ(two.quad[1].coef, 0.5);
  EXPECT_EQ(two.rhs, 4.0);
  EXPECT_TRUE(two.convex);
}

TEST(ModelIoRead, ConvexityUsesTheHessianWithATolerance) {
  // x^2 - 2xy + y^2 = (x - y)^2 is PSD with a zero eigenvalue; a rounding error below the
  // tolerance keeps it convex, a real negative eigenvalue does not.
  const auto convex = [](const std::string& bracket) {
    return read_lp("Minimize\n obj: x\nSubject To\n q: [ " + bracket + " ] <= 1\nEnd\n")
        .quadratic_rows()[0]
        .convex;
  };
  EXPECT_TRUE(convex("x ^ 2 - 2 x * y + y ^ 2"));
  EXPECT_TRUE(convex("x ^ 2 - 2.0000000000001 x * y + y ^ 2"));
  EXPECT_FALSE(convex("x ^ 2 - 2.001 x * y + y ^ 2"));
  EXPECT_FALSE(convex("- x ^ 2"));
  EXPECT_TRUE(convex("x ^ 2 + y * x + y ^ 2 + 0 z ^ 2"));
}

// Rows of thousands of variables: separate squares, many small coupled groups and one long
// coupled chain, which the dense test of the whole matrix took seconds to minutes on (O(n^3)).
TEST(ModelIoRead, ConvexityOfLargeRowsIsDecidedPerCoupledBlock) {
  const auto convex = [](const std::function<std::string(int)>& term, int n) {
    std::string bracket = term(0);
    for (int i = 1; i < n; ++i) bracket += " + " + term(i);
    return read_lp("Minimize\n obj: x0\nSubject To\n q: [ " + bracket + " ] <= 1\nEnd\n")
        .quadratic_rows()[0]
        .convex;
  };
  const auto x = [](int i) { return "x" + std::to_string(i); };
  // 5,000 separate squares.
  EXPECT_TRUE(convex([&](int i) { return x(i) + " ^ 2"; }, 5000));
  // 2,500 pairs, each (a + b)^2 + a^2; then one pair made indefinite.
  const auto pair = [&](int i, double c) {
    return fmt::format("2 {0} ^ 2 + {2} {0} * {1} + {1} ^ 2", x(2 * i), x(2 * i + 1), c);
  };
  EXPECT_TRUE(convex([&](int i) { return pair(i, 2.0); }, 2500));
  EXPECT_FALSE(convex([&](int i) { return pair(i, i == 1700 ? 3.0 : 2.0); }, 2500));
  // Band matrices with diagonal a, 2 next to it and 1 one further out: the symbol
  // a + 4 cos t + 2 cos 2t has its minimum a - 3, so a = 3.5 is positive definite and a = 2.5
  // indefinite, and neither is diagonally dominant (6 > a). 3,000 variables go to the sparse
  // factorization, 600 to the dense eigenvalues.
  const auto band = [&](double a, int n) {
    return [&x, a, n](int i) {
      std::string t = fmt::format("{} {} ^ 2", a, x(i));
      if (i + 1 < n) t += fmt::format(" + 4 {} * {}", x(i), x(i + 1));
      if (i + 2 < n) t += fmt::format(" + 2 {} * {}", x(i), x(i + 2));
      return t;
    };
  };
  EXPECT_TRUE(convex(band(3.5, 3000), 3000));
  EXPECT_FALSE(convex(band(2.5, 3000), 3000));
  EXPECT_TRUE(convex(band(3.5, 600), 600));
  EXPECT_FALSE(convex(band(2.5, 600), 600));
}

TEST(ModelIoRead, QuadraticObjectiveIsHalved) {
  const Model m = read_lp(R"(Minimize
 obj: x + [ x ^ 2 ] / 2
Subject To
 c: x + y >= 1
End
)");
  ASSERT_EQ(m.objective().quad.size(), 1u);
  EXPECT_EQ(m.objective().quad[0].coef, 0.5);
  EXPECT_DOUBLE_EQ(m.evaluate({2.0, 0.0}).objective, 2.0 + 0.5 * 4.0);
  const Model n = read_lp(R"(Maximize
 obj: [ - 2 x ^ 2 + 6 x * y ]/2 + y
Subject To
 c: x + y <= 1
End
)");
  ASSERT_EQ(n.objective().quad.size(), 2u);
  EXPECT_EQ(n.objective().quad[0].coef, -1.0);
  EXPECT_EQ(n.objective().quad[1].coef, 3.0);
  EXPECT_EQ(n.objective().linear.size(), 1u);
}

TEST(ModelIoRead, Bounds) {
  const Model m = read_lp(R"(Minimize
 obj: a + b + c + d + e0 + f + g + h + i + j + k + l
Subject To
 c1: a + b >= -100
Bounds
 a free
 -inf <= b <= 5
 c >= -3
 d <= 4
 e0 = 3
 -5 <= f
 g >= -infinity
 3 >= h
 i < 2.5
 j <= 1e30
 k <= -2
 l <= -2
 l >= -6
 -1e+20 <= m <= +INF
End
)");
  const auto& v = m.variables();
  ASSERT_EQ(v.size(), 13u);
  const auto bounds = [&](std::size_t i) { return std::make_pair(v[i].lower, v[i].upper); };
  EXPECT_EQ(bounds(0), std::make_pair(-kInfinity, kInfinity));
  EXPECT_EQ(bounds(1), std::make_pair(-kInfinity, 5.0));
  EXPECT_EQ(bounds(2), std::make_pair(-3.0, kInfinity));
  EXPECT_EQ(bounds(3), std::make_pair(0.0, 4.0));
  EXPECT_EQ(bounds(4), std::make_pair(3.0, 3.0));
  EXPECT_EQ(bounds(5), std::make_pair(-5.0, kInfinity));
  EXPECT_EQ(bounds(6), std::make_pair(-kInfinity, kInfinity));
  EXPECT_EQ(bounds(7), std::make_pair(0.0, 3.0));
  EXPECT_EQ(bounds(8), std::make_pair(0.0, 2.5));
  EXPECT_EQ(bounds(9), std::make_pair(0.0, kInfinity));     // 1e30 is infinite, as in CPLEX
  EXPECT_EQ(bounds(10), std::make_pair(-kInfinity, -2.0));  // CPLEX's negative-upper rule
  EXPECT_EQ(bounds(11), std::make_pair(-6.0, -2.0));
  EXPECT_EQ(bounds(12), std::make_pair(-kInfinity, kInfinity));  // declared in Bounds only
  EXPECT_EQ(v[12].name, "m");
}

TEST(ModelIoRead, GeneralsAndBinaries) {
  const Model m = read_lp(R"(Maximize
 obj: x + y + z + b1 + b2 + w
Subject To
 c: x + y + z + b1 + b2 + w <= 10
Bounds
 -3 <= x <= 3
 b2 <= 0.5
General
 x
Generals
 y
Gen
 z
Binary
 b1
Binaries
 b2
Bin
 w
 u
End
)");
  const auto& v = m.variables();
  ASSERT_EQ(v.size(), 7u);
  EXPECT_EQ(v[0].type, VarType::Integer);
  EXPECT_EQ(v[0].lower, -3.0);
  EXPECT_EQ(v[1].type, VarType::Integer);
  EXPECT_EQ(v[1].upper, kInfinity);
  EXPECT_EQ(v[2].type, VarType::Integer);
  EXPECT_EQ(v[3].type, VarType::Binary);
  EXPECT_EQ(v[3].upper, 1.0);
  EXPECT_EQ(v[4].type, VarType::Binary);
  EXPECT_EQ(v[4].upper, 0.5);  // bounds intersect [0, 1]
  EXPECT_EQ(v[5].type, VarType::Binary);
  EXPECT_EQ(v[6].name, "u");  // first seen in Binaries
  EXPECT_EQ(v[6].type, VarType::Binary);
  EXPECT_TRUE(m.has_integers());
}

TEST(ModelIoRead, NamesWithCplexCharactersAndKeywordLookalikes) {
  const Model m = read_lp(R"(Maximize
 obj: x#1 + a{b}.c + ~r + y(1) + q"s + k|p + z/2 + e1x + E + 2e1
   + bin
Subject To
 c_1: x#1 + a{b}.c + ~r + y(1) + q"s + k|p + z/2 + e1x + E <= 10
 bounds_row: [ z/2 ^ 2 ] <= 4
 end_: 
 bin + x#1 >= 0
End
)");
  ASSERT_EQ(m.num_variables(), 10u);
  const std::vector<std::string> expected{"x#1", "a{b}.c", "~r",  "y(1)", "q\"s",
                                          "k|p", "z/2",    "e1x", "E",    "bin"};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(m.variables()[i].name, expected[i]);
  }
  EXPECT_EQ(m.objective().constant, 20.0);  // "2e1" is a number
  ASSERT_EQ(m.linear_rows().size(), 2u);
  EXPECT_EQ(m.linear_rows()[1].name, "end_");
  EXPECT_EQ(m.linear_rows()[1].terms.size(), 2u);
  EXPECT_EQ(m.quadratic_rows()[0].name, "bounds_row");
}

TEST(ModelIoRead, VariableOrderIsFirstAppearance) {
  const Model m = read_lp(R"(Minimize
 obj: 0 c + 0 a + [ d ^ 2 ] / 2
Subject To
 r: b + a + e >= 1
Bounds
 f <= 3
End
)");
  std::string order;
  for (const auto& v : m.variables()) order += v.name;
  EXPECT_EQ(order, "cadbef");
  EXPECT_TRUE(m.objective().linear.empty());  // zero placeholders declare, add nothing
}

TEST(ModelIoRead, RepeatedTermsAreSummed) {
  const Model m = read_lp(R"(Minimize
 obj: x + 2 x + [ x * y + y * x ] / 2
Subject To
 c: x - x + y >= 1
End
)");
  ASSERT_EQ(m.objective().linear.size(), 1u);
  EXPECT_EQ(m.objective().linear[0].coef, 3.0);
  ASSERT_EQ(m.objective().quad.size(), 1u);
  EXPECT_EQ(m.objective().quad[0].coef, 1.0);
  ASSERT_EQ(m.linear_rows()[0].terms.size(), 1u);  // x cancels
  EXPECT_EQ(m.linear_rows()[0].terms[0].var, 1);
}

TEST(ModelIoWrite, Format) {
  Model m;
  const int x = m.add_variable("x", VarType::Continuous, -kInfinity, 5);
  const int y = m.add_variable("y[1]", VarType::Integer, -3, 7);
  const int b = m.add_variable("b", VarType::Binary, 0, 1);
  m.add_linear_row({"c1", {{x, 1}, {y, -2.5}, {x, 0.5}}, RowSense::LessEqual, 4});
  m.add_quadratic_row({"q", {{x, x, 1}, {x, y, 2}}, {{x, 3}}, RowSense::LessEqual, 4, false});
  m.set_objective({ObjectiveSense::Maximize, {{b, 2}, {x, 0.1}}, {{y, y, -1}}, 0.0});
  EXPECT_EQ(write_lp(m),
            "\\ Written by arbo. Variables: 3 (1 integer, 1 binary). Linear rows: 1. Quadratic "
            "rows: 1.\n"
            "Maximize\n"
            " obj: 0.1 x + 0 y_1_ + 2 b + [ - 2 y_1_ ^ 2 ] / 2\n"
            "\n"
            "Subject To\n"
            " c1: 1.5 x - 2.5 y_1_ <= 4\n"
            " q: 3 x + [ x ^ 2 + 2 x * y_1_ ] <= 4\n"
            "\n"
            "Bounds\n"
            " -inf <= x <= 5\n"
            " -3 <= y_1_ <= 7\n"
            "\n"
            "Generals\n"
            " y_1_\n"
            "\n"
            "Binaries\n"
            " b\n"
            "\n"
            "End\n");
}

TEST(ModelIoWrite, SanitizesAndDeduplicatesNames) {
  const std::vector<std::string> raw{"x",
                                     "x",
                                     "",
                                     "end",
                                     "3d",
                                     "with space",
                                     "obj_constant",
                                     "e12",
                                     "x_2",
                                     "\xc3\xbcnicode",
                                     std::string(300, 'n'),
                                     "/slash",
                                     ".dot",
                                     "Energy",
                                     "a:b^c"};
  const std::vector<std::string> expected{"x",
                                          "x_2",
                                          "x3",
                                          "_end",
                                          "_3d",
                                          "with_space",
                                          "_obj_constant",
                                          "_e12",
                                          "x_2_2",
                                          "__nicode",
                                          std::string(255, 'n'),
                                          "_/slash",
                                          "_.dot",
                                          "Energy",
                                          "a_b_c"};
  Model m;
  for (const auto& n : raw) m.add_variable(n, VarType::Continuous, 0, 1);
  m.add_linear_row({"", {{0, 1}}, RowSense::LessEqual, 1});
  m.add_linear_row({"c1", {{1, 1}}, RowSense::LessEqual, 1});
  m.add_quadratic_row({"", {{0, 0, 1}}, {}, RowSense::LessEqual, 1, true});
  const Model r = read_lp(write_lp(m));
  ASSERT_EQ(r.num_variables(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(r.variables()[i].name, expected[i]);
  // Generated row names avoid the explicit ones.
  EXPECT_EQ(r.linear_rows()[0].name, "c1");
  EXPECT_EQ(r.linear_rows()[1].name, "c1_2");
  EXPECT_EQ(r.quadratic_rows()[0].name, "q1");
}

TEST(ModelIoWrite, DoublesRoundTripExactly) {
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<std::uint64_t> bits;
  Model m;
  const int x = m.add_variable("x", VarType::Continuous, -kInfinity, kInfinity);
  std::vector<LinearTerm> terms;
  std::vector<double> values{0.1, 1.0 / 3.0, 1e-300, 4.9e-324, 1.7976931348623157e308, -2.5e-8};
  for (int k = 0; k < 200; ++k) {
    double v;
    std::uint64_t b = bits(rng);
    std::memcpy(&v, &b, sizeof v);
    if (std::isfinite(v) && v != 0.0 && std::abs(v) < 1e300) values.push_back(v);
  }
  for (double v : values) m.add_linear_row({"", {{x, v}}, RowSense::Equal, -v});
  const Model r = read_lp(write_lp(m));
  ASSERT_EQ(r.linear_rows().size(), values.size());
  for (std::size_t k = 0; k < values.size(); ++k) {
    EXPECT_EQ(r.linear_rows()[k].terms[0].coef, values[k]);
    EXPECT_EQ(r.linear_rows()[k].rhs, -values[k]);
  }
}

// ---- errors: file name, line number and what was expected

struct BadFile {
  const char* name;
  const char* text;
  int line;
  const char* message;
};

class MalformedFile : public ::testing::TestWithParam<BadFile> {};

TEST_P(MalformedFile, NamesFileLineAndExpectation) {
  const BadFile& f = GetParam();
  const std::string what = read_error(f.text, "model.lp");
  expect_contains(what, fmt::format("model.lp:{}: ", f.line));
  expect_contains(what, f.message);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, MalformedFile,
    ::testing::Values(
        BadFile{"empty", "", 1,
                "expected 'Minimize' or 'Maximize' at the start of the model, "
                "found the end of the file"},
        BadFile{"bad_offset", "Minimize\n obj: x\n\\ arbo objective offset: 1/3\nEnd\n", 3,
                "the objective offset '1/3' is not a finite number"},
        BadFile{"infinite_offset", "\\ arbo objective offset: 1e999\nMinimize\n obj: x\nEnd\n", 1,
                "the objective offset '1e999' is not a finite number"},
        BadFile{"no_objective", "\\ comment\nSubject To\n c: x >= 1\nEnd\n", 2,
                "expected 'Minimize' or 'Maximize' at the start of the model, found 'Subject'"},
        BadFile{"missing_end", "Minimize\n obj: x\nSubject To\n c: x >= 1\n", 5,
                "expected 'End' after the last section (is the file truncated?)"},
        BadFile{"missing_operator", "Minimize\n obj: x\nSubject To\n c1: x + y 3\nEnd\n", 4,
                "expected '+', '-' or a relational operator (<=, >=, =) in constraint 'c1', "
                "found '3'"},
        BadFile{"missing_rhs", "Minimize\n obj: x\nSubject To\n c1: x + y <=\n c2: x >= 1\nEnd\n",
                5,
                "expected a number (the right-hand side) after '<=' in constraint 'c1', "
                "found 'c2'"},
        BadFile{"variable_rhs", "Minimize\n obj: x\nSubject To\n c1: x >= y\nEnd\n", 4,
                "expected a number (the right-hand side) after '>=' in constraint 'c1', "
                "found 'y'"},
        BadFile{"unclosed_bracket", "Minimize\n obj: x\nSubject To\n q: [ x ^ 2\n  <= 4\nEnd\n", 5,
                "expected '+', '-' or ']' in the quadratic part of constraint 'q', found '<='"},
        BadFile{"cube", "Minimize\n obj: x\nSubject To\n q: [ x ^ 3 ] <= 4\nEnd\n", 4,
                "expected '2' after 'x ^' in constraint 'q' (only squares are supported), "
                "found '3'"},
        BadFile{"linear_in_bracket", "Minimize\n obj: x\nSubject To\n q: [ x ^ 2 + y ] <= 4\nEnd\n",
                4,
                "expected '^ 2' or '* <variable>' after 'y' in the quadratic part of "
                "constraint 'q'"},
        BadFile{"objective_not_halved",
                "Minimize\n obj: x + [ x ^ 2 ]\nSubject To\n c: x >= 1\nEnd\n", 3,
                "expected '/ 2' after ']' in the objective"},
        BadFile{"halved_constraint", "Minimize\n obj: x\nSubject To\n q: [ x ^ 2 ] / 2 <= 1\nEnd\n",
                4, "'/ 2' after ']' belongs to the objective only"},
        BadFile{"square_outside_bracket", "Minimize\n obj: x\nSubject To\n\n c: x ^ 2 <= 4\nEnd\n",
                5, "quadratic terms such as 'x ^ 2' or 'x * y' go inside '[ ]' in constraint 'c'"},
        BadFile{"bad_bound",
                "Minimize\n obj: x\nSubject To\n c: x >= 1\nBounds\n x <= 3\n y 4\nEnd\n", 7,
                "expected '<=', '>=', '=' or 'free' after 'y' in Bounds, found '4'"},
        BadFile{"bound_without_value",
                "Minimize\n obj: x\nSubject To\n c: x >= 1\nBounds\n x <=\nEnd\n", 7,
                "expected a number after 'x <=' in Bounds, found 'End'"},
        BadFile{"crossed_bounds",
                "Minimize\n obj: x\nSubject To\n c: x >= 1\nBounds\n x >= 5\n x <= 3\nEnd\n", 7,
                "variable 'x' has lower bound 5 above its upper bound 3"},
        BadFile{
            "binary_out_of_range",
            "Minimize\n obj: b\nSubject To\n c: b >= 0\nBounds\n 2 <= b <= 3\nBinaries\n b\nEnd\n",
            8, "binary variable 'b' has bounds [2, 3] that exclude both 0 and 1"},
        BadFile{"non_ascii", "Minimize\n obj: x\nSubject To\n c: x + \xc3\xbc >= 1\nEnd\n", 4,
                "unexpected byte 0xc3 (names are ASCII)"},
        BadFile{"number_in_generals",
                "Minimize\n obj: x\nSubject To\n c: x >= 1\nGenerals\n x 3\nEnd\n", 6,
                "expected a variable name in the Generals section, found '3'"},
        BadFile{"sos", "Minimize\n obj: x\nSubject To\n c: x >= 1\nSOS\n s1: x:1\nEnd\n", 5,
                "unsupported section 'SOS'"},
        BadFile{"second_objective",
                "Minimize\n obj: x\nSubject To\n c: x >= 1\nMaximize\n y\nEnd\n", 5,
                "a model has one objective; found a second 'Maximize'"},
        BadFile{"huge_number", "Minimize\n obj: 1e400 x\nSubject To\n c: x >= 1\nEnd\n", 2,
                "number '1e400' is out of the range of a double"},
        BadFile{"dangling_sign", "Minimize\n obj: x +\nSubject To\n c: x >= 1\nEnd\n", 3,
                "expected a term (a number or a variable name) in the objective, found 'Subject'"},
        BadFile{"empty_constraint", "Minimize\n obj: x\nSubject To\n c: >= 1\nEnd\n", 4,
                "expected a term before '>=' in constraint 'c'"},
        BadFile{"unlabelled", "Minimize\n obj: x\nSubject To\n x >= 1\n x + y\nEnd\n", 6,
                "expected a relational operator (<=, >=, =) to end the constraint starting on "
                "line 5, found 'End'"}),
    [](const ::testing::TestParamInfo<BadFile>& p) { return std::string(p.param.name); });

}  // namespace
}  // namespace arbo::sdk
