// SPDX-License-Identifier: MIT
// Tests of arbo::sdk::Space: validation, encoding, snapping, sampling and conditions.
#include <cmath>
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "arbo/sdk/error.hpp"
#include "arbo/sdk/space.hpp"
#include "common/vectors.hpp"

namespace arbo::sdk {
namespace {

using arbo::test::vec;

// Builds a space and returns the InvalidArgument message; fails the test if it builds.
std::string space_error(std::vector<Parameter> params) {
  try {
    Space s(std::move(params));
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  ADD_FAILURE() << "Space construction did not throw";
  return {};
}

Parameter with_condition(Parameter p, std::string parent, std::vector<Value> values) {
  p.condition = Condition{std::move(parent), std::move(values)};
  return p;
}

Parameter with_default(Parameter p, Value v) {
  p.default_value = std::move(v);
  return p;
}

// Expects `msg` to name the parameter and contain `what`.
void expect_names(const std::string& msg, const std::string& name, const std::string& what) {
  EXPECT_NE(msg.find("'" + name + "'"), std::string::npos) << msg;
  EXPECT_NE(msg.find(what), std::string::npos) << msg;
}

TEST(SpaceTypes, ToStringAndParse) {
  for (ParamType t :
       {ParamType::Real, ParamType::Integer, ParamType::Categorical, ParamType::Binary}) {
    EXPECT_EQ(param_type_from_string(to_string(t)), t);
  }
  EXPECT_EQ(param_type_from_string("int"), ParamType::Integer);
  EXPECT_EQ(param_type_from_string("float"), ParamType::Real);
  EXPECT_EQ(param_type_from_string("bool"), ParamType::Binary);
  EXPECT_EQ(param_type_from_string("cat"), ParamType::Categorical);
  EXPECT_FALSE(param_type_from_string("Real").has_value());
  EXPECT_FALSE(param_type_from_string("").has_value());
  EXPECT_EQ(to_string(Value{}), "-");
  EXPECT_EQ(to_string(Value{0.5}), "0.5");
  EXPECT_EQ(to_string(Value{std::int64_t{-3}}), "-3");
  EXPECT_EQ(to_string(Value{std::string("adam")}), "adam");
  EXPECT_EQ(to_string(Value{true}), "true");
}

TEST(SpaceConstruction, Errors) {
  EXPECT_NE(space_error({Parameter::real("", 0, 1)}).find("#1 has no name"), std::string::npos);
  expect_names(space_error({Parameter::real("a", 0, 1), Parameter::integer("a", 0, 3)}), "a",
               "declared twice");
  expect_names(space_error({Parameter::real("lr", 2, 1)}), "lr", "above upper bound");
  expect_names(space_error({Parameter::integer("n", 5, 1)}), "n", "above upper bound");
  expect_names(space_error({Parameter::real("lr", 0, INFINITY)}), "lr", "finite");
  expect_names(space_error({Parameter::real("lr", NAN, 1)}), "lr", "finite");
  Parameter frac = Parameter::integer("n", 0, 3);
  frac.upper = 3.5;
  expect_names(space_error({frac}), "n", "whole numbers");
  expect_names(space_error({Parameter::real("lr", 0, 1, true)}), "lr", "log scale");
  expect_names(space_error({Parameter::integer("n", -1, 10, true)}), "n", "log scale");
  expect_names(space_error({Parameter::categorical("opt", {})}), "opt", "at least one choice");
  expect_names(space_error({Parameter::categorical("opt", {"a", "b", "a"})}), "opt",
               "duplicate choices");
  // Conditions.
  expect_names(
      space_error({with_condition(Parameter::real("m", 0, 1), "opt", {Value{std::string("a")}})}),
      "m", "'opt', which is not a parameter declared before it");
  expect_names(
      space_error({with_condition(Parameter::real("m", 0, 1), "opt", {Value{std::string("a")}}),
                   Parameter::categorical("opt", {"a", "b"})}),
      "m", "not a parameter declared before it");
  expect_names(space_error({Parameter::real("x", 0, 1),
                            with_condition(Parameter::real("m", 0, 1), "x", {Value{0.5}})}),
               "m", "real-valued");
  expect_names(space_error({Parameter::categorical("opt", {"a", "b"}),
                            with_condition(Parameter::real("m", 0, 1), "opt", {})}),
               "m", "lists no values");
  expect_names(
      space_error({Parameter::categorical("opt", {"a", "b"}),
                   with_condition(Parameter::real("m", 0, 1), "opt", {Value{std::string("c")}})}),
      "m", "condition value");
  expect_names(
      space_error({Parameter::integer("k", 1, 3),
                   with_condition(Parameter::real("m", 0, 1), "k", {Value{std::int64_t{7}}})}),
      "m", "outside");
  expect_names(space_error({Parameter::binary("b"), with_condition(Parameter::real("m", 0, 1), "b",
                                                                   {Value{std::string("yes")}})}),
               "m", "condition value");
  // Defaults outside the domain.
  expect_names(space_error({with_default(Parameter::real("lr", 0, 1), 2.0)}), "lr", "default");
  expect_names(space_error({with_default(Parameter::integer("n", 0, 4), 1.5)}), "n", "default");
  expect_names(space_error({with_default(Parameter::categorical("opt", {"a"}), std::string("b"))}),
               "opt", "default");
  expect_names(space_error({with_default(Parameter::binary("b"), std::string("x"))}), "b",
               "default");
}

TEST(SpaceConstruction, BoundsAndDefaults) {
  Space s({Parameter::real("r", -1, 3), Parameter::real("lr", 1e-4, 1, true),
           Parameter::integer("n", 1, 4), Parameter::integer("ln", 1, 100, true),
           Parameter::categorical("c", {"x", "y", "z"}), Parameter::binary("b"),
           with_default(Parameter::real("rd", 0, 10), 7.0)});
  ASSERT_EQ(s.size(), 7u);
  EXPECT_FALSE(s.empty());
  EXPECT_FALSE(s.has_conditions());
  EXPECT_EQ(s.lower(), vec({-1, std::log(1e-4), 1, 0, 0, 0, 0}));
  EXPECT_EQ(s.upper(), vec({3, 0, 4, std::log(100.0), 2, 1, 10}));
  EXPECT_DOUBLE_EQ(s.default_encoded(0), 1.0);
  EXPECT_DOUBLE_EQ(s.default_encoded(1), 0.5 * std::log(1e-4));
  EXPECT_TRUE(s.default_encoded(2) == 2.0 || s.default_encoded(2) == 3.0);  // rounded 2.5
  EXPECT_DOUBLE_EQ(s.default_encoded(3), std::log(10.0));  // geometric midpoint, an integer
  EXPECT_EQ(s.default_encoded(4), 0.0);
  EXPECT_EQ(s.default_encoded(5), 0.0);
  EXPECT_EQ(s.default_encoded(6), 7.0);
  EXPECT_FALSE(s.is_discrete(0));
  EXPECT_TRUE(s.is_discrete(2));
  EXPECT_TRUE(s.is_discrete(4));
  EXPECT_TRUE(s.is_discrete(5));
  EXPECT_EQ(s.index_of("c"), std::optional<std::size_t>(4));
  EXPECT_FALSE(s.index_of("nope").has_value());
  EXPECT_EQ(s[4].choices.size(), 3u);

  Space empty;
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.describe(Eigen::VectorXd()), "");
}

TEST(SpaceEncoding, RoundTripEveryType) {
  Space s({Parameter::real("r", -1, 3), Parameter::real("lr", 1e-4, 1, true),
           Parameter::integer("n", -5, 5), Parameter::integer("ln", 1, 1000, true),
           Parameter::categorical("c", {"x", "y", "z"}), Parameter::binary("b")});
  const std::vector<Value> v = {0.25, 1e-3, std::int64_t{-4}, std::int64_t{37}, std::string("z"),
                                true};
  const Eigen::VectorXd x = s.encode(v);
  EXPECT_EQ(x[0], 0.25);
  EXPECT_DOUBLE_EQ(x[1], std::log(1e-3));
  EXPECT_EQ(x[2], -4.0);
  EXPECT_DOUBLE_EQ(x[3], std::log(37.0));
  EXPECT_EQ(x[4], 2.0);
  EXPECT_EQ(x[5], 1.0);
  EXPECT_TRUE(s.contains(x));
  const auto back = s.decode(x);
  ASSERT_EQ(back.size(), v.size());
  EXPECT_EQ(std::get<double>(back[0]), 0.25);
  EXPECT_NEAR(std::get<double>(back[1]), 1e-3, 1e-15);
  EXPECT_EQ(std::get<std::int64_t>(back[2]), -4);
  EXPECT_EQ(std::get<std::int64_t>(back[3]), 37);
  EXPECT_EQ(std::get<std::string>(back[4]), "z");
  EXPECT_EQ(std::get<bool>(back[5]), true);

  // Every value of the log-integer survives the ln/exp round trip exactly.
  Space li({Parameter::integer("k", 1, 1000, true)});
  for (std::int64_t k = 1; k <= 1000; ++k) {
    const auto d = li.decode(li.encode({Value{k}}));
    ASSERT_EQ(std::get<std::int64_t>(d[0]), k);
  }
  // Bounds themselves.
  EXPECT_EQ(std::get<double>(s.decode(s.encode(
                {-1.0, 1.0, std::int64_t{5}, std::int64_t{1}, std::string("x"), false}))[0]),
            -1.0);
}

TEST(SpaceEncoding, Coercions) {
  Space s({Parameter::real("r", 0, 10), Parameter::binary("b"), Parameter::integer("n", 0, 10)});
  // Integers are accepted for reals, 0/1 for binaries, whole doubles for integers.
  const auto x = s.encode({std::int64_t{3}, std::int64_t{1}, 4.0});
  EXPECT_EQ(x, vec({3, 1, 4}));
  // A value a hair outside the bounds (decimal printing) is clamped, not rejected.
  EXPECT_EQ(s.encode({10.0 + 1e-12, false, std::int64_t{0}})[0], 10.0);
  // Monostate encodes to the default.
  EXPECT_EQ(s.encode({Value{}, Value{}, Value{}}), vec({5, 0, 5}));
}

TEST(SpaceEncoding, Errors) {
  Space s({Parameter::real("r", 0, 1), Parameter::integer("n", 0, 10),
           Parameter::categorical("c", {"adam", "sgd"}), Parameter::binary("b")});
  const auto err = [&](std::vector<Value> v) {
    try {
      s.encode(v);
    } catch (const InvalidArgument& e) {
      return std::string(e.what());
    }
    ADD_FAILURE() << "encode did not throw";
    return std::string();
  };
  const Value ok_c = std::string("adam");
  EXPECT_NE(err({0.5, std::int64_t{1}}).find("got 2 values for 4 parameters"), std::string::npos);
  expect_names(err({1.5, std::int64_t{1}, ok_c, true}), "r", "outside [0, 1]");
  expect_names(err({std::string("x"), std::int64_t{1}, ok_c, true}), "r", "expected a number");
  expect_names(err({NAN, std::int64_t{1}, ok_c, true}), "r", "not finite");
  expect_names(err({0.5, 2.5, ok_c, true}), "n", "expected an integer");
  expect_names(err({0.5, std::int64_t{11}, ok_c, true}), "n", "outside");
  expect_names(err({0.5, std::int64_t{1}, std::string("adm"), true}), "c",
               "'adm' is not one of the choices");
  expect_names(err({0.5, std::int64_t{1}, 1.0, true}), "c", "expected one of the choices");
  expect_names(err({0.5, std::int64_t{1}, ok_c, std::int64_t{2}}), "b", "expected true or false");
  expect_names(err({0.5, std::int64_t{1}, ok_c, std::string("true")}), "b",
               "expected true or false");

  EXPECT_THROW(s.decode(vec({0.5, 1})), InvalidArgument);
  EXPECT_THROW(s.decode(vec({NAN, 1, 0, 0})), InvalidArgument);
  Eigen::VectorXd wrong = vec({0.5});
  EXPECT_THROW(s.snap(wrong), InvalidArgument);
  EXPECT_THROW(s.from_unit(vec({0.5})), InvalidArgument);
  EXPECT_FALSE(s.contains(vec({0.5})));
}

TEST(SpaceSnap, ClampRoundAndDefaults) {
  Space s({Parameter::real("r", 0, 1), Parameter::integer("n", -3, 3),
           Parameter::categorical("c", {"a", "b", "c"}), Parameter::binary("b"),
           Parameter::integer("ln", 1, 100, true), Parameter::real("lr", 1e-3, 1e3, true)});
  Eigen::VectorXd x = vec({1.7, 2.4, 0.6, 0.2, std::log(2.4), 99});
  s.snap(x);
  EXPECT_EQ(x[0], 1.0);
  EXPECT_EQ(x[1], 2.0);
  EXPECT_EQ(x[2], 1.0);
  EXPECT_EQ(x[3], 0.0);
  EXPECT_DOUBLE_EQ(x[4], std::log(2.0));
  EXPECT_DOUBLE_EQ(x[5], std::log(1e3));
  EXPECT_TRUE(s.contains(x));

  x = vec({-5, -9.6, 7, 1.6, -3, -100});
  s.snap(x);
  EXPECT_EQ(x[0], 0.0);
  EXPECT_EQ(x[1], -3.0);
  EXPECT_EQ(x[2], 2.0);
  EXPECT_EQ(x[3], 1.0);
  EXPECT_DOUBLE_EQ(x[4], 0.0);  // ln(1)
  EXPECT_DOUBLE_EQ(x[5], std::log(1e-3));

  // Log-integers round in user units: 2.47 rounds to 2, although ln(2.47) is above the
  // log-space midpoint ln(sqrt(6)) = ln(2.449) of ln 2 and ln 3.
  x = vec({0, 0, 0, 0, std::log(2.47), 0});
  s.snap(x);
  EXPECT_DOUBLE_EQ(x[4], std::log(2.0));
  x = vec({0, 0, 0, 0, std::log(2.6), 0});
  s.snap(x);
  EXPECT_DOUBLE_EQ(x[4], std::log(3.0));
  // Every snapped log-integer coordinate decodes to an integer of the domain.
  for (double t = 0; t <= std::log(100.0); t += 0.01) {
    Eigen::VectorXd y = vec({0, 0, 0, 0, t, 0});
    s.snap(y);
    const double u = std::exp(y[4]);
    ASSERT_NEAR(u, std::round(u), 1e-9);
    ASSERT_GE(std::round(u), 1.0);
    ASSERT_LE(std::round(u), 100.0);
  }

  // NaN becomes the default; infinities clamp.
  x = vec({NAN, NAN, NAN, NAN, NAN, INFINITY});
  s.snap(x);
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(x[static_cast<Eigen::Index>(i)], s.default_encoded(i)) << i;
  }
  EXPECT_DOUBLE_EQ(x[5], std::log(1e3));
  EXPECT_TRUE(s.contains(x));

