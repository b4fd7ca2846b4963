// SPDX-License-Identifier: MIT
// The node loop of the branch-and-bound: the root (with its retry inside an artificial box when
// the relaxation is unbounded), one node's bounds, LP and fathoming, and the result with its
// bound, gap and messages. What a node does between its LP and its children is in cuts.cpp,
// branching.cpp and heuristics.cpp; the order of the nodes is in rounds.cpp.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "search.hpp"

namespace arbo::plugins::glpk::bnb {

namespace {

// Passes of bound propagation over the model's rows at each node of a model with products.
constexpr int kNodePropagationRounds = 3;

}  // namespace

void Search::init() {
  root_lo_ = P_.lo;
  root_up_ = P_.up;
  for (auto* v : {&pc_sum_[0], &pc_sum_[1], &pc_cnt_[0], &pc_cnt_[1]}) {
    v->assign(static_cast<std::size_t>(P_.ncols), 0.0);
  }
  build_lp();
}

bool Search::node_bounds(const Node& node, std::vector<double>& lo, std::vector<double>& up) const {
  lo = root_lo_;
  up = root_up_;
  for (const BoundChange& c : node.changes) {
    const auto v = static_cast<std::size_t>(c.var);
    lo[v] = std::max(lo[v], c.lo);
    up[v] = std::min(up[v], c.up);
  }
  if (!P_.products.empty()) {
    // The McCormick envelopes use the column bounds, and a branch on a binary (a tree split,
    // say) only bounds the continuous factors through the rows: propagate them into the box.
    std::string why;
    if (!propagate(P_.model_rows, model_.variables(), lo, up, P_.integer, why,
                   kNodePropagationRounds)) {
      return false;
    }
  }
  bound_products(lo, up);
  for (std::size_t v = 0; v < lo.size(); ++v) {
    if (lo[v] > up[v]) {
      if (lo[v] - up[v] > 1e-9 * (1.0 + std::abs(lo[v]))) return false;
      up[v] = lo[v];
    }
  }
  return true;
}

void Search::process(Node& node, std::vector<Node>& children) {
  std::vector<double>& lo = lo_buf_;
  std::vector<double>& up = up_buf_;
  if (!node_bounds(node, lo, up)) return;  // empty box
  load_bounds(lo, up);
  if (node.basis) ++warm_[restore_basis(*node.basis)];
  double obj = 0.0;
  const LpStatus st = solve_relaxation(node.depth == 0, obj);
  ++nodes_;
  if (st == LpStatus::Infeasible) return;
  if (st == LpStatus::TimeLimit) {
    push_open(std::move(node));
    return;
  }
  if (st == LpStatus::Unbounded && node.depth == 0) {
    root_unbounded_ = true;
    return;
  }
  if (st != LpStatus::Optimal) {
    log(sdk::LogLevel::Debug, "glpk_bnb: LP of a node failed ({}); its bound {:.10g} is kept",
        st == LpStatus::Unbounded ? "unbounded" : "numerical failure", node.bound);
    ++failed_lps_;
    unresolved_bound_ = std::min(unresolved_bound_, node.bound);
    unresolved_ = true;
    return;
  }
  const double lp_obj = obj;
  obj = std::max(obj, node.bound);  // a child's relaxation never beats its parent's
  if (node.branch_var >= 0 && node.branch_dist > 0) {
    const auto v = static_cast<std::size_t>(node.branch_var);
    pc_sum_[node.branch_dir][v] += std::max(0.0, obj - node.bound) / node.branch_dist;
    pc_cnt_[node.branch_dir][v] += 1;
  }
  const std::vector<double> x = x_;
  consider(x, node.depth == 0 ? "the root relaxation" : "a node relaxation");
  if (prunable(obj)) {
    fathom_bound_ = std::min(fathom_bound_, obj);
    return;
  }
  const auto saved = std::make_shared<SavedBasis>(SavedBasis{lp_.basis(), layout_, worker_});
  age_cuts(saved->basis);
  lp_.reduced_costs(d_);  // read now: the heuristics below re-solve other LPs

  Branch br;
  if (node.depth == 0) {
    // The root's heuristics before its branching choice: when their incumbent closes the gap
    // (BARK's models at the paper's 10 % gap, often), the strong branching that the choice
    // runs at the root is not needed; it was a third of such a solve's time.
    br.integer = has_fractional(x);
    br.frac = br.integer ? 0.5 : 0.0;  // only asks for the rounding heuristic
    primal_heuristics(0, x, br, true, lo, up, *saved);
    if (prunable(obj)) {
      fathom_bound_ = std::min(fathom_bound_, obj);
      return;
    }
    br = Branch{};
  }
  const bool can_branch = choose_branch(x, obj, saved->basis, br);
  if (node.depth > 0) primal_heuristics(node.depth, x, br, can_branch, lo, up, *saved);
  if (prunable(obj)) {
    fathom_bound_ = std::min(fathom_bound_, obj);
    return;
  }
  bool near_integral = false;
  if (!can_branch) {
    // Nothing left to split: the point is feasible within tolerance (and was offered as an
    // incumbent), or it is integral only within kIntTol and rounding broke a row (split on
    // that integer below), or it is numerically unresolvable and its bound stays on record.
    snap(x, xs_);
    const sdk::ModelEvaluation ev = model_.evaluate(xs_);
    if (ev.max_violation() <= opt_.feasibility_tolerance) {
      fathom_bound_ = std::min(fathom_bound_, obj);
      return;
    }
    near_integral = near_integral_branch(x, lo, up, br);
    if (!near_integral) {
      unresolved_bound_ = std::min(unresolved_bound_, obj);
      unresolved_ = true;
      log(sdk::LogLevel::Debug,
          "glpk_bnb: node at depth {} cannot be split further (violations: rows {:.3g}, bounds "
          "{:.3g}, integrality {:.3g})",
          node.depth, ev.max_row_violation, ev.max_bound_violation, ev.max_integrality_violation);
      return;
    }
  }

  std::vector<BoundChange> tightened = node.changes;
  // Reduced costs bound the LP value itself, not the inherited bound.
  reduced_cost_tightening(lp_obj, *saved, lo, up, tightened);
  const std::size_t first_child = children.size();
  branch(node, obj, br, x, std::move(tightened), saved, children);
  if (near_integral) {
    // A distance of 1e-7 would make the pseudo-cost of one such split swamp the others'.
    for (std::size_t c = first_child; c < children.size(); ++c) children[c].branch_var = -1;
  }
}

bool Search::near_integral_branch(const std::vector<double>& x, const std::vector<double>& lo,
                                  const std::vector<double>& up, Branch& br) const {
  // Integral within kIntTol is not feasible within the tolerance when a row multiplies an
  // integer by a large coefficient: a ReLU network's big-M rows (coefficients up to 70) turn a
  // neuron's binary at 5.3e-7 into a row violation of 2e-5 once rounded (NN+MILP on Ising,
  // N = 292).
  // Such a node used to stay open with its bound, and the solve ended "limit reached" at
  // another node's incumbent. Splitting on the integer farthest from its rounded value (among
  // those the node has not fixed) lets each child's LP decide with that integer exact.
  int best = -1;
  double dist = 0.0;
  for (int j = 0; j < P_.n_orig; ++j) {
    const auto k = static_cast<std::size_t>(j);
    if (!P_.integer[k] || lo[k] >= up[k]) continue;
    const double d = std::abs(x[k] - std::round(x[k]));
    if (d > dist) {
      dist = d;
      best = j;
    }
  }
  if (best < 0) return false;
  const auto k = static_cast<std::size_t>(best);
  const double v = std::round(x[k]);
  br = Branch{};
  br.var = best;
  br.integer = true;
  br.frac = 0.0;  // branch() then splits at br.point: x <= point and x >= point + 1
  br.point = v > lo[k] ? v - 1.0 : v;
  br.up_first = v > lo[k];  // the child that keeps the rounded value first
  return true;
}

double Search::open_bound() const {
  double b = std::min(fathom_bound_, unresolved_bound_);
  if (!heap_.empty()) b = std::min(b, heap_.front().bound);
  return b;
}

sdk::SolveResult Search::finish(bool limit, const std::string& note) {
  sdk::SolveResult res;
  res.nodes = nodes_ + other_nodes_;
  res.lp_iterations = lp_work() + other_iterations_;
  res.seconds = elapsed();
  double bound = open_bound();
  if (std::isfinite(inc_obj_)) {
    bound = std::min(bound, inc_obj_);
    res.x = inc_x_;
    res.objective = model_.evaluate(inc_x_).objective;
    res.status = limit ? sdk::SolveStatus::LimitReached : sdk::SolveStatus::Optimal;
    const double diff = std::max(0.0, inc_obj_ - bound);
    res.gap = relative_gap(P_, inc_obj_, diff);
    if (!limit && unresolved_ && diff > gap_tol(inc_obj_)) {
      res.status = sdk::SolveStatus::LimitReached;
    }
  } else {
    res.objective = P_.sense > 0 ? kInfinity : -kInfinity;
    if (limit || unresolved_) {
      res.status = sdk::SolveStatus::LimitReached;
    } else {
      res.status = sdk::SolveStatus::Infeasible;
      bound = kInfinity;
    }
  }
  res.best_bound = P_.sense * bound;
  // A failed LP costs the proof only when its kept bound is what the gap stops at; otherwise
  // the count goes in the message and the debug log (a warning per projection of a badly
  // scaled nonconvex model would flood a long study's log).
  const std::int64_t failed = failed_lps_ + other_failed_lps_;
  if (failed > 0) {
    const bool costs_proof = std::isfinite(unresolved_bound_) && unresolved_bound_ <= bound &&
                             res.status == sdk::SolveStatus::LimitReached && !limit;
    log(costs_proof ? sdk::LogLevel::Warn : sdk::LogLevel::Debug,
        "glpk_bnb: the LP relaxations of {} of {} nodes failed (numerically, or unbounded); "
        "their parents' bounds were kept (least {:.10g}){}",
        failed, res.nodes, P_.sense * unresolved_bound_,
        costs_proof ? " and stop the proof short of the gap" : "");
  }
  WarmStarts w = warm_;
  w += other_warm_;
  log(sdk::LogLevel::Debug,
      "glpk_bnb: warm starts: {} from the parent's basis, {} from it carried over dropped cuts "
      "({} dropped cuts brought back), {} from the last node's basis (parent on another "
      "thread: {}, saved too many drops ago: {})",
      w[Start::Parent], w[Start::Carried], w.cuts_back, w[Start::Foreign] + w[Start::Stale],
      w[Start::Foreign], w[Start::Stale]);
  res.message = note;
  if (res.message.empty()) {
    res.message =
        fmt::format("{}: {} nodes, {} LP iterations, {} cuts, {:.3f} s", sdk::to_string(res.status),
                    res.nodes, res.lp_iterations, cuts_ + other_cuts_, res.seconds);
    if (failed > 0) res.message += fmt::format(", {} failed node LPs", failed);
  }
  return res;
}

sdk::SolveResult Search::run() {
  init();
  for (const auto& x : offered_) consider(x, "a start");

  std::vector<Node> children;
  Node root;
  root.seq = ++seq_;
  process(root, children);
  if (root_unbounded_ && !P_.convex.empty()) {
    // Cuts have not yet shaped the curved rows: solve inside a growing artificial box, add the
    // tangents found there, and retry without the box.
    for (double big = 1e6; big <= 1e12 && root_unbounded_; big *= 100.0) {
      std::vector<double> lo = root_lo_, up = root_up_;
      for (std::size_t j = 0; j < lo.size(); ++j) {
        if (!std::isfinite(lo[j])) lo[j] = -big;
        if (!std::isfinite(up[j])) up[j] = big;
      }
      load_bounds(lo, up);
      double obj = 0;
      if (solve_relaxation(true, obj) == LpStatus::Infeasible) break;
      root_unbounded_ = false;
      children.clear();
      process(root, children);
    }
  }
  if (root_unbounded_) {
    sdk::SolveResult res = finish(false, "");
    res.status = sdk::SolveStatus::Unbounded;
    res.best_bound = P_.sense > 0 ? -kInfinity : kInfinity;
    res.objective = res.best_bound;
    res.gap = kInfinity;
    res.x.clear();
    if (std::isfinite(inc_obj_)) res.x = inc_x_;
    res.message = "the relaxation is unbounded and no cut bounds it: the model is unbounded";
    return res;
  }
  return rounds(std::move(children));
}

}  // namespace arbo::plugins::glpk::bnb
