// SPDX-License-Identifier: MIT
// Values of the BARK suite's problems at their optimizers and at hand-computed points. Every
// reference number below was computed independently in Python (3.11, pure Python: its own
// std::mt19937_64, checked against the standard's 10000th-output value, its own forest
// generator, evaluator and branch and bound, the latter validated by brute force over every
// cell of 84 small forests), not by calling the plugin.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <arbo/sdk/error.hpp>
#include <arbo/sdk/testing/conformance.hpp>

#include "common/problem_test_util.hpp"

namespace {

using namespace arbo::sdk;
using arbo::sdk::testing::PluginUnderTest;

using arbo::test::vec;

const PluginUnderTest& plugin() {
  return arbo::test::problem_library("libarbo_problem_bark_suite.so");
}

struct Instance : arbo::test::ProblemInstance {
  using ProblemInstance::ProblemInstance;

  // Lowest value over n uniform points of the space.
  double sampled_min(int n, std::uint64_t seed) {
    double best = std::numeric_limits<double>::infinity();
    arbo::test::for_uniform_points(space(), n, seed,
                                   [&](const Eigen::VectorXd& x) { best = std::min(best, f(x)); });
    return best;
  }
};

std::unique_ptr<Instance> make(const std::string& name,
                               const std::map<std::string, ParamValue>& raw = {},
                               std::uint64_t seed = 7) {
  return arbo::test::make_problem<Instance>(plugin(), name, raw, seed);
}

Eigen::VectorXd forest_point(double real, std::vector<double> cats = {}) {
  std::vector<double> v(10, real);
  v.insert(v.end(), cats.begin(), cats.end());
  return vec(v);
}

TEST(bark_suite_plugin, loads_all_five_problems) {
  ASSERT_TRUE(plugin().compatible()) << plugin().header_error();
  EXPECT_EQ(plugin().components().size(), 5u);
  for (const char* name : {"tree_function", "tree_function_cat", "discrete_ackley13",
                           "discrete_rosenbrock10", "pest_control"}) {
    EXPECT_NE(plugin().find(Kind::Problem, name), nullptr) << name;
  }
}

// f* of the default instance (seed 1, 50 trees), recorded from the Python branch and bound.
constexpr double kTreeFunctionOptimum = -30.064306991674755;
constexpr double kTreeFunctionCatOptimum = -35.04486667326926;

TEST(bark_suite_plugin, tree_function_exact_optimum_and_points) {
  auto p = make("tree_function");
  const Space& s = p->problem->space();
  ASSERT_EQ(s.size(), 10u);
  for (std::size_t i = 0; i < 10; ++i) {
    EXPECT_EQ(s[i].type, ParamType::Real);
    EXPECT_EQ(s[i].lower, 0.0);
    EXPECT_EQ(s[i].upper, 1.0);
  }
  const ProblemInfo info = p->problem->info();
  EXPECT_FALSE(info.maximize);
  EXPECT_FALSE(info.optimum_is_best_known);
  ASSERT_TRUE(info.optimum.has_value());
  EXPECT_NEAR(*info.optimum, kTreeFunctionOptimum, 1e-12);
  ASSERT_EQ(info.optimizers.size(), 1u);
  EXPECT_TRUE(s.contains(info.optimizers[0]));
  EXPECT_NEAR(p->f(info.optimizers[0]), kTreeFunctionOptimum, 1e-12);
  // The Python branch and bound's cell centre (the same cell: both order leaves by value).
  const Eigen::VectorXd python_optimizer =
      vec({0.4348936499261422, 0.0596765964336779, 0.010897388278531817, 0.26266067909428975,
           0.1004259969261106, 0.6088178228488014, 0.454846657343999, 0.1542347431423628,
           0.2491996010902936, 0.7623342791071577});
  EXPECT_NEAR(p->f(python_optimizer), kTreeFunctionOptimum, 1e-12);

  EXPECT_NEAR(p->f(forest_point(0.5)), -8.894079674828845, 1e-12);
  EXPECT_NEAR(p->f(forest_point(0.25)), -21.476687990574877, 1e-12);
  EXPECT_NEAR(p->f(forest_point(0.9)), 4.580031172231156, 1e-12);
  // No random point beats the exact minimum.
  EXPECT_GE(p->sampled_min(20000, 11), kTreeFunctionOptimum - 1e-12);
}

TEST(bark_suite_plugin, tree_function_seed_gives_another_instance) {
  auto p = make("tree_function", {{"seed", std::int64_t{2}}});
  const ProblemInfo info = p->problem->info();
  ASSERT_TRUE(info.optimum.has_value());
  EXPECT_NEAR(*info.optimum, -17.502132147304273, 1e-12);
  EXPECT_NEAR(p->f(info.optimizers[0]), *info.optimum, 1e-12);
  EXPECT_NEAR(p->f(forest_point(0.5)), 4.5025021506960945, 1e-12);
}

TEST(bark_suite_plugin, tree_function_small_forests_have_no_point_below_their_optimum) {
  // Few trees give few, large cells, so uniform sampling gets close to the optimum; it must
  // never go below it.
  for (std::int64_t seed = 3; seed < 13; ++seed) {
    for (const char* name : {"tree_function", "tree_function_cat"}) {
      auto p = make(name, {{"seed", seed}, {"num_trees", std::int64_t{4}}});
      const ProblemInfo info = p->problem->info();
      ASSERT_TRUE(info.optimum.has_value());
      EXPECT_EQ(p->f(info.optimizers[0]), *info.optimum) << name << " seed " << seed;
      EXPECT_GE(p->sampled_min(5000, static_cast<std::uint64_t>(seed)), *info.optimum)
          << name << " seed " << seed;
    }
  }
}

TEST(bark_suite_plugin, tree_function_cat_exact_optimum_and_points) {
  auto p = make("tree_function_cat");
  const Space& s = p->problem->space();
  ASSERT_EQ(s.size(), 20u);
  for (std::size_t i = 10; i < 20; ++i) {
    EXPECT_EQ(s[i].type, ParamType::Categorical);
    EXPECT_EQ(s[i].choices.size(), 5u);
  }
  const ProblemInfo info = p->problem->info();
  ASSERT_TRUE(info.optimum.has_value());
  EXPECT_NEAR(*info.optimum, kTreeFunctionCatOptimum, 1e-12);
  ASSERT_EQ(info.optimizers.size(), 1u);
  EXPECT_TRUE(s.contains(info.optimizers[0]));
  EXPECT_NEAR(p->f(info.optimizers[0]), kTreeFunctionCatOptimum, 1e-12);

  EXPECT_NEAR(p->f(forest_point(0.5, std::vector<double>(10, 0.0))), -12.024442756889389, 1e-12);
  EXPECT_NEAR(p->f(forest_point(0.25, std::vector<double>(10, 2.0))), -14.443420248399939, 1e-12);
  EXPECT_NEAR(p->f(forest_point(0.9, std::vector<double>(10, 4.0))), -0.4874658431520762, 1e-12);
  // The categoricals matter (in the reference code every categorical split was degenerate).
  EXPECT_NEAR(p->f(forest_point(0.5, std::vector<double>(10, 4.0))), -8.894079674828845, 1e-12);
  EXPECT_NEAR(p->f(forest_point(0.5, {0, 1, 2, 3, 4, 0, 1, 2, 3, 4})), -10.678801946978648, 1e-12);
  EXPECT_GE(p->sampled_min(20000, 12), kTreeFunctionCatOptimum - 1e-12);
}

TEST(bark_suite_plugin, discrete_ackley13_optimum_and_points) {
  auto p = make("discrete_ackley13");
  const Space& s = p->problem->space();
  ASSERT_EQ(s.size(), 13u);
  for (std::size_t i = 0; i < 10; ++i) {
    EXPECT_EQ(s[i].type, ParamType::Integer);
    EXPECT_EQ(s[i].lower, 0.0);
    EXPECT_EQ(s[i].upper, 1.0);
  }
  for (std::size_t i = 10; i < 13; ++i) {
    EXPECT_EQ(s[i].type, ParamType::Real);
    EXPECT_EQ(s[i].lower, -1.0);
    EXPECT_EQ(s[i].upper, 1.0);
  }
  const ProblemInfo info = p->problem->info();
  ASSERT_TRUE(info.optimum.has_value());
  // The independent four-digit f* = 3.2178 (docs/methods/bark.md).
  EXPECT_NEAR(*info.optimum, 3.2177686376465147, 1e-12);
  EXPECT_NEAR(*info.optimum, 3.2178, 5e-5);
  ASSERT_FALSE(info.optimizers.empty());
  for (const auto& xs : info.optimizers) {
    EXPECT_TRUE(s.contains(xs));
    EXPECT_NEAR(p->f(xs), 3.2177686376465147, 1e-12);
  }
  Eigen::VectorXd x = Eigen::VectorXd::Ones(13);  // z = 1 everywhere: 20 (1 - e^-0.2)
  EXPECT_NEAR(p->f(x), 3.6253849384403627, 1e-12);
  x << 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0.5, -0.25, 0.0;
  EXPECT_NEAR(p->f(x), 3.823525923041615, 1e-12);
  EXPECT_GE(p->sampled_min(20000, 13), 3.2177686376465147 - 1e-12);
}

TEST(bark_suite_plugin, discrete_rosenbrock10_optimum_and_points) {
  auto p = make("discrete_rosenbrock10");
  const Space& s = p->problem->space();
  ASSERT_EQ(s.size(), 10u);
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(s[i].type, ParamType::Integer);
    EXPECT_EQ(s[i].lower, -1.0);
    EXPECT_EQ(s[i].upper, 2.0);
  }
  for (std::size_t i = 6; i < 10; ++i) {
    EXPECT_EQ(s[i].type, ParamType::Real);
    EXPECT_EQ(s[i].lower, -5.0);
    EXPECT_EQ(s[i].upper, 10.0);
  }
  const ProblemInfo info = p->problem->info();
  ASSERT_TRUE(info.optimum.has_value());
  // Python: brute force over the 4^6 integer parts, Newton from 300 starts on the reals.
  EXPECT_NEAR(*info.optimum, 8.969896989707385, 1e-12);
  EXPECT_NEAR(*info.optimum, 8.9699, 5e-5);  // four-digit value of docs/methods/bark.md
  ASSERT_EQ(info.optimizers.size(), 1u);
  EXPECT_NEAR(p->f(info.optimizers[0]), 8.969896989707385, 1e-12);
  // Moving any real coordinate a little raises f (a local check of optimality).
  for (Eigen::Index k = 6; k < 10; ++k) {
    for (const double h : {-1e-3, 1e-3}) {
      Eigen::VectorXd x = info.optimizers[0];
      x[k] += h;
      EXPECT_GT(p->f(x), 8.969896989707385) << k;
    }
  }
  EXPECT_EQ(p->f(Eigen::VectorXd::Zero(10)), 9.0);
  Eigen::VectorXd x(10);
  x << 1, 1, 1, 1, 1, 1, 5, 5, 5, 5;
  EXPECT_EQ(p->f(x), 360144.0);
  x << -1, 0, 1, 2, 0, -1, 1, -2, 3.5, 0.25;
  EXPECT_NEAR(p->f(x), 1163111.25, 1e-6);
  EXPECT_GE(p->sampled_min(20000, 14), 8.969896989707385);
}

