// SPDX-License-Identifier: MIT
#include "bnb.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <arbo/sdk/error.hpp>

#include "lp.hpp"
#include "prepare.hpp"

namespace arbo::plugins::glpk {

namespace {

using sdk::kInfinity;
using Clock = std::chrono::steady_clock;

constexpr double kIntTol = 1e-6;
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
// Passes of bound propagation over the model's rows at each node of a model with products.
constexpr int kNodePropagationRounds = 3;
// Fix-and-resolve runs at the root and then every this many nodes.
constexpr std::int64_t kFixEvery = 50;
// Polishing (linearize-and-project onto the rows) runs at most once per this many nodes.
constexpr std::int64_t kPolishEvery = 8;
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
// With helper threads, a round gives every worker this many open nodes and this many nodes'
// worth of simplex iterations (at the average so far) before the workers meet again: one
// node per round left a worker idle whenever the other's node took longer.
constexpr std::size_t kRoundNodes = 8;

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

// The product rule for branching scores (Achterberg 2007): both children's bound gains count.
double product_score(double down_gain, double up_gain) {
  return std::max(down_gain, 1e-6) * std::max(up_gain, 1e-6);
}

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
  double gap_tol(double value) const {
    return std::max(opt_.absolute_gap, opt_.relative_gap * std::abs(value));
  }
  bool prunable(double bound) const {
    return std::isfinite(inc_obj_) && bound >= inc_obj_ - gap_tol(inc_obj_);
  }

