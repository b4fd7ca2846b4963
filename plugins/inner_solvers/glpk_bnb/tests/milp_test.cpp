// SPDX-License-Identifier: MIT
// Pure MILPs: the plugin's tree and its glp_intopt path against GLPK solving an independently
// built glp_prob, and against the glpsol executable.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <glpk.h>
#include <gtest/gtest.h>

#include "bnb.hpp"
#include "model_families.hpp"

namespace {

using namespace arbo;
using arbo::plugins::glpk::BnbConfig;
using arbo::plugins::glpk::MilpMethod;
using arbo::plugins::glpk::solve_model;

double reference_optimum(const sdk::Model& m) {
  glp_prob* p = arbo::glpk_test::reference_prob(m);
  glp_iocp parm;
  glp_init_iocp(&parm);
  parm.msg_lev = GLP_MSG_OFF;
  parm.presolve = GLP_ON;
  parm.mip_gap = 0.0;
  EXPECT_EQ(glp_intopt(p, &parm), 0);
  EXPECT_EQ(glp_mip_status(p), GLP_OPT);
  const double z = glp_mip_obj_val(p);
  glp_delete_prob(p);
  return z;
}

sdk::SolveOptions exact() {
  sdk::SolveOptions o;
  o.absolute_gap = 1e-9;
  o.relative_gap = 1e-12;
  return o;
}

constexpr int kInstances = 60;

sdk::Model instance(int seed) {
  return glpk_test::random_milp(1000 + static_cast<std::uint64_t>(seed), 5 + seed % 9,
                                3 + seed % 6);
}

TEST(glpk_bnb_milp, random_milps_match_glp_intopt_on_an_independent_problem) {
  BnbConfig cfg;
  cfg.milp_method = MilpMethod::BranchAndBound;
  for (int seed = 0; seed < kInstances; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const sdk::Model m = instance(seed);
    const double ref = reference_optimum(m);
    const sdk::SolveResult r = solve_model(m, exact(), cfg);
    ASSERT_EQ(r.status, sdk::SolveStatus::Optimal) << r.message;
    EXPECT_NEAR(r.objective, ref, 1e-6 * std::max(1.0, std::abs(ref)));
    EXPECT_LE(m.evaluate(r.x).max_violation(), 1e-6);
    EXPECT_NEAR(m.evaluate(r.x).objective, r.objective, 1e-9);
    // The bound is on the right side of the optimum.
    if (m.objective().sense == sdk::ObjectiveSense::Minimize) {
      EXPECT_LE(r.best_bound, ref + 1e-6);
    } else {
      EXPECT_GE(r.best_bound, ref - 1e-6);
    }
    EXPECT_GE(r.nodes, 1);
  }
}

TEST(glpk_bnb_milp, intopt_path_matches_too) {
  BnbConfig cfg;
  cfg.milp_method = MilpMethod::Intopt;
  for (int seed = 0; seed < kInstances; seed += 3) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const sdk::Model m = instance(seed);
    const double ref = reference_optimum(m);
    const sdk::SolveResult r = solve_model(m, exact(), cfg);
    ASSERT_EQ(r.status, sdk::SolveStatus::Optimal) << r.message;
    EXPECT_NEAR(r.objective, ref, 1e-6 * std::max(1.0, std::abs(ref)));
    EXPECT_LE(m.evaluate(r.x).max_violation(), 1e-6);
  }
}

// GLPK's objective has no constant term: the glp_intopt path adds it to the bound it reports
// and measures the gap without it, as the tree does.
TEST(glpk_bnb_milp, both_paths_report_the_constant_term_alike) {
  for (int seed = 0; seed < kInstances; seed += 7) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    sdk::Model m = instance(seed);
    sdk::Objective objective = m.objective();
    objective.constant += 1e5;
    m.set_objective(objective);
    for (const MilpMethod method : {MilpMethod::Intopt, MilpMethod::BranchAndBound}) {
      BnbConfig cfg;
      cfg.milp_method = method;
      const sdk::SolveResult r = solve_model(m, exact(), cfg);
      ASSERT_EQ(r.status, sdk::SolveStatus::Optimal) << r.message;
      EXPECT_NEAR(r.best_bound, r.objective, 1e-6 * std::max(1.0, std::abs(r.objective - 1e5)));
      EXPECT_NEAR(r.objective, reference_optimum(m), 1e-6 * std::abs(r.objective));
      EXPECT_LE(r.gap, 1e-9);
    }
  }
}

