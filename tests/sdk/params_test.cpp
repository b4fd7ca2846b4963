// SPDX-License-Identifier: MIT
// Tests of component parameter specs, validation and the typed ParamSet getters.
#include <cmath>
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "arbo/sdk/error.hpp"
#include "arbo/sdk/params.hpp"

namespace arbo::sdk {
namespace {

const ParamSpecList& specs() {
  static const ParamSpecList list = {
      ParamSpec::boolean("verbose", "print progress", false),
      ParamSpec::integer("restarts", "number of restarts", 5, 0, 100),
      ParamSpec::real("noise", "observation noise variance", 1e-6, 0.0),
      ParamSpec::real("xi", "exploration offset", 0.01),
      ParamSpec::string("label", "a free label", "run"),
      ParamSpec::choice("kernel", "covariance kernel", "matern52", {"rbf", "matern32", "matern52"}),
      ParamSpec::real_list("weights", "per-metric weights", {1.0, 2.0}).as_advanced(),
  };
  return list;
}

// Validates and returns the ParamError; fails the test if validation passes.
ParamError param_error(const std::map<std::string, ParamValue>& raw,
                       const ParamSpecList& list = specs()) {
  try {
    validate_params(list, raw, "surrogate/gp");
  } catch (const ParamError& e) {
    EXPECT_NE(std::string(e.what()).find("surrogate/gp"), std::string::npos) << e.what();
    return e;
  }
  ADD_FAILURE() << "validate_params did not throw";
  return ParamError("", "");
}

void expect_contains(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << "'" << part << "' not in: " << text;
}

TEST(ParamSpec, KindsDomainsAndAdvanced) {
  EXPECT_STREQ(to_string(ParamKind::Bool), "bool");
  EXPECT_STREQ(to_string(ParamKind::RealList), "real list");
  const auto& s = specs();
  EXPECT_EQ(s[0].kind, ParamKind::Bool);
  EXPECT_EQ(s[1].kind, ParamKind::Int);
  EXPECT_EQ(s[1].domain(), "int in [0, 100]");
  EXPECT_EQ(s[2].domain(), "real in [0, inf)");
  EXPECT_EQ(s[3].domain(), "real");
  EXPECT_EQ(s[5].domain(), "one of {rbf, matern32, matern52}");
  EXPECT_EQ(s[6].domain(), "real list");
  EXPECT_FALSE(s[5].advanced);
  EXPECT_TRUE(s[6].advanced);
  EXPECT_EQ(ParamSpec::real("a", "", 0, -1).domain(), "real in [-1, inf)");
  EXPECT_EQ(ParamSpec::real("a", "", 0, -INFINITY, 2.5).domain(), "real in (-inf, 2.5]");
  EXPECT_EQ(to_string(ParamValue{true}), "true");
  EXPECT_EQ(to_string(ParamValue{std::int64_t{3}}), "3");
  EXPECT_EQ(to_string(ParamValue{0.5}), "0.5");
  EXPECT_EQ(to_string(ParamValue{std::string("x")}), "\"x\"");
  EXPECT_EQ(to_string(ParamValue{std::vector<double>{1.0, 2.5}}), "[1, 2.5]");
}

TEST(ValidateParams, FillsDefaults) {
  const ParamSet set = validate_params(specs(), {}, "surrogate/gp");
  EXPECT_EQ(set.values().size(), specs().size());
  EXPECT_FALSE(set.get_bool("verbose"));
  EXPECT_EQ(set.get_int("restarts"), 5);
  EXPECT_EQ(set.get_real("noise"), 1e-6);
  EXPECT_EQ(set.get_string("label"), "run");
  EXPECT_EQ(set.get_string("kernel"), "matern52");
  EXPECT_EQ(set.get_real_list("weights"), (std::vector<double>{1.0, 2.0}));
  EXPECT_TRUE(set.has("xi"));
  EXPECT_FALSE(set.has("nope"));
}

TEST(ValidateParams, TakesGivenValuesAndCoerces) {
  const ParamSet set = validate_params(specs(),
                                       {{"verbose", true},
                                        {"restarts", std::int64_t{100}},
                                        {"noise", std::int64_t{2}},  // int -> real
                                        {"xi", -3.5},
                                        {"label", std::string("")},
                                        {"kernel", std::string("rbf")},
                                        {"weights", 4.0}},  // number -> list
                                       "surrogate/gp");
  EXPECT_TRUE(set.get_bool("verbose"));
  EXPECT_EQ(set.get_int("restarts"), 100);
  EXPECT_TRUE(std::holds_alternative<double>(set.get("noise")));
  EXPECT_EQ(set.get_real("noise"), 2.0);
  EXPECT_EQ(set.get_real("xi"), -3.5);
  EXPECT_EQ(set.get_string("label"), "");
  EXPECT_EQ(set.get_string("kernel"), "rbf");
  EXPECT_EQ(set.get_real_list("weights"), (std::vector<double>{4.0}));
  const ParamSet list_from_int =
      validate_params(specs(), {{"weights", std::int64_t{7}}}, "surrogate/gp");
  EXPECT_EQ(list_from_int.get_real_list("weights"), (std::vector<double>{7.0}));
  const ParamSet list =
      validate_params(specs(), {{"weights", std::vector<double>{}}}, "surrogate/gp");
  EXPECT_TRUE(list.get_real_list("weights").empty());
  // Range bounds are inclusive.
  EXPECT_EQ(validate_params(specs(), {{"noise", 0.0}}, "c").get_real("noise"), 0.0);
  EXPECT_EQ(validate_params(specs(), {{"restarts", std::int64_t{0}}}, "c").get_int("restarts"), 0);
}

TEST(ValidateParams, RangeErrors) {
  ParamError e = param_error({{"restarts", std::int64_t{101}}});
  EXPECT_EQ(e.key(), "restarts");
  expect_contains(e.what(), "'restarts' = 101 is out of range; expected int in [0, 100]");
  e = param_error({{"restarts", std::int64_t{-1}}});
  EXPECT_EQ(e.key(), "restarts");
  e = param_error({{"noise", -1e-9}});
  EXPECT_EQ(e.key(), "noise");
  expect_contains(e.what(), "expected real in [0, inf)");
  e = param_error({{"noise", std::int64_t{-2}}});
  EXPECT_EQ(e.key(), "noise");
  e = param_error({{"xi", NAN}});
  expect_contains(e.what(), "'xi' is NaN");
}

TEST(ValidateParams, TypeErrors) {
  ParamError e = param_error({{"verbose", std::int64_t{1}}});
  EXPECT_EQ(e.key(), "verbose");
  expect_contains(e.what(), "expects a bool");
  e = param_error({{"restarts", 2.0}});
  EXPECT_EQ(e.key(), "restarts");
  expect_contains(e.what(), "expects an integer, got 2");
  e = param_error({{"noise", std::string("small")}});
  expect_contains(e.what(), "expects a number, got \"small\"");
  e = param_error({{"label", true}});
  expect_contains(e.what(), "expects a string");
  e = param_error({{"kernel", std::int64_t{3}}});
  EXPECT_EQ(e.key(), "kernel");
  expect_contains(e.what(), "expects a string");
  e = param_error({{"weights", std::string("1,2")}});
  EXPECT_EQ(e.key(), "weights");
  expect_contains(e.what(), "expects a list of numbers");
}

TEST(ValidateParams, ChoiceErrors) {
  ParamError e = param_error({{"kernel", std::string("matern53")}});
  EXPECT_EQ(e.key(), "kernel");
  expect_contains(e.what(), "\"matern53\" is not one of {rbf, matern32, matern52}");
  expect_contains(e.what(), "did you mean \"matern52\"?");
  e = param_error({{"kernel", std::string("periodic")}});
  expect_contains(e.what(), "is not one of {rbf, matern32, matern52}");
  EXPECT_EQ(std::string(e.what()).find("did you mean"), std::string::npos) << e.what();
}

TEST(ValidateParams, UnknownKey) {
  ParamError e = param_error({{"restart", std::int64_t{3}}});
  EXPECT_EQ(e.key(), "restart");
  expect_contains(e.what(), "surrogate/gp: unknown parameter 'restart'; did you mean 'restarts'?");
  e = param_error({{"completely_different", 1.0}});
  EXPECT_EQ(e.key(), "completely_different");
  expect_contains(e.what(),
                  "unknown parameter 'completely_different' (valid: verbose, restarts, noise, xi, "
                  "label, kernel, weights)");
  e = param_error({{"x", 1.0}}, ParamSpecList{});
  expect_contains(e.what(), "(this component takes no parameters)");
  // The unknown key is reported even when a known key also has an error.
  e = param_error({{"restarts", std::int64_t{-5}}, {"zzz_unknown_zzz", 1.0}});
  EXPECT_EQ(e.key(), "zzz_unknown_zzz");
}

TEST(ParamSet, WrongKindAndMissingErrors) {
  const ParamSet set = validate_params(specs(), {}, "c");
  const auto key_of = [](auto&& f) {
    try {
      f();
    } catch (const ParamError& e) {
      return e.key() + ": " + e.what();
    }
    return std::string("no throw");
  };
  expect_contains(key_of([&] { set.get_bool("restarts"); }),
                  "restarts: parameter 'restarts' is not a bool");
  expect_contains(key_of([&] { set.get_int("noise"); }), "noise: parameter 'noise' is not a");
  expect_contains(key_of([&] { set.get_real("label"); }), "label: parameter 'label' is not a real");
  expect_contains(key_of([&] { set.get_string("verbose"); }), "verbose:");
  expect_contains(key_of([&] { set.get_real_list("xi"); }),
                  "xi: parameter 'xi' is not a real list");
  expect_contains(key_of([&] { set.get("missing"); }), "missing: no parameter 'missing'");
  expect_contains(key_of([&] { set.get_real("missing"); }), "missing:");
  // get_real converts ints.
  EXPECT_EQ(set.get_real("restarts"), 5.0);
  // set() overrides without validation.
  ParamSet copy = set;
  copy.set("restarts", std::int64_t{-7});
  EXPECT_EQ(copy.get_int("restarts"), -7);
  EXPECT_EQ(set.get_int("restarts"), 5);
}

TEST(NearestName, Hints) {
  const std::vector<std::string> names = {"restarts", "noise", "kernel", "lengthscale"};
  EXPECT_EQ(nearest_name("restart", names), "restarts");
  EXPECT_EQ(nearest_name("noize", names), "noise");
  EXPECT_EQ(nearest_name("kernle", names), "kernel");           // transposition = 2 edits
  EXPECT_EQ(nearest_name("lenghtscal", names), "lengthscale");  // 3 edits, |key|/3 = 3
  EXPECT_EQ(nearest_name("kernel", names), "kernel");
  EXPECT_EQ(nearest_name("zzzzzz", names), "");
  EXPECT_EQ(nearest_name("abc", names), "");
  EXPECT_EQ(nearest_name("", names), "");
  EXPECT_EQ(nearest_name("anything", {}), "");
  // Ties go to the first candidate.
  EXPECT_EQ(nearest_name("ab", {"ac", "ad"}), "ac");
}

}  // namespace
}  // namespace arbo::sdk
