// SPDX-License-Identifier: MIT
// Branching: integer branching by pseudo-costs with reliability (strong) branching, spatial
// branching on the factors of products and on the variables of violated convex rows, the
// children's bounds, and reduced-cost tightening against the incumbent.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "search.hpp"

namespace arbo::plugins::glpk::bnb {

namespace {

// Reliability branching (Achterberg, Koch and Martin 2005): a variable whose pseudo-costs rest
// on fewer than kReliable observations per direction is scored by solving both children's LPs
// (at most kStrongIterFactor times a node's average simplex iterations each), for at most
// kStrongCandidates variables per node, stopping after kStrongLookahead without a better score.
// On LEAF-GP models the early pseudo-costs are guesses and halve the nodes this way; the values
// were compared on bench/solver's LEAF-GP corpus (README there).
constexpr double kReliable = 2.0;
constexpr int kStrongCandidates = 8;
constexpr int kStrongLookahead = 4;
constexpr double kStrongIterFactor = 2.0;

// The product rule for branching scores (Achterberg 2007): both children's bound gains count.
double product_score(double down_gain, double up_gain) {
  return std::max(down_gain, 1e-6) * std::max(up_gain, 1e-6);
}

}  // namespace

double Search::pseudo_cost(int dir, int var) const {
  const auto v = static_cast<std::size_t>(var);
  if (pc_cnt_[dir][v] > 0) return pc_sum_[dir][v] / pc_cnt_[dir][v];
  double s = 0, c = 0;
  for (std::size_t k = 0; k < pc_cnt_[dir].size(); ++k) {
    if (pc_cnt_[dir][k] > 0) {
      s += pc_sum_[dir][k] / pc_cnt_[dir][k];
      c += 1;
    }
  }
  return c > 0 ? s / c : 1.0;
}

void Search::strong_branch(const std::vector<double>& x, const Basis& basis,
                           std::vector<Candidate>& cands) {
  std::sort(cands.begin(), cands.end(),
            [](const Candidate& a, const Candidate& b) { return a.score > b.score; });
  const double base = lp_.objective();
  const double avg_iters = static_cast<double>(lp_.iterations()) /
                           static_cast<double>(std::max<std::int64_t>(1, nodes_));
  const int it_lim = std::max(20, static_cast<int>(kStrongIterFactor * avg_iters));
  int evaluated = 0, since_best = 0;
  double best = -1.0;
  for (Candidate& c : cands) {
    if (evaluated >= kStrongCandidates || since_best >= kStrongLookahead) break;
    if (elapsed() >= opt_.time_limit_seconds) break;
    const auto j = static_cast<std::size_t>(c.var);
    if (std::min(pc_cnt_[0][j], pc_cnt_[1][j]) >= kReliable) continue;
    double gain[2] = {0.0, 0.0};
    for (int dir = 0; dir < 2; ++dir) {
      const double lo = dir == 0 ? cur_lo_[j] : std::floor(x[j]) + 1.0;
      const double up = dir == 0 ? std::floor(x[j]) : cur_up_[j];
      lp_.set_col_bounds({c.var}, {lo}, {up});
      const LpStatus st = lp_.solve(ms_left(), it_lim);
      if (st == LpStatus::Infeasible) {
        gain[dir] = kInfinity;
      } else if (st == LpStatus::Optimal || st == LpStatus::IterationLimit) {
        gain[dir] = std::max(0.0, lp_.objective() - base);
        const double dist = dir == 0 ? c.frac : 1.0 - c.frac;
        pc_sum_[dir][j] += gain[dir] / dist;
        pc_cnt_[dir][j] += 1;
      } else {
        gain[dir] = -1.0;  // unknown: keep the pseudo-cost estimate for this side
      }
      lp_.set_col_bounds({c.var}, {cur_lo_[j]}, {cur_up_[j]});
      lp_.set_basis(basis);
    }
    if (gain[0] < 0) gain[0] = c.frac * pseudo_cost(0, c.var);
    if (gain[1] < 0) gain[1] = (1.0 - c.frac) * pseudo_cost(1, c.var);
    // A child that is infeasible is closed at once: branching there only fixes the variable.
    c.score =
        std::isinf(gain[0]) || std::isinf(gain[1]) ? kInfinity : product_score(gain[0], gain[1]);
    ++evaluated;
    if (c.score > best) {
      best = c.score;
      since_best = 0;
    } else {
      ++since_best;
    }
  }
}

bool Search::choose_branch(const std::vector<double>& x, double node_obj, const Basis& basis,
                           Branch& br) {
  // Integers first: a fractional integer makes every other test moot.
  cands_.clear();
  for (int j = 0; j < P_.n_orig; ++j) {
    const auto k = static_cast<std::size_t>(j);
    if (!P_.integer[k]) continue;
    const double f = x[k] - std::floor(x[k]);
    if (f <= kIntTol || f >= 1.0 - kIntTol) continue;
    double score = 0;
    if (cfg_.pseudo_costs) {
      score = product_score(f * pseudo_cost(0, j), (1.0 - f) * pseudo_cost(1, j));
    } else {
      score = std::min(f, 1.0 - f);
    }
    cands_.push_back({j, f, score});
  }
  if (cfg_.pseudo_costs && cfg_.strong_branching && cands_.size() > 1)
    strong_branch(x, basis, cands_);
  double best = -1.0;
  for (const Candidate& c : cands_) {
    if (c.score > best) {
      best = c.score;
      br.var = c.var;
      br.integer = true;
      br.frac = c.frac;
      br.up_first = c.frac > 0.5;
    }
  }
  if (br.var >= 0) return true;

  // Integral: find the product whose relaxation error matters most.
  snap(x, xs_);
  const sdk::ModelEvaluation ev = model_.evaluate(xs_);
  mark_.assign(P_.products.size(), 0);
  const auto& qrows = model_.quadratic_rows();
  for (std::size_t r = 0; r < qrows.size(); ++r) {
    if (P_.quad_row_products[r].empty()) continue;
    const double a = ev.quadratic_activity[r];
    double viol = 0;
    switch (qrows[r].sense) {
      case sdk::RowSense::LessEqual: viol = a - qrows[r].rhs; break;
      case sdk::RowSense::GreaterEqual: viol = qrows[r].rhs - a; break;
      case sdk::RowSense::Equal: viol = std::abs(a - qrows[r].rhs); break;
    }
    if (viol > opt_.feasibility_tolerance) {
      for (int p : P_.quad_row_products[r]) mark_[static_cast<std::size_t>(p)] = 1;
    }
  }
  if (!P_.objective_products.empty()) {
    const double z = true_objective(xs_);
    const double ref = std::isfinite(inc_obj_) ? std::min(inc_obj_, z) : z;
    if (z - node_obj > 0.5 * gap_tol(ref)) {
      for (int p : P_.objective_products) mark_[static_cast<std::size_t>(p)] = 1;
    }
  }
  double best_score = 0.0;
  int best_p = -1;
  for (std::size_t p = 0; p < P_.products.size(); ++p) {
    if (!mark_[p]) continue;
    const Product& pr = P_.products[p];
    const double err =
        std::abs(x[static_cast<std::size_t>(pr.w)] -
                 x[static_cast<std::size_t>(pr.i)] * x[static_cast<std::size_t>(pr.j)]);
    const double score = err * std::max(pr.weight, 1e-12);
    if (score > best_score) {
      best_score = score;
      best_p = static_cast<int>(p);
    }
  }
  auto branchable = [&](int v) {
    const auto k = static_cast<std::size_t>(v);
    const double w = cur_up_[k] - cur_lo_[k];
    if (P_.integer[k]) return w >= 1.0;
    return w > 1e-9 * (1.0 + std::abs(x[k]));
  };
  auto relative_width = [&](int v) {
    const auto k = static_cast<std::size_t>(v);
    const double root_w = root_up_[k] - root_lo_[k];
    return (cur_up_[k] - cur_lo_[k]) / std::max(root_w, 1e-12);
  };
  auto set_spatial = [&](int v) {
    const auto k = static_cast<std::size_t>(v);
    const double lo = cur_lo_[k], up = cur_up_[k];
    br.var = v;
    if (P_.integer[k]) {
      br.integer = true;
      br.point = std::clamp(std::floor(x[k]), lo, up - 1.0);
      br.frac = 0.5;
    } else {
      const double w = up - lo;
      // Between the LP value (which it cuts off) and the middle (which balances the tree).
      br.point = std::clamp(0.5 * x[k] + 0.25 * (lo + up), lo + 0.1 * w, up - 0.1 * w);
    }
  };
  if (best_p >= 0) {
    const Product& pr = P_.products[static_cast<std::size_t>(best_p)];
    int v = -1;
    if (pr.i == pr.j) {
      if (branchable(pr.i)) v = pr.i;
    } else {
      const bool bi = branchable(pr.i), bj = branchable(pr.j);
      if (bi && bj) {
        v = relative_width(pr.i) >= relative_width(pr.j) ? pr.i : pr.j;
      } else if (bi) {
        v = pr.i;
      } else if (bj) {
        v = pr.j;
      }
    }
    if (v >= 0) {
      set_spatial(v);
      return true;
    }
  }
  // Still violated convex rows (the cut loop stalled): split the widest of their variables.
  if (ev.max_row_violation > opt_.feasibility_tolerance) {
    double widest = 0.0;
    int v_best = -1;
    for (const ConvexRow& c : P_.convex) {
      if (c.objective) continue;
      for (int v : c.qvars) {
        if (!branchable(v)) continue;
        const double rw = relative_width(v);
        if (rw > widest) {
          widest = rw;
          v_best = v;
        }
      }
    }
    if (v_best >= 0) {
      set_spatial(v_best);
      return true;
    }
    // Or any variable of any violated product, even if its term looked harmless.
    for (std::size_t p = 0; p < P_.products.size(); ++p) {
      if (!mark_[p]) continue;
      for (int v : {P_.products[p].i, P_.products[p].j}) {
        if (branchable(v)) {
          set_spatial(v);
          return true;
        }
      }
    }
  }
  return false;
}

void Search::reduced_cost_tightening(double obj, const SavedBasis& basis,
                                     const std::vector<double>& lo, const std::vector<double>& up,
                                     std::vector<BoundChange>& out) {
  if (!std::isfinite(inc_obj_)) return;
  const double slack = inc_obj_ - obj;
  if (slack <= 0) return;
  for (int j = 0; j < P_.ncols; ++j) {
    const auto k = static_cast<std::size_t>(j);
    const signed char st = basis.basis.cols[k];
    const double d = d_[k];
    if (st == kAtLower && d > 1e-7 && std::isfinite(lo[k])) {
      double nu = lo[k] + slack / d;
      if (P_.integer[k]) nu = std::floor(nu + 1e-6);
      if (nu < up[k] - 1e-6 * (1.0 + std::abs(up[k]))) out.push_back({j, -kInfinity, nu});
    } else if (st == kAtUpper && d < -1e-7 && std::isfinite(up[k])) {
      double nl = up[k] + slack / d;
      if (P_.integer[k]) nl = std::ceil(nl - 1e-6);
      if (nl > lo[k] + 1e-6 * (1.0 + std::abs(lo[k]))) out.push_back({j, nl, kInfinity});
    }
  }
}

void Search::branch(const Node& node, double obj, const Branch& br, const std::vector<double>& x,
                    std::vector<BoundChange> changes,
                    const std::shared_ptr<const SavedBasis>& basis, std::vector<Node>& children) {
  const auto v = static_cast<std::size_t>(br.var);
  Node down, upn;
  down.bound = upn.bound = obj;
  down.depth = upn.depth = node.depth + 1;
  down.basis = upn.basis = basis;
  down.changes = changes;
  upn.changes = std::move(changes);
  if (br.integer) {
    const double xv = x[v];
    const double fl = br.frac > 0 && P_.integer[v] && std::abs(xv - std::round(xv)) > kIntTol
                          ? std::floor(xv)
                          : br.point;
    down.changes.push_back({br.var, -kInfinity, fl});
    upn.changes.push_back({br.var, fl + 1.0, kInfinity});
    down.branch_var = upn.branch_var = br.var;
    down.branch_dir = 0;
    upn.branch_dir = 1;
    down.branch_dist = xv - fl;
    upn.branch_dist = fl + 1.0 - xv;
    if (down.branch_dist <= 0 || upn.branch_dist <= 0) down.branch_var = upn.branch_var = -1;
  } else {
    down.changes.push_back({br.var, -kInfinity, br.point});
    upn.changes.push_back({br.var, br.point, kInfinity});
  }
  down.seq = ++seq_;
  upn.seq = ++seq_;
  if (br.up_first) {
    children.push_back(std::move(upn));
    children.push_back(std::move(down));
  } else {
    children.push_back(std::move(down));
    children.push_back(std::move(upn));
  }
}

}  // namespace arbo::plugins::glpk::bnb