  // contains() detects points that are not on the space.
  EXPECT_FALSE(s.contains(vec({0.5, 0.5, 0, 0, 0, 0})));
  EXPECT_FALSE(s.contains(vec({1.5, 0, 0, 0, 0, 0})));
  EXPECT_FALSE(s.contains(vec({0.5, 0, 0, 0, std::log(2.5), 0})));
  EXPECT_FALSE(s.contains(vec({NAN, 0, 0, 0, 0, 0})));
  EXPECT_TRUE(s.contains(vec({0.5, 1, 2, 1, std::log(7.0), 0})));
  EXPECT_TRUE(s.contains(vec({0.5, 1 + 1e-12, 2, 1, 0, 0})));
  EXPECT_FALSE(s.contains(vec({0.5, 1 + 1e-6, 2, 1, 0, 0})));
  EXPECT_TRUE(s.contains(vec({0.5, 1 + 1e-6, 2, 1, 0, 0}), 1e-5));
}

TEST(SpaceFromUnit, DiscreteValuesHaveEqualMass) {
  Space s({Parameter::integer("n", -2, 4), Parameter::categorical("c", {"a", "b", "c", "d", "e"}),
           Parameter::binary("b"), Parameter::real("r", -1, 1),
           Parameter::integer("ln", 1, 16, true)});
  constexpr int kGrid = 7 * 5 * 2 * 100;
  std::map<double, int> n_count, c_count, b_count, ln_count;
  for (int k = 0; k <= kGrid; ++k) {
    const double t = static_cast<double>(k) / kGrid;  // includes 0 and 1 exactly
    const Eigen::VectorXd x = s.from_unit(Eigen::VectorXd::Constant(5, t));
    ASSERT_TRUE(s.contains(x)) << t;
    ASSERT_TRUE(((x.array() >= s.lower().array()) && (x.array() <= s.upper().array())).all());
    ++n_count[x[0]];
    ++c_count[x[1]];
    ++b_count[x[2]];
    ++ln_count[std::round(std::exp(x[4]))];
    EXPECT_NEAR(x[3], -1 + 2 * t, 1e-12);
  }
  const auto check = [&](const std::map<double, int>& counts, double lo, int values) {
    ASSERT_EQ(static_cast<int>(counts.size()), values);
    for (int v = 0; v < values; ++v) {
      const auto it = counts.find(lo + v);
      ASSERT_NE(it, counts.end()) << "value " << lo + v << " never drawn";
      EXPECT_NEAR(it->second, static_cast<double>(kGrid) / values, 1.0 + 0.01 * kGrid / values)
          << "value " << lo + v;
    }
  };
  check(n_count, -2, 7);
  check(c_count, 0, 5);
  check(b_count, 0, 2);
  // Log-integers are log-uniform, not uniform, but every value is reachable.
  ASSERT_EQ(ln_count.size(), 16u);
  EXPECT_GT(ln_count.begin()->second, ln_count.rbegin()->second);

  // Corners and out-of-cube inputs stay in bounds.
  EXPECT_EQ(s.from_unit(Eigen::VectorXd::Zero(5)).head(4), vec({-2, 0, 0, -1}));
  EXPECT_EQ(s.from_unit(Eigen::VectorXd::Ones(5)).head(4), vec({4, 4, 1, 1}));
  EXPECT_EQ(s.from_unit(Eigen::VectorXd::Constant(5, 7.0)), s.from_unit(Eigen::VectorXd::Ones(5)));
  EXPECT_EQ(s.from_unit(Eigen::VectorXd::Constant(5, -3.0)), s.from_unit(Eigen::VectorXd::Zero(5)));
  Space lr({Parameter::real("lr", 1e-4, 1, true)});
  EXPECT_NEAR(std::exp(lr.from_unit(vec({0.5}))[0]), 1e-2, 1e-12);

  // The in-place overload agrees and reuses the vector.
  Eigen::VectorXd out;
  const Eigen::VectorXd u = vec({0.3, 0.9, 0.6, 0.1, 0.45});
  s.from_unit(u, out);
  EXPECT_EQ(out, s.from_unit(u));
}

// opt -> momentum; layers -> units2; layers -> use_dropout -> dropout.
Space conditional_space() {
  return Space({
      Parameter::categorical("opt", {"adam", "sgd"}),
      with_condition(Parameter::real("momentum", 0, 1), "opt", {Value{std::string("sgd")}}),
      Parameter::integer("layers", 1, 3),
      with_condition(Parameter::integer("units2", 8, 64), "layers",
                     {Value{std::int64_t{2}}, Value{std::int64_t{3}}}),
      // The default `true` satisfies the grandchild's condition, so only the recursion on the
      // parent's own activity can make `dropout` inactive when layers < 3.
      with_default(
          with_condition(Parameter::binary("use_dropout"), "layers", {Value{std::int64_t{3}}}),
          true),
      with_condition(Parameter::real("dropout", 0, 0.5), "use_dropout", {Value{true}}),
  });
}

TEST(SpaceConditions, InactiveChildrenDecodeToMonostateAndSnapToDefault) {
  const Space s = conditional_space();
  EXPECT_TRUE(s.has_conditions());
  // adam, 1 layer: momentum, units2, use_dropout and dropout are inactive.
  Eigen::VectorXd x = vec({0, 0.9, 1, 40, 0, 0.4});
  s.snap(x);
  EXPECT_EQ(x, vec({0, s.default_encoded(1), 1, s.default_encoded(3), 1, s.default_encoded(5)}));
  const auto v = s.decode(vec({0, 0.9, 1, 40, 0, 0.4}));
  EXPECT_EQ(std::get<std::string>(v[0]), "adam");
  EXPECT_TRUE(std::holds_alternative<std::monostate>(v[1]));
  EXPECT_EQ(std::get<std::int64_t>(v[2]), 1);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(v[3]));
  EXPECT_TRUE(std::holds_alternative<std::monostate>(v[4]));
  EXPECT_TRUE(std::holds_alternative<std::monostate>(v[5]))
      << "grandchild of an inactive parent must be inactive";
  for (std::size_t i : {1u, 3u, 4u, 5u}) EXPECT_FALSE(s.is_active(x, i)) << i;
  EXPECT_TRUE(s.is_active(x, 0));
  EXPECT_TRUE(s.is_active(x, 2));
  EXPECT_EQ(s.describe(x), "opt=adam, layers=1");

