// SPDX-License-Identifier: MIT
/// @file
/// @brief The branch-and-bound behind `inner_solver/glpk_bnb`: proven global optima of the
/// SDK's MIQCP model with GLPK as the LP engine.
#pragma once

#include <functional>
#include <string_view>

#include <arbo/sdk/context.hpp>
#include <arbo/sdk/model.hpp>

namespace arbo::plugins::glpk {

/// Who solves a pure MILP (no quadratic terms).
enum class MilpMethod {
  Auto,            ///< the measured faster one: the plugin's tree (bench/solver/README.md)
  BranchAndBound,  ///< this plugin's own tree
  Intopt,          ///< GLPK's glp_intopt with presolve and cuts
};

struct BnbConfig {
  MilpMethod milp_method = MilpMethod::Auto;
  /// Pseudo-cost branching on integers (most-fractional when false).
  bool pseudo_costs = true;
  /// With pseudo-costs: strong branching on variables whose pseudo-costs are not yet reliable
  /// (reliability branching).
  bool strong_branching = true;
  /// Threads of the tree search (>= 1; 1 when GLPK lacks per-thread environments). With more
  /// than one, the search runs in rounds: each thread solves one open node per round, and the
  /// incumbent, pseudo-costs and children are merged at the end of the round in thread order,
  /// so a solve that ends within its limits gives the same answer on every run with the same
  /// thread count (not across thread counts: the node order differs).
  int threads = 1;
  /// Receives progress and GLPK's output; may be empty. Called from the solving thread only.
  std::function<void(sdk::LogLevel, std::string_view)> log;
  /// Polled once per node; true stops the search like a time limit.
  std::function<bool()> cancelled;
};

/// Solves `model` to global optimality within `options`.
///
/// Linear rows go to GLPK as they are; convex quadratic rows (declared, or detected by an LDLT
/// test) are outer-approximated by tangent cuts at relaxation points; every other quadratic
/// term becomes an auxiliary variable bounded by McCormick envelopes and refined by spatial
/// branching. A quadratic objective is an epigraph variable (convex) or lifted (nonconvex).
///
/// Never throws for infeasible or unbounded models (see the status). Throws
/// `sdk::InvalidArgument` for a malformed model: a row declared convex whose Hessian is not
/// positive semidefinite, a variable of a nonconvex term without finite bounds after bound
/// propagation, invalid options. Throws `GlpkError` when GLPK itself fails.
sdk::SolveResult solve_model(const sdk::Model& model, const sdk::SolveOptions& options,
                             const BnbConfig& config = {});

/// Solves a pure MILP with GLPK's own `glp_intopt` (presolve, cuts, its own tree): used for
/// `MilpMethod::Intopt` and as the reference in tests and the benchmark.
/// @throws sdk::InvalidArgument if the model has quadratic terms.
sdk::SolveResult solve_milp_intopt(const sdk::Model& model, const sdk::SolveOptions& options,
                                   const BnbConfig& config = {});

}  // namespace arbo::plugins::glpk