// With a declared offset both paths stop at, and report, the gap relative to |objective -
// offset| (glp_intopt's path checks it in its callback). The shift puts the optimum at 0,
// where min(|v|, |v - constant|) would leave nothing relative.
TEST(glpk_bnb_milp, both_paths_measure_the_gap_without_a_declared_offset) {
  const sdk::Model base = glpk_test::random_milp(77, 30, 20);
  const double ref = reference_optimum(base);
  sdk::Model m = base;
  sdk::Objective objective = m.objective();
  objective.constant -= ref;
  objective.offset = -ref;
  m.set_objective(objective);
  for (const MilpMethod method : {MilpMethod::Intopt, MilpMethod::BranchAndBound}) {
    SCOPED_TRACE(method == MilpMethod::Intopt ? "intopt" : "tree");
    BnbConfig cfg;
    cfg.milp_method = method;
    sdk::SolveOptions o;
    o.absolute_gap = 0.0;
    o.relative_gap = 0.2;
    const sdk::SolveResult r = solve_model(m, o, cfg);
    ASSERT_EQ(r.status, sdk::SolveStatus::Optimal) << r.message;
    const double diff = std::abs(r.objective - r.best_bound);
    EXPECT_GT(diff, 1e-6);  // stopped at the gap it was given, before proving optimality
    EXPECT_NEAR(r.gap, diff / std::abs(r.objective + ref), 1e-12);
    EXPECT_LE(r.gap, 0.2 + 1e-9);
  }
}

TEST(glpk_bnb_milp, matches_the_glpsol_executable) {
  // glpk-utils is a declared dependency (tools/install-deps): a missing glpsol is a broken
  // install, not a reason to pass.
  ASSERT_EQ(std::system("glpsol --version > /dev/null 2>&1"), 0)
      << "glpsol not found (Debian package glpk-utils; tools/install-deps installs it)";
  const auto dir = std::filesystem::temp_directory_path() / "arbo_glpk_bnb_glpsol";
  std::filesystem::create_directories(dir);
  BnbConfig cfg;
  cfg.milp_method = MilpMethod::BranchAndBound;
  for (int seed = 1; seed < kInstances; seed += 6) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const sdk::Model m = instance(seed);
    glp_prob* p = arbo::glpk_test::reference_prob(m);
    const std::string lp = (dir / ("m" + std::to_string(seed) + ".lp")).string();
    const std::string out = (dir / ("m" + std::to_string(seed) + ".sol")).string();
    glp_term_out(GLP_OFF);
    const int written = glp_write_lp(p, nullptr, lp.c_str());
    glp_term_out(GLP_ON);
    ASSERT_EQ(written, 0);
    glp_delete_prob(p);
    const std::string cmd = "glpsol --lp " + lp + " --mipgap 0 -w " + out + " > /dev/null 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    // glpsol -w: "s mip ROWS COLS STATUS OBJ" on the line that starts with "s".
    std::ifstream in(out);
    std::string tag, kind, status;
    int rows = 0, cols = 0;
    double z = 0;
    bool found = false;
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("s mip", 0) == 0) {
        std::istringstream ls(line);
        ls >> tag >> kind >> rows >> cols >> status >> z;
        found = true;
      }
    }
    ASSERT_TRUE(found) << "no solution line in " << out;
    EXPECT_EQ(status, "o");
    const sdk::SolveResult r = solve_model(m, exact(), cfg);
    ASSERT_EQ(r.status, sdk::SolveStatus::Optimal) << r.message;
    // glp_write_lp drops the objective's constant term, so glpsol reports without it.
    const double ours = r.objective - m.objective().constant;
    EXPECT_NEAR(ours, z, 1e-6 * std::max(1.0, std::abs(z)));
  }
}

TEST(glpk_bnb_milp, infeasible_model_is_reported) {
  sdk::Model m;
  const int x = m.add_variable("x", sdk::VarType::Integer, 0, 10);
  const int y = m.add_variable("y", sdk::VarType::Integer, 0, 10);
  // 2x + 2y = 7 has no integer solution, but its LP relaxation does.
  m.add_linear_row({"odd", {{x, 2}, {y, 2}}, sdk::RowSense::Equal, 7});
  m.set_objective({sdk::ObjectiveSense::Maximize, {{x, 1}}, {}, 0});
  for (MilpMethod method : {MilpMethod::BranchAndBound, MilpMethod::Intopt}) {
    BnbConfig cfg;
    cfg.milp_method = method;
    const sdk::SolveResult r = solve_model(m, {}, cfg);
    EXPECT_EQ(r.status, sdk::SolveStatus::Infeasible) << r.message;
    EXPECT_TRUE(r.x.empty());
  }
  // Bounds that cross after propagation: found before any LP.
  sdk::Model c;
  const int a = c.add_variable("a", sdk::VarType::Continuous, 0, 1);
  c.add_linear_row({"too_big", {{a, 1}}, sdk::RowSense::GreaterEqual, 2});
  EXPECT_EQ(solve_model(c, {}).status, sdk::SolveStatus::Infeasible);
}