  // sgd, 3 layers, dropout on: everything active.
  x = vec({1, 0.9, 3, 40, 1, 0.4});
  EXPECT_TRUE(s.contains(x));
  for (std::size_t i = 0; i < s.size(); ++i) EXPECT_TRUE(s.is_active(x, i)) << i;
  const auto w = s.decode(x);
  EXPECT_EQ(std::get<double>(w[1]), 0.9);
  EXPECT_EQ(std::get<std::int64_t>(w[3]), 40);
  EXPECT_EQ(std::get<bool>(w[4]), true);
  EXPECT_EQ(std::get<double>(w[5]), 0.4);
  EXPECT_EQ(s.describe(x),
            "opt=sgd, momentum=0.9, layers=3, units2=40, use_dropout=true, dropout=0.4");

  // 3 layers, dropout off: only the grandchild is inactive.
  x = vec({1, 0.9, 3, 40, 0, 0.4});
  s.snap(x);
  EXPECT_EQ(x[5], s.default_encoded(5));
  EXPECT_TRUE(s.is_active(x, 4));
  EXPECT_FALSE(s.is_active(x, 5));

  // 2 layers: units2 active, dropout branch inactive.
  x = vec({1, 0.2, 2, 9.6, 1, 0.4});
  s.snap(x);
  EXPECT_EQ(x, vec({1, 0.2, 2, 10, 1, s.default_encoded(5)}));
}

