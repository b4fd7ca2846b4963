// SPDX-License-Identifier: MIT
/// @file
/// @brief Private to the glpk_bnb plugin (not installed, included only by its own sources):
/// the branch-and-bound's `Search` and what its files share.
///
/// One `Search` member set per file: search.cpp (the node loop: root, node LP, fathoming,
/// result), cuts.cpp (the relaxation: LP, McCormick envelopes, outer-approximation cuts, the
/// cut pool and the warm starts it affects), branching.cpp (integer and spatial branching,
/// pseudo-costs, reliability branching, reduced-cost tightening), heuristics.cpp (incumbents:
/// rounding, fix-and-resolve, polishing, completed starts) and rounds.cpp (the deterministic
/// multi-thread rounds and their helper threads). bnb.cpp holds the entry point `solve_model`.
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <arbo/sdk/context.hpp>
#include <arbo/sdk/model.hpp>

#include "bnb.hpp"
#include "glpk_session.hpp"
#include "lp.hpp"
#include "prepare.hpp"

namespace arbo::plugins::glpk::bnb {

using sdk::kInfinity;
using Clock = std::chrono::steady_clock;

// A value within this of an integer counts as integral.
constexpr double kIntTol = 1e-6;
// Polishing (linearize-and-project onto the rows) runs at most once per this many nodes.
constexpr std::int64_t kPolishEvery = 8;

struct BoundChange {
  int var;
  double lo;
  double up;
};

struct SavedBasis {
  Basis basis;
  std::uint64_t layout;
  int worker;  // whose LP it belongs to: each thread of a parallel search has its own
};

// How a node's LP was started (see Search::restore_basis): from the parent's basis as saved;
// from it carried over dropped cuts; from the last node's basis because the parent ran on
// another thread, or because it was saved too many drops ago.
enum class Start { Parent, Carried, Foreign, Stale };

// How the nodes' LPs were warm-started, for the final debug line.
struct WarmStarts {
  std::array<std::int64_t, 4> by_start{};  // indexed by Start
  std::int64_t cuts_back = 0;              // dropped cuts brought back for the carried ones
  std::int64_t& operator[](Start s) { return by_start[static_cast<std::size_t>(s)]; }
  WarmStarts& operator+=(const WarmStarts& o) {
    for (std::size_t k = 0; k < by_start.size(); ++k) by_start[k] += o.by_start[k];
    cuts_back += o.cuts_back;
    return *this;
  }
};

struct Node {
  double bound = -kInfinity;  // lower bound on the subtree (the parent's LP value)
  int depth = 0;
  std::vector<BoundChange> changes;  // from the root
  std::shared_ptr<const SavedBasis> basis;
  int branch_var = -1;  // integer branching that created the node, for pseudo-costs
  int branch_dir = 0;   // 0 down, 1 up
  double branch_dist = 0.0;
  std::uint64_t seq = 0;
};

// Heap order: smallest bound first; among equal bounds the deeper (closer to a leaf) node.
struct WorseNode {
  bool operator()(const Node& a, const Node& b) const {
    if (a.bound != b.bound) return a.bound > b.bound;
    if (a.depth != b.depth) return a.depth < b.depth;
    return a.seq > b.seq;
  }
};
struct BetterNode {
  bool operator()(const Node& a, const Node& b) const { return WorseNode{}(b, a); }
};

struct Candidate {
  int var = -1;
  double frac = 0.0;
  double score = 0.0;
};

struct Branch {
  int var = -1;
  bool integer = false;
  double point = 0.0;  // continuous: children x <= point, x >= point
  double frac = 0.0;   // integer: fractional part of the LP value
  bool up_first = false;
};

using LogBuffer = std::vector<std::pair<sdk::LogLevel, std::string>>;

class Helper;

// A worker's share of one round of the search: the open nodes handed to it, the child it dives
// into, the children it leaves open, and its allowance.
struct Slot {
  std::optional<Node> plunge;  // the child this worker dives into next (kept across rounds)
  std::vector<Node> batch;     // best-first open nodes for this round
  std::size_t next = 0;        // first unprocessed entry of `batch`
  std::vector<Node> open;      // children not dived into: open nodes after the round
  // Least bound of the open nodes outside this slot at the start of the round (dive rule).
  double outer_bound = kInfinity;
  // The round ends once the worker has spent this many simplex iterations (0: after one node)
  // or processed this many nodes (node limit).
  std::int64_t work = 0;
  std::int64_t node_allowance = 0;
  bool active() const { return plunge.has_value() || next < batch.size(); }
};

// The search, run by worker 0 in the calling thread. With threads > 1, helper threads each
// run their own Search (worker >= 1, own GLPK environment and LP) on nodes that worker 0 hands
// out round by round; worker 0 holds the open nodes, the incumbent and the pseudo-costs.
class Search {
 public:
  // `log_sink`: where a helper's messages wait until worker 0 passes them on (cfg_.log is
  // called from the solving thread only).
  Search(const sdk::Model& model, Prepared& prep, const sdk::SolveOptions& options,
         const BnbConfig& config, GlpkSession& session, int worker = 0,
         LogBuffer* log_sink = nullptr)
      : model_(model),
        P_(prep),
        opt_(options),
        cfg_(config),
        session_(session),
        lp_(session),
        worker_(worker),
        log_sink_(log_sink),
        seq_(static_cast<std::uint64_t>(worker) << 40) {}