Eigen::VectorXd stages(const std::vector<int>& h) {
  Eigen::VectorXd x(25);
  for (int s = 0; s < 25; ++s) x[s] = h[static_cast<std::size_t>(s)];
  return x;
}

TEST(bark_suite_plugin, pest_control_values_at_hand_computed_schedules) {
  // No optimum is published (the paper gives none; the reference code's comment "11.5" is
  // for its own stochastic simulator), so only values are checked.
  auto p = make("pest_control");
  const Space& s = p->problem->space();
  ASSERT_EQ(s.size(), 25u);
  for (std::size_t i = 0; i < 25; ++i) {
    EXPECT_EQ(s[i].type, ParamType::Categorical);
    EXPECT_EQ(s[i].choices, (std::vector<std::string>{"none", "p1", "p2", "p3", "p4"}));
  }
  const ProblemInfo info = p->problem->info();
  EXPECT_FALSE(info.optimum.has_value());
  EXPECT_FALSE(info.maximize);

  std::vector<int> none(25, 0), all_p4(25, 4), cycle(25), alternate(25);
  for (int k = 0; k < 25; ++k) {
    cycle[static_cast<std::size_t>(k)] = k % 5;
    alternate[static_cast<std::size_t>(k)] = k % 2 == 0 ? 1 : 3;
  }
  EXPECT_NEAR(p->f(stages(none)), 23.69, 1e-12);
  // 25 x 0.5 (p4 has no discount) plus 0.04 for the stages above the threshold.
  EXPECT_NEAR(p->f(stages(all_p4)), 12.54, 1e-12);
  EXPECT_NEAR(p->f(stages(cycle)), 17.94, 1e-12);
  EXPECT_NEAR(p->f(stages(alternate)), 18.8784, 1e-12);

  auto q = make("pest_control", {{"seed", std::int64_t{7}}});
  EXPECT_NEAR(q->f(stages(none)), 23.58, 1e-12);
  EXPECT_NEAR(q->f(stages(cycle)), 17.98, 1e-12);
}

