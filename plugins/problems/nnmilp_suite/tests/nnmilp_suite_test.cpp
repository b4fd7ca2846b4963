// SPDX-License-Identifier: MIT
// Values of the NN+MILP suite's problems at their optimizers and at hand-computed points, the
// Ising known constraints against their expression strings, and feasible fractions. Every
// reference number was computed independently in pure Python 3.11 (its own std::mt19937_64,
// the BBOB formulas re-typed from google/vizier's bbob.py, the Ising tables and the network
// weights), not by calling the plugin.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <arbo/sdk/capabilities.hpp>
#include <arbo/sdk/error.hpp>
#include <arbo/sdk/testing/conformance.hpp>

#include "common/problem_test_util.hpp"

namespace {

using namespace arbo::sdk;
using arbo::sdk::testing::PluginUnderTest;

using Instance = arbo::test::ProblemInstance;
using arbo::test::vec;

const PluginUnderTest& plugin() {
  return arbo::test::problem_library("libarbo_problem_nnmilp_suite.so");
}

std::unique_ptr<Instance> make(const std::string& name,
                               const std::map<std::string, ParamValue>& raw = {}) {
  return arbo::test::make_problem(plugin(), name, raw);
}

const char* const kBbobNames[] = {
    "bbob_sphere",   "bbob_ellipsoid_separable", "bbob_attractive_sector", "bbob_step_ellipsoid",
    "bbob_discus",   "bbob_bent_cigar",          "bbob_weierstrass",       "bbob_schaffers_f7",
    "bbob_schwefel", "bbob_gallagher_21me"};

TEST(nnmilp_suite_plugin, loads_all_fourteen_problems) {
  ASSERT_TRUE(plugin().compatible()) << plugin().header_error();
  EXPECT_EQ(plugin().components().size(), 14u);
  for (const char* name : {"random_mlp", "ising100", "ising200", "ising400"}) {
    EXPECT_NE(plugin().find(Kind::Problem, name), nullptr) << name;
  }
  for (const char* name : kBbobNames)
    EXPECT_NE(plugin().find(Kind::Problem, name), nullptr) << name;
}

TEST(nnmilp_suite_plugin, random_mlp_values) {
  // The global maximum of a random 125-128-128-1 network is not known (the paper reports only
  // normalized scores), so no optimizer is checked: only values at hand-computed points.
  auto p = make("random_mlp");
  const Space& s = p->problem->space();
  ASSERT_EQ(s.size(), 25u);
  for (std::size_t i = 0; i < 25; ++i) {
    EXPECT_EQ(s[i].type, ParamType::Categorical);
    EXPECT_EQ(s[i].choices, (std::vector<std::string>{"A", "B", "C", "D", "E"}));
  }
  const ProblemInfo info = p->problem->info();
  EXPECT_TRUE(info.maximize);
  EXPECT_FALSE(info.optimum.has_value());
  EXPECT_EQ(p->known, nullptr);

  std::vector<int> cycle(25);
  for (int i = 0; i < 25; ++i) cycle[static_cast<std::size_t>(i)] = i % 5;
  EXPECT_NEAR(p->f(Eigen::VectorXd::Zero(25)), -0.4016076640582835, 1e-12);
  EXPECT_NEAR(p->f(vec(cycle)), -0.04039987121774764, 1e-12);
  auto q = make("random_mlp", {{"seed", std::int64_t{13}}});
  EXPECT_NEAR(q->f(Eigen::VectorXd::Constant(25, 4.0)), 0.0045077214192197155, 1e-12);
}

struct BbobReference {
  const char* name;
  double optimum;              // normalized f* on the grid
  std::vector<int> optimizer;  // level indices
  double ascending;            // at levels 0, 1, ..., 9
  double mixed;                // at levels 9, 5, 4, 6, 4, 5, 3, 4, 5, 4
};

// The Python reference (MAD over the same 30 points: sphere 18.364197530864210, ellipsoid
// 5205012.718765138, attractive sector 78494.0502765559, ..., gallagher 0.3478564460464).
const std::vector<BbobReference>& bbob_references() {
  // clang-format off
  static const std::vector<BbobReference> refs = {
      {"bbob_sphere", 0.0, {4, 4, 4, 4, 4, 4, 4, 4, 4, 4}, 5.529411764705879, 1.7142857142857133},
      {"bbob_ellipsoid_separable", 0.0, {4, 4, 4, 4, 4, 4, 4, 4, 4, 4}, 5.390708442942114,
       0.02091613462208641},
      {"bbob_attractive_sector", 0.000262490197626514, {5, 4, 5, 4, 5, 4, 5, 4, 5, 4},
       2.5503917458256242, 0.6387103731053606},
      {"bbob_step_ellipsoid", 0.0, {4, 4, 4, 4, 4, 4, 4, 4, 4, 4}, 6.431596855678233,
       0.10577918021843655},
      {"bbob_discus", 0.0, {4, 4, 4, 4, 4, 4, 4, 4, 4, 4}, 2.6908708000965147, 2.7416100235056593},
      {"bbob_bent_cigar", 0.0, {4, 4, 4, 4, 4, 4, 4, 4, 4, 4}, 5.759013626172195,
       0.035385750644072},
      {"bbob_weierstrass", 0.0, {4, 4, 4, 4, 4, 4, 4, 4, 4, 4}, 5.085028611225408,
       0.9933154051374318},
      {"bbob_schaffers_f7", 0.0, {4, 4, 4, 4, 4, 4, 4, 4, 4, 4}, 2.893427166501942,
       0.8471177035093568},
      // Python: DP over the chain, confirmed by 60 single- and pair-move local searches.
      {"bbob_schwefel", 8.472132033541049e-05, {6, 4, 2, 4, 2, 4, 2, 5, 3, 6}, 2.0481651814154183,
       0.48539401669546006},
      {"bbob_gallagher_21me", 0.0, {4, 4, 4, 4, 4, 4, 4, 4, 4, 4}, 245.45121125610945,
       163.74455457987816},
  };
  // clang-format on
  return refs;
}

TEST(nnmilp_suite_plugin, bbob_grid_space) {
  auto p = make("bbob_sphere");
  const Space& s = p->problem->space();
  ASSERT_EQ(s.size(), 10u);
  for (std::size_t i = 0; i < 10; ++i) {
    EXPECT_EQ(s[i].type, ParamType::Categorical);
    EXPECT_EQ(s[i].choices.size(), 10u);
    EXPECT_EQ(s[i].choices[4], "0");
    EXPECT_EQ(s[i].choices[5], "0.5556");
  }
  // Sphere at level k everywhere is 10 v_k^2 / MAD, MAD = 18.364197530864210: v_4 = 0 (the
  // tie of -0.5556 and +0.5556 broken towards the lower index), v_9 = 5.
  EXPECT_NEAR(p->f(Eigen::VectorXd::Constant(10, 9.0)), 250.0 / 18.36419753086421, 1e-12);
  EXPECT_NEAR(p->f(Eigen::VectorXd::Constant(10, 5.0)),
              10.0 * (5.0 / 9.0) * (5.0 / 9.0) / 18.36419753086421, 1e-12);
}

TEST(nnmilp_suite_plugin, bbob_optima_and_points) {
  for (const auto& ref : bbob_references()) {
    SCOPED_TRACE(ref.name);
    auto p = make(ref.name);
    const ProblemInfo info = p->problem->info();
    EXPECT_FALSE(info.maximize);
    EXPECT_FALSE(info.optimum_is_best_known);
    ASSERT_TRUE(info.optimum.has_value());
    EXPECT_NEAR(*info.optimum, ref.optimum, 1e-12 * std::max(1.0, std::abs(ref.optimum)));
    ASSERT_EQ(info.optimizers.size(), 1u);
    EXPECT_EQ(info.optimizers[0], vec(ref.optimizer));
    EXPECT_NEAR(p->f(vec(ref.optimizer)), ref.optimum, 1e-12);
    EXPECT_NEAR(p->f(vec({0, 1, 2, 3, 4, 5, 6, 7, 8, 9})), ref.ascending, 1e-10 * ref.ascending);
    EXPECT_NEAR(p->f(vec({9, 5, 4, 6, 4, 5, 3, 4, 5, 4})), ref.mixed, 1e-10 * ref.mixed);
    // No grid point beats the exact optimum.
    std::mt19937_64 rng(42);
    std::uniform_int_distribution<int> level(0, 9);
    Eigen::VectorXd x(10);
    double best = std::numeric_limits<double>::infinity();
    for (int n = 0; n < 20000; ++n) {
      for (Eigen::Index i = 0; i < 10; ++i) x[i] = level(rng);
      best = std::min(best, p->f(x));
    }
    EXPECT_GE(best, ref.optimum - 1e-12);
  }
}

// g(x) of a linear expression "a + b - c ... == 0" over the space's parameter names, read
// token by token (the strings use only names, + and -, and "== 0").
double expression_value(const std::string& expression, const Space& space,
                        const Eigen::VectorXd& x) {
  std::istringstream in(expression);
  std::string token;
  double value = 0.0;
  double sign = 1.0;
  double side = 1.0;
  while (in >> token) {
    if (token == "+") {
      sign = 1.0;
    } else if (token == "-") {
      sign = -1.0;
    } else if (token == "==") {
      side = -1.0;
      sign = 1.0;
    } else if (auto i = space.index_of(token)) {
      value += side * sign * x[static_cast<Eigen::Index>(*i)];
    } else {
      value += side * sign * std::stod(token);
    }
  }
  return value;
}

TEST(nnmilp_suite_plugin, ising_constraint_strings_equal_known_values) {
  for (const auto& [name, n] : {std::pair{"ising100", 100}, {"ising200", 200}, {"ising400", 400}}) {
    SCOPED_TRACE(name);
    auto p = make(name);
    ASSERT_NE(p->known, nullptr);
    const Space& s = p->problem->space();
    ASSERT_EQ(s.size(), static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < s.size(); ++i) EXPECT_EQ(s[i].type, ParamType::Binary);
    const auto specs = p->known->known_constraints();
    ASSERT_EQ(specs.size(), static_cast<std::size_t>(n / 10));
    EXPECT_EQ(specs[0].name, "balance_0");
    EXPECT_EQ(specs[0].expression, "x0 + x1 + x2 + x3 + x4 - x5 - x6 - x7 - x8 - x9 == 0");
    EXPECT_EQ(specs[1].expression,
              "x10 + x11 + x12 + x13 + x14 - x15 - x16 - x17 - x18 - x19 == 0");
    EXPECT_TRUE(p->problem->constraint_names().empty());
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for (int trial = 0; trial < 50; ++trial) {
      Eigen::VectorXd x(n);
      for (Eigen::Index i = 0; i < n; ++i)
        x[i] = trial % 2 == 0 ? std::round(unit(rng)) : unit(rng);
      const Eigen::VectorXd g = p->g(x);
      ASSERT_EQ(g.size(), n / 10);
      for (std::size_t k = 0; k < specs.size(); ++k) {
        EXPECT_EQ(g[static_cast<Eigen::Index>(k)], expression_value(specs[k].expression, s, x))
            << specs[k].expression;
      }
    }
  }
}

std::vector<int> balanced(int n) {
  // Pair j: c = j mod 6 ones at the front of the first block and at the back of the second.
  std::vector<int> x;
  for (int j = 0; j < n / 10; ++j) {
    const int c = j % 6;
    for (int k = 0; k < 5; ++k) x.push_back(k < c ? 1 : 0);
    for (int k = 0; k < 5; ++k) x.push_back(k >= 5 - c ? 1 : 0);
  }
  return x;
}

TEST(nnmilp_suite_plugin, ising_values_and_feasibility) {
  // The optimum of these random instances is not known (the paper reports normalized scores
  // only), so values and feasibility are checked at hand-computed points.
  auto p = make("ising100");
  const ProblemInfo info = p->problem->info();
  EXPECT_TRUE(info.maximize);
  EXPECT_FALSE(info.optimum.has_value());

  const Eigen::VectorXd zeros = Eigen::VectorXd::Zero(100), ones = Eigen::VectorXd::Ones(100);
  EXPECT_NEAR(p->f(zeros), 15.754636316173546, 1e-10);
  EXPECT_NEAR(p->f(ones), 76.30138816060136, 1e-10);
  EXPECT_NEAR(p->f(vec(balanced(100))), 20.291431745266543, 1e-10);
  for (const Eigen::VectorXd& x : {zeros, ones, vec(balanced(100))}) {
    EXPECT_EQ(p->g(x), Eigen::VectorXd::Zero(10));
  }
  std::vector<int> alternate(100);
  for (int i = 0; i < 100; ++i) alternate[static_cast<std::size_t>(i)] = i % 2;
  EXPECT_NEAR(p->f(vec(alternate)), 29.79871487174005, 1e-10);
  // Blocks 0,1,0,1,0 | 1,0,1,0,1: 2 - 3 in every pair.
  EXPECT_EQ(p->g(vec(alternate)), Eigen::VectorXd::Constant(10, -1.0));

  auto q = make("ising200");
  EXPECT_NEAR(q->f(Eigen::VectorXd::Zero(200)), -4.025785665136073, 1e-10);
  EXPECT_NEAR(q->f(vec(balanced(200))), -122.65331761995526, 1e-10);
  EXPECT_EQ(q->g(vec(balanced(200))), Eigen::VectorXd::Zero(20));

  auto w = make("ising400");
  EXPECT_NEAR(w->f(Eigen::VectorXd::Zero(400)), -77.43217015371427, 1e-9);
  EXPECT_NEAR(w->f(vec(balanced(400))), -339.50889878927126, 1e-9);
  EXPECT_EQ(w->g(vec(balanced(400))), Eigen::VectorXd::Zero(40));

  auto r = make("ising100", {{"seed", std::int64_t{3}}});
  EXPECT_NEAR(r->f(vec(balanced(100))), 121.8482277252418, 1e-10);
}

TEST(nnmilp_suite_plugin, ising_feasible_fraction) {
  // docs/methods/nn-milp.md: per pair sum_c C(5,c)^2 = 252 of 1024 settings, so
  // (252/1024)^10 = 8.1e-7 for n = 100, "< 1e-6" in the paper (App. E.2.3). That is too rare
  // to sample, so: one pair exactly, and three pairs jointly by Monte Carlo (the pairs share no
  // variable, so the fractions multiply).
  auto p = make("ising100");
  Eigen::VectorXd x = Eigen::VectorXd::Zero(100);
  int feasible = 0;
  for (int bits = 0; bits < 1024; ++bits) {
    for (int i = 0; i < 10; ++i) x[i] = (bits >> i) & 1;
    feasible += p->g(x)[0] == 0.0 ? 1 : 0;
  }
  EXPECT_EQ(feasible, 252);
  EXPECT_LT(std::pow(252.0 / 1024.0, 10), 1e-6);
  EXPECT_NEAR(std::pow(252.0 / 1024.0, 10), 8.1e-7, 0.05e-7);

  // 400k samples: the standard error of 0.0149 is 0.00019, so +-0.001 cannot fail by chance.
  std::mt19937_64 rng(17);
  const int n = 400000;
  int joint = 0;
  for (int s = 0; s < n; ++s) {
    const std::uint64_t bits = rng();
    for (int i = 0; i < 100; ++i) x[i] = i < 64 ? static_cast<double>((bits >> i) & 1u) : 0.0;
    const Eigen::VectorXd g = p->g(x);
    joint += (g[0] == 0.0 && g[1] == 0.0 && g[2] == 0.0) ? 1 : 0;
  }
  EXPECT_NEAR(static_cast<double>(joint) / n, std::pow(252.0 / 1024.0, 3), 0.001);
}

TEST(nnmilp_suite_plugin, rejects_points_of_the_wrong_length) {
  Evaluation e;
  for (const char* name : {"random_mlp", "bbob_sphere", "bbob_schwefel", "ising100"}) {
    auto p = make(name);
    EXPECT_THROW(p->problem->evaluate(Eigen::VectorXd::Zero(3), e), InvalidArgument) << name;
  }
  auto p = make("ising200");
  Eigen::VectorXd g;
  EXPECT_THROW(p->known->known_values(Eigen::VectorXd::Zero(3), g), InvalidArgument);
}

// The library passes the same conformance kit that third-party plugins use.
TEST(stock_plugin_conformance, problem_nnmilp_suite) {
  arbo::sdk::testing::expect_plugin_conforms(ARBO_PLUGIN_DIR "/libarbo_problem_nnmilp_suite.so");
}

}  // namespace
