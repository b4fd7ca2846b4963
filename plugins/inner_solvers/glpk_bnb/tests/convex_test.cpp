// SPDX-License-Identifier: MIT
// Convex quadratic rows and objectives: outer approximation against exact references.
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "bnb.hpp"
#include "model_families.hpp"

namespace {

using namespace arbo;
using arbo::plugins::glpk::solve_model;

TEST(glpk_bnb_convex, random_convex_miqcps_match_brute_force) {
  sdk::SolveOptions o;
  o.absolute_gap = 1e-7;
  o.relative_gap = 1e-7;
  int seed = 0;
  for (int k : {2, 4, 6, 8, 10, 12, 14, 16}) {
    for (int rep = 0; rep < 2; ++rep, ++seed) {
      SCOPED_TRACE(fmt::format("k = {}, seed {}", k, seed));
      const glpk_test::ConvexMiqcp p =
          glpk_test::convex_miqcp(500 + static_cast<std::uint64_t>(seed), k);
      const double ref = glpk_test::convex_miqcp_reference(p);
      const sdk::SolveResult r = solve_model(p.model, o);
      ASSERT_EQ(r.status, sdk::SolveStatus::Optimal) << r.message;
      // The ball is met within the feasibility tolerance, which may buy a little objective.
      EXPECT_NEAR(r.objective, ref, 1e-5 * std::max(1.0, std::abs(ref))) << r.message;
      EXPECT_LE(p.model.evaluate(r.x).max_violation(), 1e-6);
      EXPECT_LE(r.best_bound, ref + 1e-5 * std::max(1.0, std::abs(ref)));
    }
  }
}

TEST(glpk_bnb_convex, nodes_started_from_bases_saved_before_cuts_were_dropped_reach_the_optimum) {
  // Larger instances grow the cut pool past its purge threshold. An open node whose parent had
  // a dropped cut active gets that cut back to start from its parent's basis; a cut brought
  // back wrongly (another row's coefficients or bounds) would cut off the optimum.
  sdk::SolveOptions o;
  o.absolute_gap = 1e-7;
  o.relative_gap = 1e-7;
  plugins::glpk::BnbConfig c;
  std::string logged;
  c.log = [&](sdk::LogLevel, std::string_view m) { logged += std::string(m) + "\n"; };
  std::int64_t brought_back = 0;
  for (std::uint64_t seed : {900u, 901u, 902u}) {
    SCOPED_TRACE(fmt::format("seed {}", seed));
    const glpk_test::ConvexMiqcp p = glpk_test::convex_miqcp(seed, 16);
    const double ref = glpk_test::convex_miqcp_reference(p);
    logged.clear();
    const sdk::SolveResult r = solve_model(p.model, o, c);
    ASSERT_EQ(r.status, sdk::SolveStatus::Optimal) << r.message;
    EXPECT_NEAR(r.objective, ref, 1e-5 * std::max(1.0, std::abs(ref))) << r.message;
    EXPECT_LE(r.best_bound, ref + 1e-5 * std::max(1.0, std::abs(ref)));
    const auto at = logged.find(" dropped cuts brought back");
    if (at == std::string::npos) continue;
    const auto from = logged.rfind('(', at);
    brought_back += std::stoll(logged.substr(from + 1, at - from - 1));
  }
  EXPECT_GT(brought_back, 0) << "no instance exercised the carried warm starts";
}

TEST(glpk_bnb_convex, projection_onto_a_disc) {
  // min (x - 3)^2 + (y - 4)^2 s.t. x^2 + y^2 <= 1: the answer is (0.6, 0.8), value 16.
  sdk::Model m;
  const int x = m.add_variable("x", sdk::VarType::Continuous, -sdk::kInfinity, sdk::kInfinity);
  const int y = m.add_variable("y", sdk::VarType::Continuous, -sdk::kInfinity, sdk::kInfinity);
  m.add_quadratic_row({"disc", {{x, x, 1}, {y, y, 1}}, {}, sdk::RowSense::LessEqual, 1, true});
  m.set_objective({sdk::ObjectiveSense::Minimize, {{x, -6}, {y, -8}}, {{x, x, 1}, {y, y, 1}}, 25});
  sdk::SolveOptions o;
  o.absolute_gap = 1e-6;
  const sdk::SolveResult r = solve_model(m, o);
  ASSERT_EQ(r.status, sdk::SolveStatus::Optimal) << r.message;
  EXPECT_NEAR(r.objective, 16.0, 1e-4);
  EXPECT_NEAR(r.x[0], 0.6, 1e-3);
  EXPECT_NEAR(r.x[1], 0.8, 1e-3);
  EXPECT_LE(r.best_bound, 16.0 + 1e-6);
}

TEST(glpk_bnb_convex, free_variables_under_a_convex_objective) {
  // Nothing bounds x until cuts do: min x^2 - 4x + y^2 + 2y, optimum -5 at (2, -1).
  sdk::Model m;
  const int x = m.add_variable("x", sdk::VarType::Continuous, -sdk::kInfinity, sdk::kInfinity);
  const int y = m.add_variable("y", sdk::VarType::Integer, -sdk::kInfinity, sdk::kInfinity);
  m.set_objective({sdk::ObjectiveSense::Minimize, {{x, -4}, {y, 2}}, {{x, x, 1}, {y, y, 1}}, 0});
  const sdk::SolveResult r = solve_model(m, {});
  ASSERT_EQ(r.status, sdk::SolveStatus::Optimal) << r.message;
  EXPECT_NEAR(r.objective, -5.0, 1e-3);
  EXPECT_NEAR(r.x[1], -1.0, 1e-9);
}

TEST(glpk_bnb_convex, maximizing_a_concave_objective) {
  // max -(x - 1.5)^2 - (z - 2.2)^2 over integer z in [0, 5]: the epigraph after negation.
  sdk::Model m;
  const int x = m.add_variable("x", sdk::VarType::Continuous, 0, 10);
  const int z = m.add_variable("z", sdk::VarType::Integer, 0, 5);
  m.set_objective(
      {sdk::ObjectiveSense::Maximize, {{x, 3}, {z, 4.4}}, {{x, x, -1}, {z, z, -1}}, -2.25 - 4.84});
  const sdk::SolveResult r = solve_model(m, {});
  ASSERT_EQ(r.status, sdk::SolveStatus::Optimal) << r.message;
  EXPECT_NEAR(r.objective, -0.04, 1e-4);
  EXPECT_EQ(r.x[1], 2.0);
  EXPECT_GE(r.best_bound, -0.04 - 1e-4);
}

TEST(glpk_bnb_convex, g7_reaches_the_literature_optimum) {
  const glpk_test::KnownProblem p = glpk_test::g7();
  const sdk::SolveResult r = solve_model(p.model, {});
  ASSERT_EQ(r.status, sdk::SolveStatus::Optimal) << r.message;
  EXPECT_NEAR(r.objective, p.optimum, 2e-4 * std::abs(p.optimum)) << r.message;
  EXPECT_LE(r.best_bound, p.optimum + 1e-6);
  EXPECT_LE(p.model.evaluate(r.x).max_violation(), 1e-6);
}

TEST(glpk_bnb_convex, a_row_declared_convex_must_be_psd) {
  sdk::Model m;
  const int x = m.add_variable("x", sdk::VarType::Continuous, -1, 1);
  const int y = m.add_variable("y", sdk::VarType::Continuous, -1, 1);
  m.add_quadratic_row({"saddle", {{x, x, 1}, {y, y, -1}}, {}, sdk::RowSense::LessEqual, 0.5, true});
  m.set_objective({sdk::ObjectiveSense::Minimize, {{x, 1}}, {}, 0});
  try {
    solve_model(m, {});
    FAIL() << "expected InvalidArgument";
  } catch (const sdk::InvalidArgument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("saddle"), std::string::npos) << what;
    EXPECT_NE(what.find("positive semidefinite"), std::string::npos) << what;
  }
  // A bilinear form x*y is indefinite too (LDLT without a usable pivot).
  sdk::Model b;
  const int u = b.add_variable("u", sdk::VarType::Continuous, -1, 1);
  const int v = b.add_variable("v", sdk::VarType::Continuous, -1, 1);
  b.add_quadratic_row({"bilinear", {{u, v, 1}}, {}, sdk::RowSense::LessEqual, 0.5, true});
  EXPECT_THROW(solve_model(b, {}), sdk::InvalidArgument);
}

}  // namespace
