// SPDX-License-Identifier: MIT
// Tests of the SDK's MIQCP model: construction checks and evaluation of a point.
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "arbo/sdk/error.hpp"
#include "arbo/sdk/model.hpp"

namespace arbo::sdk {
namespace {

template <class F>
std::string invalid(F&& f) {
  try {
    f();
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected InvalidArgument";
  return {};
}

void expect_contains(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << "'" << part << "' not in: " << text;
}

TEST(Model, ToStrings) {
  EXPECT_STREQ(to_string(RowSense::LessEqual), "<=");
  EXPECT_STREQ(to_string(RowSense::GreaterEqual), ">=");
  EXPECT_STREQ(to_string(RowSense::Equal), "=");
  EXPECT_STREQ(to_string(SolveStatus::Optimal), "optimal");
  EXPECT_STREQ(to_string(SolveStatus::Infeasible), "infeasible");
}

TEST(Model, AddVariable) {
  Model m;
  EXPECT_EQ(m.add_variable("x", VarType::Continuous, -kInfinity, kInfinity), 0);
  EXPECT_EQ(m.add_variable("n", VarType::Integer, -3, 7), 1);
  EXPECT_EQ(m.add_variable("b", VarType::Binary, -5, 9), 2);
  EXPECT_EQ(m.add_variable("fixed", VarType::Continuous, 2, 2), 3);
  EXPECT_EQ(m.num_variables(), 4u);
  EXPECT_EQ(m.variables()[2].lower, 0.0);  // binary bounds clamped to [0, 1]
  EXPECT_EQ(m.variables()[2].upper, 1.0);
  EXPECT_EQ(m.add_variable("b1", VarType::Binary, 1, 5), 4);  // fixed at 1
  EXPECT_EQ(m.variables()[4].lower, 1.0);
  EXPECT_EQ(m.variables()[4].upper, 1.0);
  EXPECT_EQ(m.find_variable("n"), std::optional<int>(1));
  EXPECT_FALSE(m.find_variable("zz").has_value());
  m.variable(1).upper = 4;
  EXPECT_EQ(m.variables()[1].upper, 4.0);
  EXPECT_THROW(m.variable(99), std::out_of_range);
  EXPECT_TRUE(m.has_integers());

  expect_contains(invalid([&] { m.add_variable("bad", VarType::Continuous, 2, 1); }),
                  "'bad' has invalid bounds [2, 1]");
  expect_contains(invalid([&] { m.add_variable("nan", VarType::Integer, NAN, 1); }), "'nan'");
  expect_contains(invalid([&] { m.add_variable("nan2", VarType::Continuous, 0, NAN); }), "'nan2'");
  // A binary whose bounds exclude both 0 and 1 is empty, not silently inverted.
  expect_contains(invalid([&] { m.add_variable("b2", VarType::Binary, 2, 3); }), "'b2'");
  EXPECT_EQ(m.num_variables(), 5u);
}

TEST(Model, HasIntegersAndIsLinear) {
  Model m;
  m.add_variable("x", VarType::Continuous, 0, 1);
  EXPECT_FALSE(m.has_integers());
  EXPECT_TRUE(m.is_linear());
  m.add_linear_row({"r", {{0, 1.0}}, RowSense::LessEqual, 1});
  EXPECT_TRUE(m.is_linear());
  Objective o;
  o.quad = {{0, 0, 1.0}};
  m.set_objective(o);
  EXPECT_FALSE(m.is_linear());
  m.set_objective(Objective{});
  EXPECT_TRUE(m.is_linear());
  m.add_quadratic_row({"q", {{0, 0, 1.0}}, {}, RowSense::LessEqual, 1, true});
  EXPECT_FALSE(m.is_linear());
  m.add_variable("b", VarType::Binary, 0, 1);
  EXPECT_TRUE(m.has_integers());
}

TEST(Model, RejectsBadTerms) {
  Model m;
  m.add_variable("x", VarType::Continuous, 0, 1);
  m.add_variable("y", VarType::Continuous, 0, 1);
  expect_contains(invalid([&] {
                    m.add_linear_row({"r1", {{2, 1.0}}, RowSense::LessEqual, 1});
                  }),
                  "linear row 'r1' references unknown variable 2");
  expect_contains(invalid([&] {
                    m.add_linear_row({"r2", {{-1, 1.0}}, RowSense::Equal, 1});
                  }),
                  "unknown variable -1");
  expect_contains(invalid([&] {
                    m.add_linear_row({"r3", {{0, INFINITY}}, RowSense::LessEqual, 1});
                  }),
                  "non-finite coefficient");
  expect_contains(invalid([&] {
                    m.add_linear_row({"r4", {{0, 1.0}}, RowSense::LessEqual, NAN});
                  }),
                  "NaN rhs");
  expect_contains(invalid([&] {
                    m.add_quadratic_row({"q1", {{0, 5, 1.0}}, {}, RowSense::LessEqual, 1, false});
                  }),
                  "quadratic row 'q1' references unknown variable 5");
  expect_contains(
      invalid([&] {
        m.add_quadratic_row({"q2", {{0, 1, 1.0}}, {{7, 1.0}}, RowSense::LessEqual, 1, false});
      }),
      "unknown variable 7");
  expect_contains(invalid([&] {
                    m.add_quadratic_row({"q3", {{0, 0, NAN}}, {}, RowSense::LessEqual, 1, false});
                  }),
                  "non-finite");
  expect_contains(invalid([&] {
                    m.add_quadratic_row({"q4", {{0, 0, 1.0}}, {}, RowSense::LessEqual, NAN, false});
                  }),
                  "NaN rhs");
  Objective o;
  o.linear = {{3, 1.0}};
  expect_contains(invalid([&] { m.set_objective(o); }), "objective references unknown variable 3");
  o.linear = {};
  o.quad = {{0, 9, 1.0}};
  expect_contains(invalid([&] { m.set_objective(o); }), "objective references unknown variable 9");
  o.quad = {};
  o.offset = -INFINITY;
  expect_contains(invalid([&] { m.set_objective(o); }),
                  "objective offset -inf is not finite (NaN declares none)");
  // Nothing was added by the failed calls.
  EXPECT_TRUE(m.linear_rows().empty());
  EXPECT_TRUE(m.quadratic_rows().empty());
  EXPECT_TRUE(m.objective().quad.empty());
}

TEST(Model, ConvexRowMustBeLessEqual) {
  Model m;
  m.add_variable("x", VarType::Continuous, -1, 1);
  for (RowSense s : {RowSense::GreaterEqual, RowSense::Equal}) {
    expect_contains(invalid([&] {
                      m.add_quadratic_row({"c", {{0, 0, 1.0}}, {}, s, 1, true});
                    }),
                    "quadratic row 'c' is declared convex but is not a <= row");
  }
  EXPECT_EQ(m.add_quadratic_row({"c", {{0, 0, 1.0}}, {}, RowSense::LessEqual, 1, true}), 0);
  // Nonconvex rows may have any sense.
  EXPECT_EQ(m.add_quadratic_row({"n", {{0, 0, -1.0}}, {}, RowSense::GreaterEqual, -1, false}), 1);
  EXPECT_EQ(m.add_quadratic_row({"e", {{0, 0, 1.0}}, {}, RowSense::Equal, 0.25, false}), 2);
}

TEST(Model, Evaluate) {
  Model m;
  const int x = m.add_variable("x", VarType::Continuous, 0, 10);
  const int n = m.add_variable("n", VarType::Integer, -5, 5);
  const int b = m.add_variable("b", VarType::Binary, 0, 1);
  const int f = m.add_variable("f", VarType::Continuous, -kInfinity, kInfinity);
  Objective o;
  o.sense = ObjectiveSense::Maximize;
  o.constant = 1.5;
  o.linear = {{x, 2.0}, {n, -1.0}};
  o.quad = {{x, n, 0.5}, {f, f, 3.0}};
  m.set_objective(o);
  m.add_linear_row({"le", {{x, 1.0}, {n, 1.0}}, RowSense::LessEqual, 4});
  m.add_linear_row({"ge", {{b, 2.0}}, RowSense::GreaterEqual, 1});
  m.add_linear_row({"eq", {{f, 1.0}, {x, -1.0}}, RowSense::Equal, 0});
  m.add_quadratic_row(
      {"ball", {{x, x, 1.0}, {f, f, 1.0}}, {{n, 1.0}}, RowSense::LessEqual, 20, true});

  // A feasible point.
  auto e = m.evaluate({3.0, 1.0, 1.0, 3.0});
  EXPECT_DOUBLE_EQ(e.objective, 1.5 + 6.0 - 1.0 + 1.5 + 27.0);
  ASSERT_EQ(e.linear_activity.size(), 3u);
  EXPECT_DOUBLE_EQ(e.linear_activity[0], 4.0);
  EXPECT_DOUBLE_EQ(e.linear_activity[1], 2.0);
  EXPECT_DOUBLE_EQ(e.linear_activity[2], 0.0);
  ASSERT_EQ(e.quadratic_activity.size(), 1u);
  EXPECT_DOUBLE_EQ(e.quadratic_activity[0], 9.0 + 9.0 + 1.0);
  EXPECT_EQ(e.max_bound_violation, 0.0);
  EXPECT_EQ(e.max_integrality_violation, 0.0);
  EXPECT_EQ(e.max_row_violation, 0.0);
  EXPECT_EQ(e.max_violation(), 0.0);

  // Each kind of violation on its own.
  e = m.evaluate({3.0, 1.0, 1.0, 3.5});  // eq row off by 0.5, ball 9 + 12.25 + 1 > 20
  EXPECT_DOUBLE_EQ(e.max_row_violation, 2.25);
  EXPECT_EQ(e.max_bound_violation, 0.0);
  e = m.evaluate({2.0, 3.0, 1.0, 2.0});  // le: 5 > 4
  EXPECT_DOUBLE_EQ(e.max_row_violation, 1.0);
  e = m.evaluate({1.0, 1.0, 0.0, 1.0});  // ge: 0 < 1
  EXPECT_DOUBLE_EQ(e.max_row_violation, 1.0);
  e = m.evaluate({1.0, 1.0, 1.0, 0.25});  // eq: 0.25 - 1 = -0.75
  EXPECT_DOUBLE_EQ(e.max_row_violation, 0.75);
  e = m.evaluate({1.0, 1.0, 1.0, 1.75});  // eq: +0.75 (both signs count)
  EXPECT_DOUBLE_EQ(e.max_row_violation, 0.75);

  e = m.evaluate({-0.5, 1.0, 1.0, -0.5});  // x below its lower bound; f is free
  EXPECT_DOUBLE_EQ(e.max_bound_violation, 0.5);
  e = m.evaluate({1.0, -7.0, 1.0, 1.0});  // n below -5
  EXPECT_DOUBLE_EQ(e.max_bound_violation, 2.0);
  e = m.evaluate({1.0, 1.0, 1.25, 1.0});  // b above 1 and fractional
  EXPECT_DOUBLE_EQ(e.max_bound_violation, 0.25);
  EXPECT_DOUBLE_EQ(e.max_integrality_violation, 0.25);
  e = m.evaluate({1.3, 0.4, 1.0, 1.3});  // only n is integral-constrained; x is continuous
  EXPECT_DOUBLE_EQ(e.max_integrality_violation, 0.4);
  e = m.evaluate({1.0, 0.0, 0.0, 1e6});
  EXPECT_EQ(e.max_bound_violation, 0.0);  // infinite bounds never violated
  EXPECT_DOUBLE_EQ(e.max_violation(), std::max({e.max_bound_violation, e.max_integrality_violation,
                                                e.max_row_violation}));
  EXPECT_GT(e.max_violation(), 0.0);

  expect_contains(invalid([&] { m.evaluate({1.0, 2.0}); }), "point has 2 entries, model has 4");
}

TEST(Model, EmptyModelEvaluatesToConstant) {
  Model m;
  Objective o;
  o.constant = -2.5;
  m.set_objective(o);
  const auto e = m.evaluate({});
  EXPECT_EQ(e.objective, -2.5);
  EXPECT_EQ(e.max_violation(), 0.0);
  EXPECT_TRUE(e.linear_activity.empty());
}

}  // namespace
}  // namespace arbo::sdk
