// SPDX-License-Identifier: MIT
// The relaxation of the branch-and-bound: the LP with its McCormick envelopes (rebuilt for
// each node's bounds), the outer-approximation cuts of convex quadratic rows and squares, the
// cut rounds at a node, and the cut pool with the warm starts that survive its purges.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "search.hpp"

namespace arbo::plugins::glpk::bnb {

namespace {

// Rounds of cuts per node: the root may need many to shape a curved objective; deeper nodes
// start from the root's cuts and need few.
constexpr int kRootCutRounds = 300;
constexpr int kNodeCutRounds = 10;
constexpr int kRootFracRounds = 30;
// Three rounds at fractional nodes. With reliability branching and the aging cut pool, the
// late LEAF-GP models need the node's stddev bound pulled down before branching: on a 30-model
// corpus at 30 s, 27/30 proven against 21/30 with one round (2: 24/30, 5: 24/30; an adaptive
// rule did worse), and a G1 model proven with its optimum as cutoff took 11,193 nodes with
// one round and 1,579 with three (bench/solver/README.md, "session 4"). One round had won on
// the smaller session-2 corpus, before reliability branching.
constexpr int kNodeFracRounds = 3;
// Cut pool: every cut of the LEAF-GP stddev row is dense over the agreement variables, and a
// pool that only grows made each simplex iteration three times slower by 1,700 nodes
// (bench/solver/README.md). Cuts that were slack (basic) at the optimum of the last kCutMaxAge
// branching nodes are dropped once the pool holds more than kMinCutPool cuts and at least
// kMinCutPurge (or a quarter of the pool) are that old. Since open nodes get dropped cuts
// back when their parent had them active (restore_basis), a short age pays: on the hard LEAF-GP
// models of bench/solver (session 7, 30 s, one thread) ages 40, 20, 10 and 5 proved 5, 8, 10
// and 11 of 14, and age 5 proved 16/16 of another corpus where 20 proved 14. A pool of 150
// instead of 300 then proved 11 against 10 of the 14, and the 16 in 0.86x the total time.
constexpr int kMinCutPool = 150;
// Deleted rows are kept for the warm starts of open nodes (restore_basis) up to this many
// coefficients in all (about 24 MB per thread), the oldest forgotten first. G7's models drop
// small cuts every few nodes; a limit of 128 drops instead left 220 of 2,900 nodes (30 s, two
// threads) without their parent's basis.
constexpr std::size_t kKeptCoefficients = 2'000'000;
constexpr int kCutMaxAge = 5;
constexpr int kMinCutPurge = 50;

// Appends the four envelope rows of `p` for the box `lo`, `up` (indexed by column).
void append_envelope(const Product& p, const std::vector<double>& lo, const std::vector<double>& up,
                     std::vector<SparseRow>& rows, std::vector<double>& rlo,
                     std::vector<double>& rup) {
  SparseRow r[4];
  double l[4], u[4];
  const auto i = static_cast<std::size_t>(p.i), j = static_cast<std::size_t>(p.j);
  envelope(p, lo[i], up[i], lo[j], up[j], r, l, u);
  for (int k = 0; k < 4; ++k) {
    rows.push_back(r[k]);
    rlo.push_back(l[k]);
    rup.push_back(u[k]);
  }
}

}  // namespace

void Search::build_lp() {
  lp_.add_cols(root_lo_, root_up_, P_.cost);
  lp_.add_rows(P_.rows, P_.row_lo, P_.row_up);
  mcc_first_ = lp_.num_rows();
  std::vector<SparseRow> env;
  std::vector<double> elo, eup;
  for (const Product& p : P_.products) append_envelope(p, root_lo_, root_up_, env, elo, eup);
  lp_.add_rows(env, elo, eup);
  cut_first_ = lp_.num_rows();
  if (!P_.rows.empty()) lp_.scale();
  // One tangent per convex row at the box centre (or 0 where unbounded), so that an epigraph
  // variable is bounded below from the first LP on.
  std::vector<double> x0(root_lo_.size(), 0.0);
  for (std::size_t j = 0; j < x0.size(); ++j) {
    const double lo = root_lo_[j], up = root_up_[j];
    x0[j] = (std::isfinite(lo) && std::isfinite(up)) ? 0.5 * (lo + up) : std::clamp(0.0, lo, up);
  }
  for (const ConvexRow& c : P_.convex) {
    if (!c.objective) continue;
    const auto n = static_cast<Eigen::Index>(c.qvars.size());
    Eigen::VectorXd xq(n);
    for (Eigen::Index k = 0; k < n; ++k)
      xq[k] = x0[static_cast<std::size_t>(c.qvars[static_cast<std::size_t>(k)])];
    const Eigen::VectorXd g = 2.0 * (c.Q * xq);
    SparseRow row;
    for (Eigen::Index k = 0; k < n; ++k) {
      row.idx.push_back(c.qvars[static_cast<std::size_t>(k)]);
      row.val.push_back(g[k]);
    }
    for (std::size_t k = 0; k < c.lin_idx.size(); ++k) {
      row.idx.push_back(c.lin_idx[k]);
      row.val.push_back(c.lin_val[k]);
    }
    lp_.add_rows({row}, {-kInfinity}, {c.rhs + xq.dot(c.Q * xq)});
  }
  cur_lo_ = root_lo_;
  cur_up_ = root_up_;
}

void Search::load_bounds(const std::vector<double>& lo, const std::vector<double>& up) {
  std::vector<int> cols;
  std::vector<double> clo, cup;
  mark_.assign(P_.products.size(), 0);
  std::vector<int> touched;
  for (std::size_t v = 0; v < lo.size(); ++v) {
    if (lo[v] == cur_lo_[v] && up[v] == cur_up_[v]) continue;
    cols.push_back(static_cast<int>(v));
    clo.push_back(lo[v]);
    cup.push_back(up[v]);
    cur_lo_[v] = lo[v];
    cur_up_[v] = up[v];
    for (int p : P_.products_of_var[v]) {
      if (!mark_[static_cast<std::size_t>(p)]) {
        mark_[static_cast<std::size_t>(p)] = 1;
        touched.push_back(p);
      }
    }
  }
  lp_.set_col_bounds(cols, clo, cup);
  if (touched.empty()) return;
  std::vector<int> which;
  std::vector<SparseRow> rows;
  std::vector<double> rlo, rup;
  for (int p : touched) {
    for (int k = 0; k < 4; ++k) which.push_back(mcc_first_ + 4 * p + k);
    append_envelope(P_.products[static_cast<std::size_t>(p)], lo, up, rows, rlo, rup);
  }
  lp_.set_rows(which, rows, rlo, rup);
}

void Search::bound_products(std::vector<double>& lo, std::vector<double>& up) const {
  for (const Product& p : P_.products) {
    const auto i = static_cast<std::size_t>(p.i), j = static_cast<std::size_t>(p.j);
    double plo = 0, pup = 0;
    product_bounds(lo[i], up[i], lo[j], up[j], p.i == p.j, plo, pup);
    const auto w = static_cast<std::size_t>(p.w);
    lo[w] = std::max(lo[w], plo);
    up[w] = std::min(up[w], pup);
  }
}

int Search::add_cuts(const std::vector<double>& x, double obj_estimate) {
  std::vector<SparseRow> rows;
  std::vector<double> lo, up;
  const double feas = 0.5 * opt_.feasibility_tolerance;
  // The epigraph only moves the bound; a small fraction of the gap tolerance is enough.
  const double obj_tol = std::max(feas, 0.01 * gap_tol(obj_estimate));
  for (const ConvexRow& c : P_.convex) {
    const auto n = static_cast<Eigen::Index>(c.qvars.size());
    Eigen::VectorXd xq(n);
    for (Eigen::Index k = 0; k < n; ++k)
      xq[k] = x[static_cast<std::size_t>(c.qvars[static_cast<std::size_t>(k)])];
    const Eigen::VectorXd Qx = c.Q * xq;
    const double quad = xq.dot(Qx);
    double g = quad - c.rhs;
    for (std::size_t k = 0; k < c.lin_idx.size(); ++k)
      g += c.lin_val[k] * x[static_cast<std::size_t>(c.lin_idx[k])];
    if (g <= (c.objective ? obj_tol : feas)) continue;
    // Tangent of the convex function at x: 2 x'Q y + a'y <= rhs + x'Q x.
    SparseRow row;
    for (Eigen::Index k = 0; k < n; ++k) {
      if (Qx[k] == 0.0) continue;
      row.idx.push_back(c.qvars[static_cast<std::size_t>(k)]);
      row.val.push_back(2.0 * Qx[k]);
    }
    for (std::size_t k = 0; k < c.lin_idx.size(); ++k) add_term(row, c.lin_idx[k], c.lin_val[k]);
    rows.push_back(std::move(row));
    lo.push_back(-kInfinity);
    up.push_back(c.rhs + quad);
  }
  for (const Product& p : P_.products) {
    if (p.i != p.j) continue;
    const double xi = x[static_cast<std::size_t>(p.i)];
    const double w = x[static_cast<std::size_t>(p.w)];
    if (w >= xi * xi - feas) continue;
    // w >= 2 xi y - xi^2: the tangent of the square, valid everywhere.
    SparseRow row;
    row.idx = {p.w};
    row.val = {1.0};
    if (xi != 0.0) {
      row.idx.push_back(p.i);
      row.val.push_back(-2.0 * xi);
    }
    rows.push_back(std::move(row));
    lo.push_back(-xi * xi);
    up.push_back(kInfinity);
  }
  if (!rows.empty()) {
    lp_.add_rows(rows, lo, up);
    cuts_ += static_cast<std::int64_t>(rows.size());
  }
  return static_cast<int>(rows.size());
}

void Search::age_cuts(const Basis& basis) {
  const auto first = static_cast<std::size_t>(cut_first_);
  cut_age_.resize(static_cast<std::size_t>(lp_.num_rows()) - first, 0);
  for (std::size_t k = 0; k < cut_age_.size() && first + k < basis.rows.size(); ++k) {
    cut_age_[k] = basis.rows[first + k] == kBasic ? cut_age_[k] + 1 : 0;
  }
}

void Search::purge_cuts() {
  const int cut_rows = lp_.num_rows() - cut_first_;
  if (cut_rows <= kMinCutPool) return;
  cut_age_.resize(static_cast<std::size_t>(cut_rows), 0);
  std::vector<int> drop;
  for (int k = 0; k < cut_rows; ++k) {
    if (cut_age_[static_cast<std::size_t>(k)] >= kCutMaxAge) drop.push_back(cut_first_ + k);
  }
  // Every deletion is recorded for the open nodes' warm starts (restore_basis), and a node
  // whose parent had a dropped cut active adds it back: only worth it in bulk.
  const std::size_t dropped = drop.size();
  if (static_cast<int>(dropped) < std::max(kMinCutPurge, cut_rows / 4)) return;
  delete_rows(std::move(drop));
  std::size_t kept = 0;
  for (std::size_t k = 0; k < cut_age_.size(); ++k) {
    if (cut_age_[k] < kCutMaxAge) cut_age_[kept++] = cut_age_[k];
  }
  cut_age_.resize(kept);
  log(sdk::LogLevel::Debug, "glpk_bnb: dropped {} cuts inactive at the last {} nodes", dropped,
      kCutMaxAge);
}

void Search::delete_rows(std::vector<int> rows, bool since_save) {
  DeletedRows d;
  if (!since_save) lp_.get_rows(rows, d.rows, d.lo, d.up);
  d.at = rows;
  for (const SparseRow& r : d.rows) d.coefficients += r.idx.size();
  kept_coefficients_ += d.coefficients;
  deleted_.push_back(std::move(d));
  while (kept_coefficients_ > kKeptCoefficients && deleted_.size() > 1) {
    kept_coefficients_ -= deleted_.front().coefficients;
    deleted_.pop_front();
    ++deleted_first_;
  }
  lp_.delete_rows(std::move(rows));
  ++layout_;
}

// A node's warm start is its parent's optimal basis. Under a later layout, the statuses of
// the deleted rows that were basic there (cut slacks) are dropped; the deleted rows that were
// active there come back at the end of the LP with their status, so the basis is exactly the
// parent's again. Without them it would hold more basic variables than rows, and the node
// would start from the last node's basis instead: on a late G1 model (one thread, 30 s) such
// nodes took 397 simplex iterations on average against 122 and were a third of all nodes.
Start Search::restore_basis(const SavedBasis& saved) {
  if (saved.worker != worker_) return Start::Foreign;  // another thread's LP
  if (saved.layout == layout_) {
    lp_.set_basis(saved.basis);
    return Start::Parent;
  }
  if (saved.layout < deleted_first_) return Start::Stale;  // its deleted rows are forgotten
  carried_.cols = saved.basis.cols;
  std::vector<signed char>& rows = carried_.rows;
  rows = saved.basis.rows;
  back_rows_.clear();
  back_lo_.clear();
  back_up_.clear();
  back_status_.clear();
  for (std::uint64_t l = saved.layout; l < layout_; ++l) {
    const DeletedRows& d = deleted_[static_cast<std::size_t>(l - deleted_first_)];
    std::size_t kept = 0;
    std::size_t g = 0;
    // Rows appended after the save sit past `rows.size()`: their deletions do not concern it.
    for (std::size_t i = 0; i < rows.size(); ++i) {
      while (g < d.at.size() && static_cast<std::size_t>(d.at[g]) < i) ++g;
      if (g < d.at.size() && static_cast<std::size_t>(d.at[g]) == i) {
        if (rows[i] != kBasic) {
          back_rows_.push_back(d.rows[g]);
          back_lo_.push_back(d.lo[g]);
          back_up_.push_back(d.up[g]);
          back_status_.push_back(rows[i]);
        }
        continue;
      }
      rows[kept++] = rows[i];
    }
    rows.resize(kept);
  }
  if (!back_rows_.empty()) {
    rows.resize(static_cast<std::size_t>(lp_.num_rows()), kBasic);  // appended since the save
    lp_.add_rows(back_rows_, back_lo_, back_up_);
    rows.insert(rows.end(), back_status_.begin(), back_status_.end());
    cut_age_.resize(static_cast<std::size_t>(lp_.num_rows() - cut_first_), 0);
    warm_.cuts_back += static_cast<std::int64_t>(back_rows_.size());
  }
  lp_.set_basis(carried_);
  return Start::Carried;
}

LpStatus Search::solve_relaxation(bool root, double& obj) {
  LpStatus st = lp_.solve(ms_left());
  const int max_rounds = root ? kRootCutRounds : kNodeCutRounds;
  double last = -kInfinity;
  int stalls = 0;
  for (int round = 0; st == LpStatus::Optimal; ++round) {
    lp_.primal(x_);
    obj = lp_.objective() + P_.cost_const;
    if (P_.convex.empty() && P_.products.empty()) break;
    if (round >= max_rounds) break;
    if (obj - last <= 1e-9 * (1.0 + std::abs(obj))) {
      if (++stalls >= 8) break;
    } else {
      stalls = 0;
    }
    last = obj;
    if (prunable(obj)) break;  // the node is closed whatever more cuts would say
    // LP/NLP-based branch-and-bound: while integers are fractional the node is split anyway,
    // so a few rounds suffice; cuts are driven to convergence only at integral points.
    if (round >= (root ? kRootFracRounds : kNodeFracRounds) && has_fractional(x_)) break;
    const int rows_before = lp_.num_rows();
    if (add_cuts(x_, std::isfinite(inc_obj_) ? inc_obj_ : obj) == 0) break;
    if (elapsed() >= opt_.time_limit_seconds) return LpStatus::TimeLimit;
    st = lp_.solve(ms_left());
    if (st == LpStatus::Failed) {
      // This round's cuts made the LP numerically unsolvable (Alkylation's lifted rows span
      // ten orders of magnitude). Cuts only tighten, so the LP without them is still a valid
      // relaxation: drop them and let the previous round's solution and bound stand.
      std::vector<int> added;
      for (int r = rows_before; r < lp_.num_rows(); ++r) added.push_back(r);
      delete_rows(std::move(added), true);  // added in this call; no basis is saved during it
      cut_age_.resize(static_cast<std::size_t>(rows_before - cut_first_));
      st = lp_.solve(ms_left());
      if (st == LpStatus::Optimal) {
        lp_.primal(x_);
        obj = lp_.objective() + P_.cost_const;
      }
      break;
    }
  }
  return st;
}

}  // namespace arbo::plugins::glpk::bnb
