// SPDX-License-Identifier: MIT
// The search after the root, in rounds: worker 0 hands the best open nodes out to itself and
// to its helper threads, each worker processes its share (diving on the way) until it has spent
// its simplex iterations, and worker 0 merges what the helpers found in worker order. Work is
// counted in iterations, not seconds, so the answer does not depend on timing
// (docs/decisions.md item 17); with one thread a round is one node.
#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "search.hpp"

namespace arbo::plugins::glpk::bnb {

namespace {

// With helper threads, a round gives every worker this many open nodes and this many nodes'
// worth of simplex iterations (at the average so far) before the workers meet again: one
// node per round left a worker idle whenever the other's node took longer.
constexpr std::size_t kRoundNodes = 8;

}  // namespace

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

sdk::SolveResult Search::rounds(std::vector<Node> root_children) {
  // Rounds. Every worker takes its dive and a batch of the best open nodes, processes them
  // (diving on the way) until it has spent its share of simplex iterations, and worker 0 then
  // merges the helpers' findings in worker order. Work is counted in iterations, not seconds,
  // so the answer does not depend on timing. With one thread a round is one node: the plain
  // best-bound search with plunging.
  const int threads = thread_count();
  std::vector<Slot> slots(static_cast<std::size_t>(threads));
  slots[0].outer_bound = open_bound();
  take_children(slots[0], root_children);
  for (Node& n : slots[0].open) push_open(std::move(n));
  slots[0].open.clear();
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

}  // namespace arbo::plugins::glpk::bnb