TEST(glpk_bnb_milp, unbounded_model_is_reported) {
  sdk::Model m;
  const int x = m.add_variable("x", sdk::VarType::Integer, 0, sdk::kInfinity);
  const int y = m.add_variable("y", sdk::VarType::Continuous, -sdk::kInfinity, 3);
  m.add_linear_row({"r", {{x, 1}, {y, -1}}, sdk::RowSense::GreaterEqual, -2});
  m.set_objective({sdk::ObjectiveSense::Maximize, {{x, 1}, {y, 1}}, {}, 0});
  for (MilpMethod method : {MilpMethod::BranchAndBound, MilpMethod::Intopt}) {
    BnbConfig cfg;
    cfg.milp_method = method;
    const sdk::SolveResult r = solve_model(m, {}, cfg);
    EXPECT_EQ(r.status, sdk::SolveStatus::Unbounded) << r.message;
  }
  sdk::Model lp;
  const int z = lp.add_variable("z", sdk::VarType::Continuous, -sdk::kInfinity, sdk::kInfinity);
  lp.set_objective({sdk::ObjectiveSense::Minimize, {{z, 1}}, {}, 0});
  EXPECT_EQ(solve_model(lp, {}).status, sdk::SolveStatus::Unbounded);
}

TEST(glpk_bnb_milp, node_limit_returns_incumbent_and_valid_bound) {
  // A larger instance that needs more than a handful of nodes.
  const sdk::Model m = glpk_test::random_milp(77, 30, 20);
  const double ref = reference_optimum(m);
  const bool minimize = m.objective().sense == sdk::ObjectiveSense::Minimize;
  for (MilpMethod method : {MilpMethod::BranchAndBound, MilpMethod::Intopt}) {
    BnbConfig cfg;
    cfg.milp_method = method;
    sdk::SolveOptions o = exact();
    o.node_limit = 3;
    const sdk::SolveResult r = solve_model(m, o, cfg);
    SCOPED_TRACE(r.message);
    if (r.status == sdk::SolveStatus::Optimal) {
      EXPECT_NEAR(r.objective, ref, 1e-6 * std::max(1.0, std::abs(ref)));
      continue;
    }
    ASSERT_EQ(r.status, sdk::SolveStatus::LimitReached);
    if (minimize) {
      EXPECT_LE(r.best_bound, ref + 1e-6);
    } else {
      EXPECT_GE(r.best_bound, ref - 1e-6);
    }
    if (!r.x.empty()) {
      EXPECT_LE(m.evaluate(r.x).max_violation(), 1e-6);
      if (minimize) {
        EXPECT_GE(r.objective, ref - 1e-6);
      } else {
        EXPECT_LE(r.objective, ref + 1e-6);
      }
    }
  }
  // Same with a time limit far below what the instance needs.
  sdk::SolveOptions o = exact();
  o.time_limit_seconds = 1e-3;
  BnbConfig cfg;
  cfg.milp_method = MilpMethod::BranchAndBound;
  const sdk::SolveResult r = solve_model(m, o, cfg);
  if (r.status != sdk::SolveStatus::Optimal) {
    EXPECT_EQ(r.status, sdk::SolveStatus::LimitReached);
    if (minimize) {
      EXPECT_LE(r.best_bound, ref + 1e-6);
    } else {
      EXPECT_GE(r.best_bound, ref - 1e-6);
    }
  }
}

TEST(glpk_bnb_milp, rejects_invalid_options) {
  const sdk::Model m = instance(0);
  sdk::SolveOptions o;
  o.feasibility_tolerance = 0.0;
  EXPECT_THROW(solve_model(m, o), sdk::InvalidArgument);
  o = {};
  o.relative_gap = -1;
  EXPECT_THROW(solve_model(m, o), sdk::InvalidArgument);
}

}  // namespace
