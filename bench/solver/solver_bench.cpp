// SPDX-License-Identifier: MIT
// Solver benchmark for inner_solver/glpk_bnb. Prints markdown tables.
//
//   solver_bench [milp|convex|nonconvex|all] [SEEDS=5]
//
// milp:      random MILPs, this plugin's tree (pseudo-costs and most-fractional) and its
//            glp_intopt path against plain glp_intopt (glpsol's defaults: presolve, no cuts) on
//            an independently built glp_prob; objectives are cross-checked.
// convex:    convex MIQCPs with k binaries (the plugin's tests/model_families.hpp), 10 s limit.
// nonconvex: G1, G3, G4, G6, G7, G10, Pressure Vessel.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <glpk.h>

#include "bnb.hpp"
#include "model_families.hpp"

namespace {

using namespace arbo;
using plugins::glpk::BnbConfig;
using plugins::glpk::MilpMethod;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

struct Plain {
  bool optimal = false;
  double objective = 0;
  double seconds = 0;
  long nodes = 0;
  long iterations = 0;
};

void plain_callback(glp_tree* tree, void* info) {
  int a = 0, n = 0, t = 0;
  glp_ios_tree_size(tree, &a, &n, &t);
  static_cast<Plain*>(info)->nodes = t;
}

// glp_intopt as glpsol runs it by default (MIP presolver on, no cuts), on a glp_prob built
// directly from the model.
Plain plain_intopt(const sdk::Model& m) {
  const auto start = Clock::now();
  glp_prob* p = arbo::glpk_test::reference_prob(m);
  Plain out;
  glp_iocp parm;
  glp_init_iocp(&parm);
  parm.msg_lev = GLP_MSG_OFF;
  parm.presolve = GLP_ON;
  parm.mip_gap = 1e-4;
  parm.tm_lim = 60000;
  parm.cb_func = plain_callback;
  parm.cb_info = &out;
  out.optimal = glp_intopt(p, &parm) == 0 && glp_mip_status(p) == GLP_OPT;
  out.objective = glp_mip_obj_val(p);
  out.iterations = glp_get_it_cnt(p);
  glp_delete_prob(p);
  out.seconds = seconds_since(start);
  return out;
}

struct Totals {
  double seconds = 0;
  double worst = 0;
  long nodes = 0;
  long iterations = 0;
  int optimal = 0;
  int mismatches = 0;
};

void milp(int seeds) {
  std::printf(
      "\n## Random MILPs (%d instances per size; gap 1e-4; times summed over the instances; plugin "
      "runs limited to 10 s each, glp_intopt to 60 s)\n\n",
      seeds);
  std::printf(
      "| n x m | glp_intopt (glpsol defaults) s | nodes | bnb (pseudo-costs) s | nodes | LP it | "
      "ratio to glp_intopt | slowest s | optimal within 10 s | bnb most-fractional s | nodes | "
      "ratio | glp_intopt + cuts (plugin path) s | ratio | wrong optima |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  const int sizes[][2] = {{10, 6},  {20, 12}, {30, 18}, {40, 24},
                          {50, 30}, {60, 36}, {70, 42}, {80, 48}};
  for (const auto& sz : sizes) {
    Totals ref, pc, mf, io;
    for (int s = 0; s < seeds; ++s) {
      const sdk::Model m =
          glpk_test::random_milp(90000 + static_cast<std::uint64_t>(sz[0] * 100 + s), sz[0], sz[1]);
      const Plain r = plain_intopt(m);
      ref.seconds += r.seconds;
      ref.nodes += r.nodes;
      ref.iterations += r.iterations;
      auto run = [&](Totals& t, MilpMethod method, bool pseudo) {
        BnbConfig cfg;
        cfg.milp_method = method;
        cfg.pseudo_costs = pseudo;
        sdk::SolveOptions o;
        o.time_limit_seconds = 10;
        const auto start = Clock::now();
        const sdk::SolveResult res = plugins::glpk::solve_model(m, o, cfg);
        const double took = seconds_since(start);
        t.seconds += took;
        t.worst = std::max(t.worst, took);
        t.nodes += res.nodes;
        t.iterations += res.lp_iterations;
        if (res.status == sdk::SolveStatus::Optimal) ++t.optimal;
        if (r.optimal && res.status == sdk::SolveStatus::Optimal &&
            std::abs(res.objective - r.objective) > 2e-4 * std::max(1.0, std::abs(r.objective))) {
          ++t.mismatches;
        }
      };
      run(pc, MilpMethod::BranchAndBound, true);
      run(mf, MilpMethod::BranchAndBound, false);
      run(io, MilpMethod::Intopt, true);
    }
    std::printf(
        "| %d x %d | %.3f | %ld | %.3f | %ld | %ld | %.2f | %.3f | %d/%d | %.3f | %ld | %.2f | "
        "%.3f | %.2f | %d |\n",
        sz[0], sz[1], ref.seconds, ref.nodes, pc.seconds, pc.nodes, pc.iterations,
        pc.seconds / ref.seconds, pc.worst, pc.optimal, seeds, mf.seconds, mf.nodes,
        mf.seconds / ref.seconds, io.seconds, io.seconds / ref.seconds,
        pc.mismatches + mf.mismatches + io.mismatches);
    std::fflush(stdout);
  }
}

void convex(int seeds) {
  std::printf(
      "\n## Convex MIQCPs: k binaries, k continuous, separable convex objective, one ball row (%d "
      "seeds; 10 s limit)\n\n",
      seeds);
  std::printf(
      "| k | proven optimal | mean s | max s | mean nodes | mean LP it | optimum vs brute force "
      "|\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  for (int k = 4; k <= 40; k += 4) {
    int optimal = 0;
    double sum = 0, worst = 0;
    long nodes = 0, its = 0;
    int agree = 0;
    for (int s = 0; s < seeds; ++s) {
      const glpk_test::ConvexMiqcp p =
          glpk_test::convex_miqcp(7000 + static_cast<std::uint64_t>(k * 100 + s), k);
      sdk::SolveOptions o;
      o.time_limit_seconds = 10;
      const auto start = Clock::now();
      const sdk::SolveResult r = plugins::glpk::solve_model(p.model, o);
      const double t = seconds_since(start);
      sum += t;
      worst = std::max(worst, t);
      nodes += r.nodes;
      its += r.lp_iterations;
      if (r.status == sdk::SolveStatus::Optimal) ++optimal;
      if (k <= 20) {
        const double ref = glpk_test::convex_miqcp_reference(p);
        if (std::abs(r.objective - ref) <= 2e-4 * std::max(1.0, std::abs(ref))) ++agree;
      }
    }
    std::printf(
        "| %d | %d/%d | %.3f | %.3f | %ld | %ld | %s |\n", k, optimal, seeds, sum / seeds, worst,
        nodes / seeds, its / seeds,
        k <= 20
            ? (std::to_string(agree) + "/" + std::to_string(seeds) + " match brute force").c_str()
            : "(no brute force)");
    std::fflush(stdout);
  }
}

void nonconvex() {
  std::printf("\n## Nonconvex benchmark problems (default gaps 1e-4; 60 s limit)\n\n");
  std::printf("| problem | status | objective | literature | best bound | nodes | LP it | s |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  for (const auto& p : {glpk_test::g1(), glpk_test::g3(), glpk_test::g4(), glpk_test::g6(),
                        glpk_test::g7(), glpk_test::g10(), glpk_test::pressure_vessel()}) {
    sdk::SolveOptions o;
    o.time_limit_seconds = 60;
    const sdk::SolveResult r = plugins::glpk::solve_model(p.model, o);
    std::printf("| %s | %s | %.6f | %.6f | %.6f | %ld | %ld | %.3f |\n", p.name.c_str(),
                sdk::to_string(r.status), r.objective, p.optimum, r.best_bound,
                static_cast<long>(r.nodes), static_cast<long>(r.lp_iterations), r.seconds);
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "all";
  const int seeds = argc > 2 ? std::atoi(argv[2]) : 5;
  glp_term_out(GLP_OFF);
  if (what == "milp" || what == "all") milp(seeds);
  if (what == "convex" || what == "all") convex(seeds);
  if (what == "nonconvex" || what == "all") nonconvex();
  return 0;
}