  void init();
  void build_lp();
  bool node_bounds(const Node& node, std::vector<double>& lo, std::vector<double>& up) const;
  void load_bounds(const std::vector<double>& lo, const std::vector<double>& up);
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
  // Rounds integers, clamps to bounds, evaluates; true (and a new incumbent) when feasible.
  bool consider(const std::vector<double>& x, const char* source);
  void snap(const std::vector<double>& x, std::vector<double>& out) const;
  double true_objective(const std::vector<double>& xs) const;
  bool choose_branch(const std::vector<double>& x, double node_obj, const Basis& basis, Branch& br);
  // `basis` is the node's optimal basis, restored after each child LP.
  void strong_branch(const std::vector<double>& x, const Basis& basis,
                     std::vector<Candidate>& cands);
  void fix_and_resolve(const std::vector<double>& lo, const std::vector<double>& up,
                       const std::vector<double>& x);
  void polish(const std::vector<double>& x);
  void build_polish_lp();
  // Uses the reduced costs in d_, read right after the node's LP.
  void reduced_cost_tightening(double obj, const SavedBasis& basis, const std::vector<double>& lo,
                               const std::vector<double>& up, std::vector<BoundChange>& out);
  double pseudo_cost(int dir, int var) const;
  void process(Node& node, std::vector<Node>& children);
  double open_bound() const;
  void push_open(Node&& node) {
    heap_.push_back(std::move(node));
    std::push_heap(heap_.begin(), heap_.end(), WorseNode{});
  }
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
  sdk::SolveResult finish(bool limit, const std::string& note);

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

void Search::init() {
  root_lo_ = P_.lo;
  root_up_ = P_.up;
  for (auto* v : {&pc_sum_[0], &pc_sum_[1], &pc_cnt_[0], &pc_cnt_[1]}) {
    v->assign(static_cast<std::size_t>(P_.ncols), 0.0);
  }
  build_lp();
}

void Search::build_lp() {
  lp_.add_cols(root_lo_, root_up_, P_.cost);
  lp_.add_rows(P_.rows, P_.row_lo, P_.row_up);
  mcc_first_ = lp_.num_rows();
  std::vector<SparseRow> env;
  std::vector<double> elo, eup;
  SparseRow r[4];
  double l[4], u[4];
  for (const Product& p : P_.products) {
    const auto i = static_cast<std::size_t>(p.i), j = static_cast<std::size_t>(p.j);
    envelope(p, root_lo_[i], root_up_[i], root_lo_[j], root_up_[j], r, l, u);
    for (int k = 0; k < 4; ++k) {
      env.push_back(r[k]);
      elo.push_back(l[k]);
      eup.push_back(u[k]);
    }
  }
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
  for (const Product& p : P_.products) {
    const auto i = static_cast<std::size_t>(p.i), j = static_cast<std::size_t>(p.j);
    double plo = 0, pup = 0;
    product_bounds(lo[i], up[i], lo[j], up[j], p.i == p.j, plo, pup);
    const auto w = static_cast<std::size_t>(p.w);
    lo[w] = std::max(lo[w], plo);
    up[w] = std::min(up[w], pup);
  }
  for (std::size_t v = 0; v < lo.size(); ++v) {
    if (lo[v] > up[v]) {
      if (lo[v] - up[v] > 1e-9 * (1.0 + std::abs(lo[v]))) return false;
      up[v] = lo[v];
    }
  }
  return true;
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
  SparseRow r[4];
  double l[4], u[4];
  for (int p : touched) {
    const Product& pr = P_.products[static_cast<std::size_t>(p)];
    const auto i = static_cast<std::size_t>(pr.i), j = static_cast<std::size_t>(pr.j);
    envelope(pr, lo[i], up[i], lo[j], up[j], r, l, u);
    for (int k = 0; k < 4; ++k) {
      which.push_back(mcc_first_ + 4 * p + k);
      rows.push_back(r[k]);
      rlo.push_back(l[k]);
      rup.push_back(u[k]);
    }
  }
  lp_.set_rows(which, rows, rlo, rup);
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
    for (std::size_t k = 0; k < c.lin_idx.size(); ++k) {
      auto it = std::find(row.idx.begin(), row.idx.end(), c.lin_idx[k]);
      if (it != row.idx.end()) {
        row.val[static_cast<std::size_t>(it - row.idx.begin())] += c.lin_val[k];
      } else {
        row.idx.push_back(c.lin_idx[k]);
        row.val.push_back(c.lin_val[k]);
      }
    }
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

void Search::snap(const std::vector<double>& x, std::vector<double>& out) const {
  const auto& vars = model_.variables();
  out.resize(vars.size());
  for (std::size_t j = 0; j < vars.size(); ++j) {
    double v = x[j];
    if (P_.integer[j]) v = std::round(v);
    out[j] = std::clamp(v, vars[j].lower, vars[j].upper);
  }
}

double Search::true_objective(const std::vector<double>& xs) const {
  double z = P_.cost_const;
  for (const auto& t : model_.objective().linear)
    z += P_.sense * t.coef * xs[static_cast<std::size_t>(t.var)];
  for (const auto& t : model_.objective().quad) {
    z += P_.sense * t.coef * xs[static_cast<std::size_t>(t.var1)] *
         xs[static_cast<std::size_t>(t.var2)];
  }
  return z;
}

bool Search::consider(const std::vector<double>& x, const char* source) {
  std::vector<double> xs;
  snap(x, xs);
  const sdk::ModelEvaluation ev = model_.evaluate(xs);
  if (ev.max_violation() > opt_.feasibility_tolerance) return false;
  const double z = P_.sense * ev.objective;
  if (z < inc_obj_) {
    inc_obj_ = z;
    inc_x_ = std::move(xs);
    log(sdk::LogLevel::Debug, "glpk_bnb: incumbent {:.10g} from {} after {} nodes ({:.3f} s)",
        P_.sense * z, source, nodes_, elapsed());
  }
  return true;
}

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

void Search::fix_and_resolve(const std::vector<double>& lo, const std::vector<double>& up,
                             const std::vector<double>& x) {
  std::vector<double> flo = lo, fup = up;
  bool any = false;
  for (int j = 0; j < P_.n_orig; ++j) {
    const auto k = static_cast<std::size_t>(j);
    if (!P_.integer[k]) continue;
    const double v = std::clamp(std::round(x[k]), lo[k], up[k]);
    flo[k] = fup[k] = v;
    any = true;
  }
  if (!any) return;
  for (const Product& p : P_.products) {
    const auto i = static_cast<std::size_t>(p.i), j = static_cast<std::size_t>(p.j);
    double plo = 0, pup = 0;
    product_bounds(flo[i], fup[i], flo[j], fup[j], p.i == p.j, plo, pup);
    const auto w = static_cast<std::size_t>(p.w);
    flo[w] = std::max(lo[w], plo);
    fup[w] = std::min(up[w], pup);
    if (flo[w] > fup[w]) return;
  }
  load_bounds(flo, fup);
  double obj = 0;
  const LpStatus st = solve_relaxation(false, obj);
  if (st == LpStatus::Optimal) {
    const std::vector<double> xf = x_;
    if (!consider(xf, "fix-and-resolve") && !P_.products.empty()) polish(xf);
  }
}

void Search::build_polish_lp() {
  polish_lp_ = std::make_unique<Lp>(session_);
  const int n = P_.n_orig;
  std::vector<double> lo(static_cast<std::size_t>(n)), up(static_cast<std::size_t>(n)),
      cost(static_cast<std::size_t>(n), 0.0);
  for (int j = 0; j < n; ++j) {
    lo[static_cast<std::size_t>(j)] = root_lo_[static_cast<std::size_t>(j)];
    up[static_cast<std::size_t>(j)] = root_up_[static_cast<std::size_t>(j)];
  }
  polish_lp_->add_cols(lo, up, cost);
  // Deviation pairs x_j - p_j + m_j = anchor_j, weighted by the variable's scale.
  std::vector<double> dlo(2 * static_cast<std::size_t>(n), 0.0),
      dup(2 * static_cast<std::size_t>(n), kInfinity), dcost(2 * static_cast<std::size_t>(n));
  for (int j = 0; j < n; ++j) {
    const auto k = static_cast<std::size_t>(j);
    const double w = root_up_[k] - root_lo_[k];
    const double c = std::isfinite(w) && w > 0 ? 1.0 / w : 1.0;
    dcost[2 * k] = dcost[2 * k + 1] = c;
  }
  polish_lp_->add_cols(dlo, dup, dcost);
  std::vector<SparseRow> rows;
  std::vector<double> rlo, rup;
  for (const auto& r : model_.linear_rows()) {
    SparseRow row;
    for (const auto& t : r.terms) {
      auto it = std::find(row.idx.begin(), row.idx.end(), t.var);
      if (it != row.idx.end()) {
        row.val[static_cast<std::size_t>(it - row.idx.begin())] += t.coef;
      } else {
        row.idx.push_back(t.var);
        row.val.push_back(t.coef);
      }
    }
    double l = -kInfinity, u = kInfinity;
    if (r.sense != sdk::RowSense::LessEqual) l = r.rhs;
    if (r.sense != sdk::RowSense::GreaterEqual) u = r.rhs;
    if (!std::isfinite(l) && !std::isfinite(u)) continue;
    rows.push_back(std::move(row));
    rlo.push_back(l);
    rup.push_back(u);
  }
  // Placeholders for the linearized quadratic rows and the deviation rows; set per call.
  const std::size_t nq = model_.quadratic_rows().size();
  rows.resize(rows.size() + nq + static_cast<std::size_t>(n));
  rlo.resize(rows.size(), -kInfinity);
  rup.resize(rows.size(), kInfinity);
  polish_lp_->add_rows(rows, rlo, rup);
}

void Search::polish(const std::vector<double>& x) {
  // Newton-like projection: linearize every quadratic row at the current point, move to the
  // nearest point (weighted L1) of the linearization, repeat. From a relaxation point that is
  // nearly feasible this converges to a feasible point next to it in a few steps.
  last_polish_ = nodes_;
  if (!polish_lp_) build_polish_lp();
  const auto& qrows = model_.quadratic_rows();
  const int n = P_.n_orig;
  const int first_q = polish_lp_->num_rows() - static_cast<int>(qrows.size()) - n;
  std::vector<double> xk(x.begin(), x.begin() + n);
  for (int j = 0; j < n; ++j) {
    const auto k = static_cast<std::size_t>(j);
    xk[k] = std::clamp(P_.integer[k] ? std::round(xk[k]) : xk[k], root_lo_[k], root_up_[k]);
  }
  {
    // Integers stay where the relaxation put them.
    std::vector<int> which;
    std::vector<double> lo, up;
    for (int j = 0; j < n; ++j) {
      const auto k = static_cast<std::size_t>(j);
      which.push_back(j);
      lo.push_back(P_.integer[k] ? xk[k] : root_lo_[k]);
      up.push_back(P_.integer[k] ? xk[k] : root_up_[k]);
    }
    polish_lp_->set_col_bounds(which, lo, up);
  }
  std::vector<int> which;
  std::vector<SparseRow> rows;
  std::vector<double> rlo, rup, sol;
  for (int iter = 0; iter < 12; ++iter) {
    which.clear();
    rows.clear();
    rlo.clear();
    rup.clear();
    for (std::size_t r = 0; r < qrows.size(); ++r) {
      const auto& q = qrows[r];
      std::vector<std::pair<int, double>> g;
      auto add = [&](int v, double c) {
        for (auto& e : g) {
          if (e.first == v) {
            e.second += c;
            return;
          }
        }
        g.emplace_back(v, c);
      };
      double value = 0.0, grad_dot_x = 0.0;
      for (const auto& t : q.linear) {
        add(t.var, t.coef);
        value += t.coef * xk[static_cast<std::size_t>(t.var)];
      }
      for (const auto& t : q.quad) {
        const double a = xk[static_cast<std::size_t>(t.var1)],
                     b = xk[static_cast<std::size_t>(t.var2)];
        value += t.coef * a * b;
        add(t.var1, t.coef * b);
        add(t.var2, t.coef * a);
      }
      SparseRow row;
      for (const auto& [v, c] : g) {
        if (c == 0.0) continue;
        row.idx.push_back(v);
        row.val.push_back(c);
        grad_dot_x += c * xk[static_cast<std::size_t>(v)];
      }
      // q(x) ~ value + grad'(y - x): the row becomes grad'y (sense) rhs - value + grad'x.
      const double shift = -value + grad_dot_x;
      double l = -kInfinity, u = kInfinity;
      if (q.sense != sdk::RowSense::LessEqual) l = q.rhs + shift;
      if (q.sense != sdk::RowSense::GreaterEqual) u = q.rhs + shift;
      which.push_back(first_q + static_cast<int>(r));
      rows.push_back(std::move(row));
      rlo.push_back(l);
      rup.push_back(u);
    }
    for (int j = 0; j < n; ++j) {
      which.push_back(first_q + static_cast<int>(qrows.size()) + j);
      SparseRow row;
      row.idx = {j, n + 2 * j, n + 2 * j + 1};
      row.val = {1.0, -1.0, 1.0};
      rows.push_back(std::move(row));
      rlo.push_back(xk[static_cast<std::size_t>(j)]);
      rup.push_back(xk[static_cast<std::size_t>(j)]);
    }
    polish_lp_->set_rows(which, rows, rlo, rup);
    if (polish_lp_->solve(ms_left()) != LpStatus::Optimal) return;
    polish_lp_->primal(sol);
    for (int j = 0; j < n; ++j) xk[static_cast<std::size_t>(j)] = sol[static_cast<std::size_t>(j)];
    if (consider(xk, "polishing")) return;
  }
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
  const bool can_branch = choose_branch(x, obj, saved->basis, br);
  // Primal heuristics, then the LP is put back to this node's state for the children.
  bool moved = false;
  if (br.integer && br.frac > 0) {
    std::vector<double> xr = x;
    for (int j = 0; j < P_.n_orig; ++j) {
      if (P_.integer[static_cast<std::size_t>(j)])
        xr[static_cast<std::size_t>(j)] = std::round(xr[static_cast<std::size_t>(j)]);
    }
    consider(xr, "rounding");
  }
  const bool has_ints = std::any_of(P_.integer.begin(), P_.integer.begin() + P_.n_orig,
                                    [](char c) { return c != 0; });
  if (has_ints && (node.depth == 0 || nodes_ % kFixEvery == 0) && can_branch) {
    fix_and_resolve(lo, up, x);
    moved = true;
  }
  if (can_branch && !br.integer && !P_.products.empty() && nodes_ - last_polish_ >= kPolishEvery) {
    polish(x);
  }
  if (moved) {
    load_bounds(lo, up);
    restore_basis(*saved);  // fix-and-resolve may have undone a failed cut round: new layout
  }
  if (prunable(obj)) {
    fathom_bound_ = std::min(fathom_bound_, obj);
    return;
  }
  if (!can_branch) {
    // Nothing left to split: the point is feasible within tolerance (and was offered as an
    // incumbent) or numerically unresolvable; either way the bound stays on record.
    snap(x, xs_);
    const sdk::ModelEvaluation ev = model_.evaluate(xs_);
    if (ev.max_violation() <= opt_.feasibility_tolerance) {
      fathom_bound_ = std::min(fathom_bound_, obj);
    } else {
      unresolved_bound_ = std::min(unresolved_bound_, obj);
      unresolved_ = true;
      log(sdk::LogLevel::Debug,
          "glpk_bnb: node at depth {} cannot be split further (violations: rows {:.3g}, bounds "
          "{:.3g}, integrality {:.3g})",
          node.depth, ev.max_row_violation, ev.max_bound_violation, ev.max_integrality_violation);
    }
    return;
  }

  std::vector<BoundChange> tightened = node.changes;
  // Reduced costs bound the LP value itself, not the inherited bound.
  reduced_cost_tightening(lp_obj, *saved, lo, up, tightened);
  const auto v = static_cast<std::size_t>(br.var);
  Node down, upn;
  down.bound = upn.bound = obj;
  down.depth = upn.depth = node.depth + 1;
  down.basis = upn.basis = saved;
  down.changes = tightened;
  upn.changes = std::move(tightened);
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
    res.gap = diff == 0.0 ? 0.0 : diff / std::max(std::abs(inc_obj_), 1e-10);
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

// A helper thread of a parallel search. GLPK's environment is per thread, so the helper's
// session, LP and Search are created, used and destroyed inside its thread; worker 0 reads and
// writes the Search's plain data only between tasks, and the hand-over through the mutex orders
// those accesses.
class Helper {
 public:
  Helper(const sdk::Model& model, Prepared& prep, const sdk::SolveOptions& options,
         const BnbConfig& config, int worker)
      : thread_([this, &model, &prep, &options, &config, worker] {
          loop(model, prep, options, config, worker);
        }) {}
  ~Helper() {
    {
      std::lock_guard<std::mutex> lk(m_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  Helper(const Helper&) = delete;
  Helper& operator=(const Helper&) = delete;

  // Runs `task` on the helper's Search in its thread; `wait` collects it.
  void post(std::function<void(Search&)> task) {
    {
      std::lock_guard<std::mutex> lk(m_);
      task_ = std::move(task);
      pending_ = true;
    }
    cv_.notify_all();
  }
  // Waits for the set-up and the posted task; rethrows what either threw.
  void wait() {
    std::unique_lock<std::mutex> lk(m_);
    cv_.wait(lk, [this] { return ready_ && !pending_; });
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  }
  // Valid after a `wait` that did not throw.
  Search& search() { return *search_; }
  // Messages of the helper's search and of its GLPK session, for worker 0 to pass on.
  LogBuffer& logs() { return logs_; }

 private:
  void loop(const sdk::Model& model, Prepared& prep, const sdk::SolveOptions& options,
            const BnbConfig& config, int worker) {
    std::optional<GlpkSession> session;
    std::optional<Search> search;
    std::exception_ptr error;
    try {
      session.emplace(
          [this](std::string_view line) {
            logs_.emplace_back(sdk::LogLevel::Debug, fmt::format("glpk: {}", line));
          },
          /*exclusive=*/false);
      search.emplace(model, prep, options, config, *session, worker, &logs_);
    } catch (...) {
      error = std::current_exception();
    }
    {
      std::lock_guard<std::mutex> lk(m_);
      search_ = search ? &*search : nullptr;
      error_ = error;
      ready_ = true;
    }
    cv_.notify_all();
    for (;;) {
      std::function<void(Search&)> task;
      {
        std::unique_lock<std::mutex> lk(m_);
        cv_.wait(lk, [this] { return pending_ || stop_; });
        if (!pending_) break;
        task = std::move(task_);
      }
      std::exception_ptr failed;
      try {
        if (search_ != nullptr) task(*search_);
      } catch (...) {
        failed = std::current_exception();
      }
      {
        std::lock_guard<std::mutex> lk(m_);
        if (failed) error_ = failed;
        pending_ = false;
      }
      cv_.notify_all();
    }
    // In this thread, and the LP before the session that frees GLPK's environment.
    search.reset();
    session.reset();
  }

  std::mutex m_;
  std::condition_variable cv_;
  std::function<void(Search&)> task_;
  bool pending_ = false, ready_ = false, stop_ = false;
  std::exception_ptr error_;
  Search* search_ = nullptr;
  LogBuffer logs_;
  std::thread thread_;  // last: the thread starts once every other member exists
};

int Search::thread_count() const {
  if (cfg_.threads <= 1 || !GlpkSession::thread_local_environments()) return 1;
  return std::min(cfg_.threads, 64);
}

void Search::start_helpers(std::vector<std::unique_ptr<Helper>>& helpers, int threads) {
  // Every helper starts from the root's LP: the model, the envelopes and the root's cuts, and
  // the root's basis as a warm start.
  auto cuts = std::make_shared<std::vector<SparseRow>>();
  auto lo = std::make_shared<std::vector<double>>(), up = std::make_shared<std::vector<double>>();
  std::vector<int> which(static_cast<std::size_t>(lp_.num_rows() - cut_first_));
  std::iota(which.begin(), which.end(), cut_first_);
  lp_.get_rows(which, *cuts, *lo, *up);
  auto basis = std::make_shared<Basis>(lp_.basis());
  const Clock::time_point start = start_;
  for (int w = 1; w < threads; ++w) {
    helpers.push_back(std::make_unique<Helper>(model_, P_, opt_, cfg_, w));
    helpers.back()->post([=](Search& h) {
      h.start_ = start;
      h.init();
      h.lp_.add_rows(*cuts, *lo, *up);
      h.cut_age_.assign(cuts->size(), 0);
      if (h.lp_.num_rows() == static_cast<int>(basis->rows.size())) h.lp_.set_basis(*basis);
    });
  }
  for (auto& h : helpers) h->wait();
}

void Search::sync(Search& h) const {
  if (h.inc_obj_ != inc_obj_) {
    h.inc_obj_ = inc_obj_;
    h.inc_x_ = inc_x_;
  }
  for (int d = 0; d < 2; ++d) {
    h.pc_sum_[d] = pc_sum_[d];
    h.pc_cnt_[d] = pc_cnt_[d];
  }
}

bool Search::merge(Search& h) {
  // Ties keep the incumbent already there, so the answer does not depend on timing.
  if (h.inc_obj_ < inc_obj_) {
    inc_obj_ = h.inc_obj_;
    inc_x_ = h.inc_x_;
  }
  for (int d = 0; d < 2; ++d) {
    std::vector<double>* ours[2] = {&pc_sum_[d], &pc_cnt_[d]};
    const std::vector<double>* theirs[2] = {&h.pc_sum_[d], &h.pc_cnt_[d]};
    for (int k = 0; k < 2; ++k) {
      const std::vector<double>& snap = pc_snap_[2 * d + k];
      for (std::size_t j = 0; j < snap.size(); ++j) (*ours[k])[j] += (*theirs[k])[j] - snap[j];
    }
  }
  fathom_bound_ = std::min(fathom_bound_, h.fathom_bound_);
  unresolved_bound_ = std::min(unresolved_bound_, h.unresolved_bound_);
  unresolved_ = unresolved_ || h.unresolved_;
  const bool requeued = !h.heap_.empty();
  for (Node& n : h.heap_) push_open(std::move(n));
  h.heap_.clear();
  return requeued;
}

void Search::take_children(Slot& s, std::vector<Node>& children) {
  if (children.empty()) return;
  const double parent_obj = children.front().bound;
  bool dive = !std::isfinite(inc_obj_);
  if (!dive) {
    double best = std::min({s.outer_bound, fathom_bound_, unresolved_bound_, parent_obj});
    for (std::size_t k = s.next; k < s.batch.size(); ++k) best = std::min(best, s.batch[k].bound);
    dive = parent_obj - best <= 0.5 * (inc_obj_ - best);
  }
  std::size_t first = 0;
  if (dive) {
    s.plunge = std::move(children[0]);
    first = 1;
  }
  for (std::size_t k = first; k < children.size(); ++k) s.open.push_back(std::move(children[k]));
  children.clear();
}

void Search::run_slot(Slot& s) {
  const std::int64_t work_start = lp_work(), nodes_start = nodes_;
  std::vector<Node> children;
  for (;;) {
    Node node;
    if (s.plunge) {
      node = std::move(*s.plunge);
      s.plunge.reset();
    } else if (s.next < s.batch.size()) {
      node = std::move(s.batch[s.next++]);
    } else {
      return;
    }
    if (prunable(node.bound)) {
      fathom_bound_ = std::min(fathom_bound_, node.bound);
      continue;
    }
    if (elapsed() >= opt_.time_limit_seconds) {
      push_open(std::move(node));  // back to the open nodes, and the search ends
      return;
    }
    const std::size_t open_before = heap_.size();
    process(node, children);
    if (heap_.size() > open_before) return;  // the node ran out of time and went back
    purge_cuts();
    take_children(s, children);
    if (lp_work() - work_start >= s.work || nodes_ - nodes_start >= s.node_allowance) return;
  }
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

  // Rounds. Every worker takes its dive and a batch of the best open nodes, processes them
  // (diving on the way) until it has spent its share of simplex iterations, and worker 0 then
  // merges the helpers' findings in worker order. Work is counted in iterations, not seconds,
  // so the answer does not depend on timing. With one thread a round is one node: the plain
  // best-bound search with plunging.
  const int threads = thread_count();
  std::vector<Slot> slots(static_cast<std::size_t>(threads));
  {
    std::vector<Node> root_children = std::move(children);
    slots[0].outer_bound = open_bound();
    take_children(slots[0], root_children);
    for (Node& n : slots[0].open) push_open(std::move(n));
    slots[0].open.clear();
  }
  std::vector<std::unique_ptr<Helper>> helpers;  // after `slots`: joined before they go
  bool limit = false;
  for (;;) {
    // Hand out the open nodes best-first, one to each worker in turn; while few are open (a
    // young or narrow tree), rounds are short so that the children reach the idle workers.
    const std::size_t batch =
        threads == 1 ? 1
                     : std::clamp<std::size_t>(heap_.size() / static_cast<std::size_t>(threads), 1,
                                               kRoundNodes);
    std::size_t room = 0;
    for (Slot& s : slots) {
      s.batch.clear();
      s.next = 0;
      room += batch - (s.plunge ? 1 : 0);
    }
    round_.clear();
    while (round_.size() < room && !heap_.empty()) {
      std::pop_heap(heap_.begin(), heap_.end(), WorseNode{});
      Node n = std::move(heap_.back());
      heap_.pop_back();
      if (prunable(n.bound)) {
        fathom_bound_ = std::min(fathom_bound_, n.bound);
        continue;
      }
      round_.push_back(std::move(n));
    }
    // Each node goes to the worker whose LP its parent's basis belongs to, where there is room:
    // elsewhere it would start from another node's basis (about three times the simplex
    // iterations). The rest fill the remaining room in turn.
    auto has_room = [&](const Slot& s) { return s.batch.size() + (s.plunge ? 1 : 0) < batch; };
    placed_.assign(round_.size(), 0);
    for (std::size_t k = 0; k < round_.size(); ++k) {
      const Node& n = round_[k];
      if (!n.basis) continue;
      Slot& owner = slots[static_cast<std::size_t>(n.basis->worker)];
      if (!has_room(owner)) continue;
      owner.batch.push_back(std::move(round_[k]));
      placed_[k] = 1;
    }
    std::size_t turn = 0;
    for (std::size_t k = 0; k < round_.size(); ++k) {
      if (placed_[k]) continue;
      while (!has_room(slots[turn])) turn = (turn + 1) % slots.size();
      slots[turn].batch.push_back(std::move(round_[k]));
      turn = (turn + 1) % slots.size();
    }
    for (Slot& s : slots) std::sort(s.batch.begin(), s.batch.end(), BetterNode{});
    int active = 0;
    for (const Slot& s : slots) active += s.active() ? 1 : 0;
    if (active == 0) break;
    if (out_of_budget()) {
      for (Slot& s : slots) {
        if (s.plunge) push_open(std::move(*s.plunge));
        s.plunge.reset();
        for (Node& n : s.batch) push_open(std::move(n));
        s.batch.clear();
      }
      limit = true;
      break;
    }
    // Each slot's dive rule sees the open nodes outside it: the heap and the other batches.
    const double heap_bound = open_bound();
    const std::int64_t nodes_done = nodes_ + other_nodes_;
    const std::int64_t avg_work =
        (lp_work() + other_iterations_) / std::max<std::int64_t>(1, nodes_done);
    const std::int64_t allowance =
        opt_.node_limit >= 0
            ? std::max<std::int64_t>(1, (opt_.node_limit - nodes_done + threads - 1) / threads)
            : std::numeric_limits<std::int64_t>::max();
    for (std::size_t w = 0; w < slots.size(); ++w) {
      Slot& s = slots[w];
      s.outer_bound = heap_bound;
      for (std::size_t v = 0; v < slots.size(); ++v) {
        if (v == w) continue;
        for (const Node& n : slots[v].batch) s.outer_bound = std::min(s.outer_bound, n.bound);
        if (slots[v].plunge) s.outer_bound = std::min(s.outer_bound, slots[v].plunge->bound);
      }
      s.work = threads == 1 ? 0 : static_cast<std::int64_t>(batch) * avg_work;
      s.node_allowance = allowance;
    }
    // Helpers start with the first round that has work for two.
    if (active > 1 && helpers.empty()) start_helpers(helpers, threads);
    std::vector<char> posted(slots.size(), 0);
    for (std::size_t w = 1; w < slots.size(); ++w) {
      if (!slots[w].active()) continue;
      Helper& h = *helpers[w - 1];
      sync(h.search());
      Slot& s = slots[w];
      h.post([&s](Search& hs) { hs.run_slot(s); });
      posted[w] = 1;
    }
    // The pseudo-costs the helpers started from (worker 0 has not run yet), for `merge`.
    if (std::find(posted.begin(), posted.end(), 1) != posted.end()) {
      for (int d = 0; d < 2; ++d) {
        pc_snap_[2 * d] = pc_sum_[d];
        pc_snap_[2 * d + 1] = pc_cnt_[d];
      }
    }
    std::exception_ptr error;
    const std::size_t open_before = heap_.size();
    try {
      if (slots[0].active()) run_slot(slots[0]);
    } catch (...) {
      error = std::current_exception();
    }
    bool requeued = heap_.size() > open_before;  // worker 0 ran out of time
    for (std::size_t w = 1; w < slots.size(); ++w) {
      if (!posted[w]) continue;
      try {
        helpers[w - 1]->wait();
      } catch (...) {
        if (!error) error = std::current_exception();
      }
    }
    for (auto& h : helpers) {
      for (auto& [level, text] : h->logs()) {
        if (cfg_.log) cfg_.log(level, text);
      }
      h->logs().clear();
    }
    if (error) std::rethrow_exception(error);
    if (!helpers.empty()) {
      other_nodes_ = other_iterations_ = other_cuts_ = other_failed_lps_ = 0;
      other_warm_ = {};
      for (std::size_t w = 1; w < slots.size(); ++w) {
        Search& hs = helpers[w - 1]->search();
        if (posted[w] && merge(hs)) requeued = true;
        other_nodes_ += hs.nodes_;
        other_iterations_ += hs.lp_work();
        other_cuts_ += hs.cuts_;
        other_failed_lps_ += hs.failed_lps_;
        other_warm_ += hs.warm_;
      }
    }
    // What the workers left open: their children, and the batch they did not reach.
    for (Slot& s : slots) {
      for (Node& n : s.open) push_open(std::move(n));
      s.open.clear();
      for (std::size_t k = s.next; k < s.batch.size(); ++k) push_open(std::move(s.batch[k]));
      s.batch.clear();
    }
    if (requeued) {
      for (Slot& s : slots) {
        if (s.plunge) push_open(std::move(*s.plunge));
        s.plunge.reset();
      }
      limit = true;
      break;
    }
    if (std::chrono::duration<double>(Clock::now() - last_log_).count() > 5.0) {
      last_log_ = Clock::now();
      log(sdk::LogLevel::Debug, "glpk_bnb: {} nodes, {} open, bound {:.10g}, incumbent {:.10g}",
          nodes_ + other_nodes_, heap_.size(), P_.sense * open_bound(), P_.sense * inc_obj_);
    }
  }
  for (Slot& s : slots) {
    if (s.plunge) push_open(std::move(*s.plunge));
  }
  return finish(limit, "");
}

void check_options(const sdk::SolveOptions& o) {
  auto bad = [](const std::string& what) { throw sdk::InvalidArgument("glpk_bnb: " + what); };
  if (!(o.absolute_gap >= 0.0))
    bad(fmt::format("absolute_gap must be >= 0, got {}", o.absolute_gap));
  if (!(o.relative_gap >= 0.0))
    bad(fmt::format("relative_gap must be >= 0, got {}", o.relative_gap));
  if (!(o.feasibility_tolerance > 0.0) || !std::isfinite(o.feasibility_tolerance)) {
    bad(fmt::format("feasibility_tolerance must be finite and > 0, got {}",
                    o.feasibility_tolerance));
  }
  if (!(o.time_limit_seconds > 0.0)) {
    bad(fmt::format("time_limit_seconds must be > 0, got {}", o.time_limit_seconds));
  }
  if (o.node_limit < -1) bad(fmt::format("node_limit must be >= -1, got {}", o.node_limit));
}

// Starts get at most this share of the time limit, and each completion this many nodes.
constexpr double kStartTimeShare = 0.1;
constexpr std::int64_t kStartNodes = 100;

// Completes each start of `options` into a point over all of the model's variables: the given
// entries are fixed (integers rounded; a start outside a bound is skipped) and a short search
// over the copy fills in the rest (auxiliary variables, tree leaves, lifted products). Run
// before the main search because a GLPK session cannot be nested.
std::vector<std::vector<double>> complete_starts(const sdk::Model& model,
                                                 const sdk::SolveOptions& options,
                                                 const BnbConfig& config) {
  std::vector<std::vector<double>> out;
  if (options.starts.empty()) return out;
  const auto start = Clock::now();
  const double budget = kStartTimeShare * options.time_limit_seconds;
  // 100-node searches: a helper thread would cost more to start than it saves.
  BnbConfig single = config;
  single.threads = 1;
  const double tol = options.feasibility_tolerance;
  for (std::size_t k = 0; k < options.starts.size(); ++k) {
    const std::vector<double>& s = options.starts[k];
    if (s.size() != model.num_variables()) {
      throw sdk::InvalidArgument(
          fmt::format("glpk_bnb: start {} has {} entries, the model has {} variables", k, s.size(),
                      model.num_variables()));
    }
    const double left = budget - std::chrono::duration<double>(Clock::now() - start).count();
    if (left <= 0) break;
    sdk::Model fixed = model;
    bool inside = true;
    for (std::size_t j = 0; j < s.size() && inside; ++j) {
      if (std::isnan(s[j])) continue;
      sdk::Variable& v = fixed.variable(static_cast<int>(j));
      const double x = v.type == sdk::VarType::Continuous ? s[j] : std::round(s[j]);
      inside = x >= v.lower - tol && x <= v.upper + tol;
      v.lower = v.upper = std::clamp(x, v.lower, v.upper);
    }
    if (!inside) continue;
    sdk::SolveOptions sub = options;
    sub.starts.clear();
    sub.time_limit_seconds = left;
    sub.node_limit = kStartNodes;
    const sdk::SolveResult r = solve_model(fixed, sub, single);
    if (!r.x.empty()) out.push_back(r.x);
  }
  return out;
}

}  // namespace

sdk::SolveResult solve_model(const sdk::Model& model, const sdk::SolveOptions& options,
                             const BnbConfig& config) {
  check_options(options);
  const auto start = Clock::now();
  const bool pure_milp = model.is_linear() && model.has_integers();
  if (pure_milp && config.milp_method == MilpMethod::Intopt) {
    return solve_milp_intopt(model, options, config);
  }
  const std::vector<std::vector<double>> completed = complete_starts(model, options, config);
  Prepared prep = prepare(model);
  if (prep.infeasible) {
    sdk::SolveResult res;
    res.status = sdk::SolveStatus::Infeasible;
    res.objective = prep.sense > 0 ? kInfinity : -kInfinity;
    res.best_bound = res.objective;
    res.message = "infeasible: " + prep.infeasible_reason;
    res.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return res;
  }
  GlpkSession session([&config](std::string_view line) {
    if (config.log) config.log(sdk::LogLevel::Debug, fmt::format("glpk: {}", line));
  });
  sdk::SolveOptions main = options;
  const double spent = std::chrono::duration<double>(Clock::now() - start).count();
  if (!options.starts.empty() && config.log) {
    config.log(sdk::LogLevel::Debug, fmt::format("glpk_bnb: {} of {} starts completed in {:.3f} s",
                                                 completed.size(), options.starts.size(), spent));
  }
  main.time_limit_seconds = std::max(options.time_limit_seconds - spent, 1e-3);
  Search search(model, prep, main, config, session);
  for (const auto& x : completed) search.offer(x);
  sdk::SolveResult res = search.run();
  res.seconds += spent;
  return res;
}

}  // namespace arbo::plugins::glpk
