// SPDX-License-Identifier: MIT
// The operators of inner_solver/regularized_evolution on the core library the plugin links:
// tournament selection, crossover switches, token mutation per coordinate type, ConEvo's
// balance-keeping mutation (the detection of balance equalities is the SDK's:
// tests/sdk/balance_test.cpp). Fixed seeds; tolerances of about five standard deviations, so a
// wrong rate (p_c or p_m off by a tenth, a parent always starting) fails.
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "evolution.hpp"

namespace {

using namespace arbo::plugins::regevo;
using arbo::sdk::Parameter;
using arbo::sdk::Space;

TEST(regevo_population, tournament_picks_the_best_two_of_t_distinct_members) {
  Population pop;
  pop.reset(10, 1);
  for (int k = 0; k < 10; ++k) {
    const double x = k;
    pop.push(&x, static_cast<double>(k));
  }
  std::mt19937_64 rng(7);
  const int draws = 60000;
  std::map<int, int> best;
  int ordered = 0;
  for (int r = 0; r < draws; ++r) {
    const auto [a, b] = pop.tournament(3, rng);
    ASSERT_NE(a, b);  // three distinct members: the best two differ
    ordered += pop.score(a) > pop.score(b) ? 1 : 0;
    ++best[static_cast<int>(pop.score(a))];
  }
  EXPECT_EQ(ordered, draws);
  // Best of 3 drawn without replacement from 0..9: P(best = k) = C(k, 2) / C(10, 3).
  for (int k = 2; k < 10; ++k) {
    const double p = (k * (k - 1) / 2.0) / 120.0;
    EXPECT_NEAR(best[k] / static_cast<double>(draws), p, 5.0 * std::sqrt(p * (1 - p) / draws)) << k;
  }
  EXPECT_EQ(best[0] + best[1], 0);
}

TEST(regevo_population, keeps_the_most_recent_members_and_ranks_tiers_first) {
  Population pop;
  pop.reset(3, 1);
  for (int k = 0; k < 5; ++k) {
    const double x = k;
    // The newest has the best score but the lower tier (a black-box constraint violated).
    pop.push(&x, k == 4 ? 1000.0 : 100.0 - k, k == 4 ? 0 : 1);
  }
  ASSERT_EQ(pop.size(), 3);
  std::set<double> alive;
  for (Eigen::Index s = 0; s < 3; ++s) alive.insert(pop.row(s)[0]);
  EXPECT_EQ(alive, (std::set<double>{2.0, 3.0, 4.0}));
  std::mt19937_64 rng(1);
  const auto [a, b] = pop.tournament(3, rng);
  // Tier first: 2 (score 98) and 3 (97) beat 4 (1000, lower tier).
  EXPECT_EQ(pop.row(a)[0], 2.0);
  EXPECT_EQ(pop.row(b)[0], 3.0);
}

TEST(regevo_operators, crossover_switches_with_probability_p_c_and_either_parent_starts) {
  const Eigen::Index d = 50;
  const Eigen::VectorXd zeros = Eigen::VectorXd::Zero(d), ones = Eigen::VectorXd::Ones(d);
  Eigen::VectorXd child(d);
  for (const double p_c : {0.1, 0.2, 0.5}) {
    std::mt19937_64 rng(11);
    const int draws = 4000;
    long switches = 0, transitions = 0, first_from_b = 0;
    for (int r = 0; r < draws; ++r) {
      switches += crossover(zeros.data(), ones.data(), d, p_c, child, rng);
      for (Eigen::Index i = 1; i < d; ++i) transitions += child[i] != child[i - 1] ? 1 : 0;
      first_from_b += child[0] == 1.0 ? 1 : 0;
    }
    EXPECT_EQ(switches, transitions);  // the child shows every switch
    const double n = draws * static_cast<double>(d - 1);
    EXPECT_NEAR(transitions / n, p_c, 5.0 * std::sqrt(p_c * (1 - p_c) / n)) << p_c;
    EXPECT_NEAR(first_from_b / static_cast<double>(draws), 0.5, 5.0 * std::sqrt(0.25 / draws));
  }
}

TEST(regevo_operators, token_mutation_changes_each_position_with_probability_p_m) {
  const Space space({Parameter::binary("b"), Parameter::categorical("c", {"a", "b", "c", "d", "e"}),
                     Parameter::integer("i", 0, 9), Parameter::integer("l", 1, 100, true),
                     Parameter::real("r", 0.0, 1.0), Parameter::integer("fixed", 3, 3)});
  const TokenMutator mutator(space, RealMutation::Gaussian, 0.1);
  Eigen::VectorXd start(6);
  start << 1.0, 2.0, 4.0, std::log(10.0), 0.5, 3.0;
  const double p = 0.1;
  const int draws = 30000;
  std::mt19937_64 rng(3);
  std::vector<long> changed(6, 0);
  std::map<double, long> categories;
  double sum_sq = 0.0;
  long real_moves = 0;
  Eigen::VectorXd x(6);
  for (int r = 0; r < draws; ++r) {
    x = start;
    mutator.mutate(x, p, rng);
    for (int i = 0; i < 6; ++i) changed[static_cast<std::size_t>(i)] += x[i] != start[i] ? 1 : 0;
    if (x[1] != start[1]) ++categories[x[1]];
    // A mutated log-scaled integer is another integer of [1, 100], encoded as its log.
    const double user = std::exp(x[3]);
    ASSERT_NEAR(user, std::round(user), 1e-9);
    ASSERT_GE(std::round(user), 1.0);
    ASSERT_LE(std::round(user), 100.0);
    if (x[4] != start[4]) {
      sum_sq += (x[4] - start[4]) * (x[4] - start[4]);
      ++real_moves;
    }
  }
  const double tol = 5.0 * std::sqrt(p * (1 - p) / draws);
  for (int i = 0; i < 5; ++i)
    EXPECT_NEAR(changed[static_cast<std::size_t>(i)] / static_cast<double>(draws), p, tol) << i;
  EXPECT_EQ(changed[5], 0);  // a single-valued coordinate cannot change
  // The new category is uniform over the four others, never the current one.
  EXPECT_EQ(categories.count(2.0), 0u);
  ASSERT_EQ(categories.size(), 4u);
  for (const auto& [value, count] : categories)
    EXPECT_NEAR(count / static_cast<double>(changed[1]), 0.25, 0.05) << value;
  // Gaussian steps of 0.1 x range from the middle: the bounds (5 sd away) hardly reflect.
  EXPECT_NEAR(std::sqrt(sum_sq / static_cast<double>(real_moves)), 0.1, 0.01);
}

TEST(regevo_operators, uniform_real_mutation_redraws_over_the_range) {
  const Space space({Parameter::real("r", -2.0, 6.0)});
  const TokenMutator mutator(space, RealMutation::Uniform, 0.1);
  std::mt19937_64 rng(5);
  double sum = 0.0, lo = 1e9, hi = -1e9;
  Eigen::VectorXd x(1);
  for (int r = 0; r < 20000; ++r) {
    x[0] = 5.9;
    mutator.mutate(x, 1.0, rng);
    sum += x[0];
    lo = std::min(lo, x[0]);
    hi = std::max(hi, x[0]);
  }
  EXPECT_NEAR(sum / 20000, 2.0, 0.1);
  EXPECT_LT(lo, -1.9);
  EXPECT_GT(hi, 5.9);
}

// Ten pairs of blocks of five, as problem/ising100 (Sec. 4.3).
std::vector<BalancePair> ising_pairs(int n) {
  std::vector<BalancePair> pairs;
  for (int j = 0; j < n / 10; ++j) {
    BalancePair p;
    for (int k = 0; k < 5; ++k) {
      p.a.push_back(10 * j + k);
      p.b.push_back(10 * j + 5 + k);
    }
    pairs.push_back(p);
  }
  return pairs;
}

bool balanced(const Eigen::VectorXd& x, const std::vector<BalancePair>& pairs) {
  for (const BalancePair& p : pairs) {
    double a = 0.0, b = 0.0;
    for (const Eigen::Index i : p.a) a += x[i];
    for (const Eigen::Index i : p.b) b += x[i];
    if (a != b) return false;
  }
  return true;
}

TEST(regevo_operators, conevo_mutation_keeps_every_balance_and_moves) {
  const auto pairs = ising_pairs(100);
  std::mt19937_64 rng(9);
  BalanceMutator mutator;
  // A balanced parent: in each pair the same number of ones on both sides.
  Eigen::VectorXd parent = Eigen::VectorXd::Zero(100);
  for (int j = 0; j < 10; ++j) {
    for (int k = 0; k < j % 6; ++k) {
      parent[10 * j + k] = 1.0;
      parent[10 * j + 9 - k] = 1.0;
    }
  }
  ASSERT_TRUE(balanced(parent, pairs));
  const double p_m = 0.05;
  const int draws = 20000;
  long moved = 0, flips = 0, hamming = 0;
  Eigen::VectorXd child(100);
  for (int r = 0; r < draws; ++r) {
    child = parent;
    flips += mutator.mutate(child, pairs, p_m, rng);
    ASSERT_TRUE(balanced(child, pairs)) << r;
    const long h = static_cast<long>((child - parent).cwiseAbs().sum());
    hamming += h;
    moved += h > 0 ? 1 : 0;
  }
  EXPECT_EQ(flips, hamming);
  // 50 independent positions (I+ of each pair): P(no flip) = 0.95^50 = 0.077.
  EXPECT_NEAR(moved / static_cast<double>(draws), 1.0 - std::pow(1 - p_m, 50), 0.01);
  // Each I+ flip is matched by at most one I- flip: between 2.5 and 5 flips per child.
  EXPECT_GT(hamming / static_cast<double>(draws), 2.5 * 0.9);
  EXPECT_LT(hamming / static_cast<double>(draws), 5.0);
}

TEST(regevo_operators, conevo_mutation_undoes_a_pair_it_cannot_balance) {
  // Sides of different sizes: I- = {2} cannot absorb two new ones on I+ = {0, 1}.
  std::vector<BalancePair> pairs{{{0, 1}, {2}}};
  std::mt19937_64 rng(2);
  BalanceMutator mutator;
  Eigen::VectorXd x(3);
  for (int r = 0; r < 2000; ++r) {
    x << 0.0, 0.0, 0.0;
    mutator.mutate(x, pairs, 0.9, rng);
    ASSERT_EQ(x[0] + x[1], x[2]) << r;
  }
}

}  // namespace