  // Points over the model's variables offered as incumbents before the root (completed
  // starts, see solve_model).
  void offer(const std::vector<double>& x) { offered_.push_back(x); }

  sdk::SolveResult run();

 private:
  template <class... Args>
  void log(sdk::LogLevel level, fmt::format_string<Args...> f, Args&&... args) {
    if (log_sink_ != nullptr) {
      log_sink_->emplace_back(level, fmt::format(f, std::forward<Args>(args)...));
    } else if (cfg_.log) {
      cfg_.log(level, fmt::format(f, std::forward<Args>(args)...));
    }
  }
  double elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }
  double ms_left() const {
    if (!std::isfinite(opt_.time_limit_seconds)) return -1.0;
    return std::max(1.0, 1000.0 * (opt_.time_limit_seconds - elapsed()));
  }
  bool out_of_budget() {
    if (elapsed() >= opt_.time_limit_seconds) return true;
    if (opt_.node_limit >= 0 && nodes_ + other_nodes_ >= opt_.node_limit) return true;
    return cfg_.cancelled && cfg_.cancelled();
  }
  // Relative to gap_base: sdk::SolveOptions's measure.
  double gap_tol(double value) const {
    return std::max(opt_.absolute_gap, opt_.relative_gap * gap_base(P_, value));
  }
  bool prunable(double bound) const {
    return std::isfinite(inc_obj_) && bound >= inc_obj_ - gap_tol(inc_obj_);
  }

  // search.cpp: the node loop.
  void init();
  bool node_bounds(const Node& node, std::vector<double>& lo, std::vector<double>& up) const;
  void process(Node& node, std::vector<Node>& children);
  // At a node whose LP point is integral within kIntTol but whose rounded point violates a
  // row: the split on the unfixed integer farthest from its rounded value into `br`, false
  // when every integer is exact or fixed (search.cpp).
  bool near_integral_branch(const std::vector<double>& x, const std::vector<double>& lo,
                            const std::vector<double>& up, Branch& br) const;
  double open_bound() const;
  void push_open(Node&& node) {
    heap_.push_back(std::move(node));
    std::push_heap(heap_.begin(), heap_.end(), WorseNode{});
  }
  sdk::SolveResult finish(bool limit, const std::string& note);