TEST(bark_suite_plugin, pest_control_stochastic_mode_draws_from_the_context) {
  auto fixed = make("pest_control");
  std::vector<int> cycle(25);
  for (int k = 0; k < 25; ++k) cycle[static_cast<std::size_t>(k)] = k % 5;
  EXPECT_EQ(fixed->f(stages(cycle)), fixed->f(stages(cycle)));

  auto a = make("pest_control", {{"stochastic", true}}, 99);
  auto b = make("pest_control", {{"stochastic", true}}, 99);
  std::vector<double> va, vb;
  for (int i = 0; i < 20; ++i) {
    va.push_back(a->f(stages(cycle)));
    vb.push_back(b->f(stages(cycle)));
  }
  EXPECT_EQ(va, vb);  // same context seed, same values
  double spread = 0.0;
  for (const double v : va) spread = std::max(spread, std::abs(v - va[0]));
  EXPECT_GT(spread, 0.0);  // but the values vary from evaluation to evaluation
}

TEST(bark_suite_plugin, rejects_points_of_the_wrong_length) {
  Evaluation e;
  for (const char* name : {"tree_function", "tree_function_cat", "discrete_ackley13",
                           "discrete_rosenbrock10", "pest_control"}) {
    auto p = make(name);
    EXPECT_THROW(p->problem->evaluate(Eigen::VectorXd::Zero(3), e), InvalidArgument) << name;
  }
}

// The library passes the same conformance kit that third-party plugins use.
TEST(stock_plugin_conformance, problem_bark_suite) {
  arbo::sdk::testing::expect_plugin_conforms(ARBO_PLUGIN_DIR "/libarbo_problem_bark_suite.so");
}

}  // namespace
