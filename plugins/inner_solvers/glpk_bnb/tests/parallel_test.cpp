// SPDX-License-Identifier: MIT
// The tree search with helper threads: the same optima and valid bounds as one thread, and the
// same answer on every run with the same thread count.
#include <cmath>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "bnb.hpp"
#include "glpk_session.hpp"
#include "model_families.hpp"

namespace {

using namespace arbo;
using arbo::plugins::glpk::BnbConfig;
using arbo::plugins::glpk::solve_model;

BnbConfig with_threads(int threads) {
  BnbConfig c;
  c.threads = threads;
  return c;
}

double tolerance(double value) { return 1e-5 * std::max(1.0, std::abs(value)); }

TEST(glpk_bnb_parallel, glpk_gives_each_thread_its_own_environment) {
  // Debian's GLPK is built with thread-local storage; without it the search runs one thread.
  EXPECT_TRUE(plugins::glpk::GlpkSession::thread_local_environments());
}

TEST(glpk_bnb_parallel, convex_miqcps_reach_the_brute_force_optimum) {
  sdk::SolveOptions o;
  o.absolute_gap = 1e-7;
  o.relative_gap = 1e-7;
  for (int k : {6, 10, 14, 18}) {
    for (int threads : {2, 3}) {
      SCOPED_TRACE(fmt::format("k = {}, {} threads", k, threads));
      const glpk_test::ConvexMiqcp p =
          glpk_test::convex_miqcp(700 + static_cast<std::uint64_t>(k), k);
      const double ref = glpk_test::convex_miqcp_reference(p);
      const sdk::SolveResult r = solve_model(p.model, o, with_threads(threads));
      ASSERT_EQ(r.status, sdk::SolveStatus::Optimal) << r.message;
      EXPECT_NEAR(r.objective, ref, tolerance(ref)) << r.message;
      EXPECT_LE(r.best_bound, ref + tolerance(ref)) << r.message;
      EXPECT_LE(p.model.evaluate(r.x).max_violation(), 1e-6);
    }
  }
}

TEST(glpk_bnb_parallel, nonconvex_problems_reach_their_literature_optima) {
  for (const auto& p : {glpk_test::g4(), glpk_test::g10(), glpk_test::pressure_vessel()}) {
    SCOPED_TRACE(p.name);
    sdk::SolveOptions o;
    o.time_limit_seconds = 120.0;
    const sdk::SolveResult r = solve_model(p.model, o, with_threads(2));
    ASSERT_EQ(r.status, sdk::SolveStatus::Optimal) << r.message;
    const double tol =
        std::max(o.absolute_gap, o.relative_gap * std::abs(p.optimum)) + tolerance(p.optimum);
    EXPECT_NEAR(r.objective, p.optimum, tol) << r.message;
    EXPECT_LE(r.best_bound, p.optimum + tol) << r.message;
    EXPECT_LE(p.model.evaluate(r.x).max_violation(), o.feasibility_tolerance);
  }
}

TEST(glpk_bnb_parallel, milps_match_one_thread) {
  for (int seed = 0; seed < 6; ++seed) {
    SCOPED_TRACE(fmt::format("seed {}", seed));
    const sdk::Model m = glpk_test::random_milp(2000 + static_cast<std::uint64_t>(seed), 30, 20);
    const sdk::SolveResult one = solve_model(m, {}, with_threads(1));
    const sdk::SolveResult two = solve_model(m, {}, with_threads(2));
    ASSERT_EQ(one.status, two.status) << one.message << " / " << two.message;
    if (one.status != sdk::SolveStatus::Optimal) continue;
    EXPECT_NEAR(two.objective, one.objective,
                tolerance(one.objective) + 1e-4 * std::abs(one.objective));
    EXPECT_LE(m.evaluate(two.x).max_violation(), 1e-6);
  }
}

TEST(glpk_bnb_parallel, every_run_with_the_same_thread_count_gives_the_same_answer) {
  // Helpers work round by round and are merged in thread order, so nothing depends on which
  // thread finishes first.
  const glpk_test::ConvexMiqcp p = glpk_test::convex_miqcp(901, 20);
  sdk::SolveOptions o;
  o.absolute_gap = 1e-7;
  o.relative_gap = 1e-7;
  const sdk::SolveResult first = solve_model(p.model, o, with_threads(2));
  ASSERT_EQ(first.status, sdk::SolveStatus::Optimal) << first.message;
  ASSERT_GT(first.nodes, 20) << "too easy to exercise the helper";
  for (int run = 0; run < 3; ++run) {
    const sdk::SolveResult again = solve_model(p.model, o, with_threads(2));
    EXPECT_EQ(again.nodes, first.nodes);
    EXPECT_EQ(again.lp_iterations, first.lp_iterations);
    EXPECT_EQ(again.objective, first.objective);
    EXPECT_EQ(again.x, first.x);
  }
}

TEST(glpk_bnb_parallel, limits_keep_a_valid_bound) {
  const glpk_test::KnownProblem p = glpk_test::g10();
  sdk::SolveOptions o;
  o.node_limit = 6;
  const sdk::SolveResult r = solve_model(p.model, o, with_threads(2));
  ASSERT_TRUE(r.status == sdk::SolveStatus::LimitReached || r.status == sdk::SolveStatus::Optimal)
      << r.message;
  // A round may finish the nodes it started: at most one node per thread beyond the limit.
  EXPECT_LE(r.nodes, 6 + 1);
  EXPECT_LE(r.best_bound, p.optimum + 1e-6 * std::abs(p.optimum)) << r.message;

  BnbConfig cfg = with_threads(2);
  int polls = 0;
  cfg.cancelled = [&polls] { return ++polls > 10; };
  const sdk::SolveResult c = solve_model(glpk_test::g3().model, {}, cfg);
  EXPECT_EQ(c.status, sdk::SolveStatus::LimitReached) << c.message;
  EXPECT_LE(c.best_bound, glpk_test::g3().optimum + 1e-9);
}

}  // namespace