  // cuts.cpp: the relaxation, its cuts and the cut pool.
  void build_lp();
  void load_bounds(const std::vector<double>& lo, const std::vector<double>& up);
  // Narrows each product column's bounds to what its factors' bounds imply (may cross them).
  void bound_products(std::vector<double>& lo, std::vector<double>& up) const;
  LpStatus solve_relaxation(bool root, double& obj);
  int add_cuts(const std::vector<double>& x, double obj_estimate);
  bool has_fractional(const std::vector<double>& x) const {
    for (int j = 0; j < P_.n_orig; ++j) {
      const auto k = static_cast<std::size_t>(j);
      if (P_.integer[k] && std::abs(x[k] - std::round(x[k])) > kIntTol) return true;
    }
    return false;
  }
  void purge_cuts();
  // Counts, per cut row, the consecutive node optima at which it was slack.
  void age_cuts(const Basis& basis);
  // `since_save`: every row was added after the last basis was saved, so no saved basis has
  // them and their coefficients need not be kept (the layout change itself is recorded).
  void delete_rows(std::vector<int> rows, bool since_save = false);
  Start restore_basis(const SavedBasis& saved);

  // branching.cpp: the branching decision and the children.
  bool choose_branch(const std::vector<double>& x, double node_obj, const Basis& basis, Branch& br);
  // `basis` is the node's optimal basis, restored after each child LP.
  void strong_branch(const std::vector<double>& x, const Basis& basis,
                     std::vector<Candidate>& cands);
  double pseudo_cost(int dir, int var) const;
  // Uses the reduced costs in d_, read right after the node's LP.
  void reduced_cost_tightening(double obj, const SavedBasis& basis, const std::vector<double>& lo,
                               const std::vector<double>& up, std::vector<BoundChange>& out);
  // The two children of `node` split by `br` at the LP point `x`, bounded by `obj`, with the
  // node's bound changes and the reduced-cost tightenings in `changes`, in the order to visit.
  void branch(const Node& node, double obj, const Branch& br, const std::vector<double>& x,
              std::vector<BoundChange> changes, const std::shared_ptr<const SavedBasis>& basis,
              std::vector<Node>& children);

  // heuristics.cpp: incumbents.
  // Rounds integers, clamps to bounds, evaluates; true (and a new incumbent) when feasible.
  bool consider(const std::vector<double>& x, const char* source);
  void snap(const std::vector<double>& x, std::vector<double>& out) const;
  double true_objective(const std::vector<double>& xs) const;
  // Rounding, fix-and-resolve and polishing at a node whose LP gave `x`; the LP is put back
  // to the node's state (`lo`, `up`, `saved`) for its children.
  void primal_heuristics(int depth, const std::vector<double>& x, const Branch& br, bool can_branch,
                         const std::vector<double>& lo, const std::vector<double>& up,
                         const SavedBasis& saved);
  void fix_and_resolve(const std::vector<double>& lo, const std::vector<double>& up,
                       const std::vector<double>& x);
  void polish(const std::vector<double>& x);
  void build_polish_lp();

  // rounds.cpp: the rounds of the search after the root, over one or more threads.
  // The search after the root: rounds until the open nodes or the budget run out.
  sdk::SolveResult rounds(std::vector<Node> root_children);
  // One worker's round: the slot's dive and batch in order, diving on the way, until the
  // slot's work or node allowance is spent, the nodes run out, or the time does.
  void run_slot(Slot& s);
  // Dives into the first child while the search has no incumbent or the node is close to the
  // best bound; the other children go to the slot's open nodes.
  void take_children(Slot& s, std::vector<Node>& children);
  std::int64_t lp_work() const {
    return lp_.iterations() + (polish_lp_ ? polish_lp_->iterations() : 0);
  }
  int thread_count() const;
  void start_helpers(std::vector<std::unique_ptr<Helper>>& helpers, int threads);
  // Worker 0's state into a helper before a round, and the helper's findings back after it
  // (pseudo-cost changes relative to `pc_snap_`). Returns true when the helper ran out of time
  // on its node (the node is back among the open ones).
  void sync(Search& h) const;
  bool merge(Search& h);