TEST(SpaceConditions, ContainsRequiresInactiveCoordinatesAtDefault) {
  const Space s = conditional_space();
  // A valid-looking point whose inactive coordinates are not at their defaults is not "in".
  EXPECT_FALSE(s.contains(vec({0, 0.9, 1, 40, 0, 0.4})));
  Eigen::VectorXd x = vec({0, 0.9, 1, 40, 0, 0.4});
  s.snap(x);
  EXPECT_TRUE(s.contains(x));
  // encode ignores values given for inactive parameters and takes monostate.
  const Eigen::VectorXd e =
      s.encode({std::string("adam"), Value{}, std::int64_t{1}, Value{}, Value{}, Value{}});
  EXPECT_EQ(e, x);
  const Eigen::VectorXd e2 =
      s.encode({std::string("adam"), 0.3, std::int64_t{1}, std::int64_t{20}, false, 0.1});
  EXPECT_EQ(e2, x);
  // Equal configurations have equal vectors.
  EXPECT_EQ(s.from_unit(vec({0.1, 0.2, 0.1, 0.3, 0.9, 0.2})),
            s.from_unit(vec({0.2, 0.7, 0.2, 0.8, 0.1, 0.9})));
}

TEST(SpaceConditions, FromUnitCoversActiveBranches) {
  const Space s = conditional_space();
  int all_active = 0, dropout_inactive = 0;
  for (int k = 0; k < 1000; ++k) {
    const double t = (k + 0.5) / 1000.0;
    // Different coordinates move at different speeds so that combinations vary.
    Eigen::VectorXd u(6);
    for (Eigen::Index i = 0; i < 6; ++i) u[i] = std::fmod(t * static_cast<double>(1 + 3 * i), 1.0);
    const Eigen::VectorXd x = s.from_unit(u);
    ASSERT_TRUE(s.contains(x));
    if (s.is_active(x, 5)) {
      ++all_active;
    } else {
      ++dropout_inactive;
      EXPECT_EQ(x[5], s.default_encoded(5));
    }
  }
  EXPECT_GT(all_active, 0);
  EXPECT_GT(dropout_inactive, 0);
}

TEST(SpaceConditions, BinaryAndIntegerParents) {
  Space s({Parameter::binary("flag"),
           with_condition(Parameter::integer("k", 0, 9), "flag", {Value{std::int64_t{1}}}),
           with_condition(Parameter::categorical("mode", {"p", "q"}), "k",
                          {Value{std::int64_t{0}}, Value{4.0}})});
  EXPECT_FALSE(s.is_active(vec({0, 4, 1}), 1));
  EXPECT_FALSE(s.is_active(vec({0, 4, 1}), 2));  // k's default (5) would not activate it anyway
  EXPECT_TRUE(s.is_active(vec({1, 4, 1}), 2));
  EXPECT_TRUE(s.is_active(vec({1, 0, 1}), 2));
  EXPECT_FALSE(s.is_active(vec({1, 3, 1}), 2));
  EXPECT_TRUE(s.is_active(vec({1, 3.8, 1}), 2));  // snapped to 4 first
}

}  // namespace
}  // namespace arbo::sdk