  const sdk::Model& model_;
  Prepared& P_;
  const sdk::SolveOptions& opt_;
  const BnbConfig& cfg_;
  GlpkSession& session_;
  Lp lp_;
  std::unique_ptr<Lp> polish_lp_;
  Clock::time_point start_ = Clock::now();
  int worker_ = 0;
  LogBuffer* log_sink_ = nullptr;

  std::vector<double> root_lo_, root_up_, cur_lo_, cur_up_;
  int mcc_first_ = 0;
  int cut_first_ = 0;
  // The LP's row layout changes when rows are deleted (cuts purged, a failed round undone);
  // appending rows keeps it. Entry L of `deleted_` made layout L + 1, so that the bases of
  // open nodes saved under older layouts can be carried over (`restore_basis`).
  struct DeletedRows {
    std::vector<int> at;          // increasing, numbered as in layout L
    std::vector<SparseRow> rows;  // as given, with their bounds
    std::vector<double> lo, up;
    std::size_t coefficients = 0;
  };
  std::uint64_t layout_ = 0;
  std::deque<DeletedRows> deleted_;  // the latest changes, up to kKeptCoefficients
  std::size_t kept_coefficients_ = 0;
  std::uint64_t deleted_first_ = 0;  // the layout that deleted_.front() changed
  WarmStarts warm_;
  // Buffers of `restore_basis`.
  Basis carried_;
  std::vector<SparseRow> back_rows_;
  std::vector<double> back_lo_, back_up_;
  std::vector<signed char> back_status_;
  std::int64_t cuts_ = 0;

  double inc_obj_ = kInfinity;
  std::vector<double> inc_x_;
  std::vector<Node> heap_;
  std::uint64_t seq_ = 0;
  std::int64_t nodes_ = 0;
  // Worker 0: the helpers' totals, as of the last round.
  std::int64_t other_nodes_ = 0, other_iterations_ = 0, other_cuts_ = 0, other_failed_lps_ = 0;
  WarmStarts other_warm_;
  std::vector<Node> round_;   // the open nodes handed out in a round
  std::vector<char> placed_;  // per node of round_: given to its owner already
  std::vector<double> pc_snap_[4];
  std::int64_t last_polish_ = -kPolishEvery;
  double fathom_bound_ = kInfinity;  // least bound among leaves closed by the bound test
  double unresolved_bound_ = kInfinity;
  bool root_unbounded_ = false;
  bool unresolved_ = false;  // some node could be neither solved nor split
  // Nodes whose LP failed (numerical failure, or unbounded below the root): reported once per
  // solve, since on badly scaled nonconvex models (Alkylation) they come by the hundred.
  std::int64_t failed_lps_ = 0;

  std::vector<double> pc_sum_[2], pc_cnt_[2];
  std::vector<Candidate> cands_;
  std::vector<int> cut_age_;  // per cut row (from cut_first_), see age_cuts
  std::vector<double> x_, d_, xs_, lo_buf_, up_buf_;
  std::vector<char> mark_;
  std::vector<std::vector<double>> offered_;
  Clock::time_point last_log_ = Clock::now();
};

/// Adds `coef` to the entry of `var` in `row`, appending the entry when `var` has none: the
/// terms of a row built from model terms that may repeat a variable.
inline void add_term(SparseRow& row, int var, double coef) {
  auto it = std::find(row.idx.begin(), row.idx.end(), var);
  if (it != row.idx.end()) {
    row.val[static_cast<std::size_t>(it - row.idx.begin())] += coef;
  } else {
    row.idx.push_back(var);
    row.val.push_back(coef);
  }
}

// Completes each start of `options` into a point over all of the model's variables: the given
// entries are fixed (integers rounded; a start outside a bound is skipped) and a short search
// over the copy fills in the rest (auxiliary variables, tree leaves, lifted products). Run
// before the main search because a GLPK session cannot be nested.
std::vector<std::vector<double>> complete_starts(const sdk::Model& model,
                                                 const sdk::SolveOptions& options,
                                                 const BnbConfig& config);

}  // namespace arbo::plugins::glpk::bnb
