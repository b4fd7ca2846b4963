// SPDX-License-Identifier: MIT
#include "arbo/kernel/study.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <functional>
#include <limits>
#include <list>
#include <map>
#include <mutex>
#include <thread>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "arbo/kernel/context.hpp"
#include "arbo/kernel/errors.hpp"
#include "arbo/kernel/guarded_call.hpp"
#include "arbo/kernel/problem_loader.hpp"
#include "arbo/kernel/random_streams.hpp"
#include "arbo/sdk/capabilities/surrogate.hpp"
#include "arbo/sdk/error.hpp"
#include "engine/augmentation.hpp"
#include "engine/components.hpp"
#include "engine/dataset_buffer.hpp"
#include "engine/proposer.hpp"
#include "util/clock.hpp"
#include "util/test_hook.hpp"

#ifndef ARBO_VERSION
#define ARBO_VERSION "0.0.0"
#endif

namespace arbo::kernel {

namespace fs = std::filesystem;

const char* to_string(Termination t) noexcept {
  switch (t) {
    case Termination::BudgetReached: return "budget reached";
    case Termination::TimeLimit: return "time limit reached";
    case Termination::Interrupted: return "interrupted";
    case Termination::Exhausted: return "every point has been evaluated";
  }
  return "unknown";
}

std::string params_to_json(const sdk::Space& space, const Eigen::VectorXd& x) {
  const auto values = space.decode(x);
  nlohmann::json j = nlohmann::json::object();
  for (std::size_t i = 0; i < space.size(); ++i) {
    std::visit(
        [&](const auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (!std::is_same_v<T, std::monostate>) j[space[i].name] = v;
        },
        values[i]);
  }
  return j.dump();
}

ComponentLookup lookup_from(const PluginRegistry& registry) {
  ComponentLookup lookup;
  lookup.find = [&registry](sdk::Kind kind, std::string_view name) -> const sdk::ComponentInfo* {
    const ComponentEntry* e = registry.find(kind, name);
    return e ? &e->info : nullptr;
  };
  lookup.names = [&registry](sdk::Kind kind) { return registry.names(kind); };
  return lookup;
}

Eigen::VectorXd encode_user_point(const sdk::Space& space, const std::vector<sdk::Value>& values) {
  Eigen::VectorXd x = space.encode(values);
  for (std::size_t i = 0; i < space.size(); ++i) {
    if (std::holds_alternative<std::monostate>(values[i]) && space.is_active(x, i)) {
      throw sdk::InvalidArgument(
          fmt::format("parameter '{}' is missing (it is active at this point)", space[i].name));
    }
  }
  return x;
}

namespace {

// encode_user_point for the study's calls: an invalid point is a configuration error (exit 3)
// prefixed by the call.
Eigen::VectorXd encode_point_for(const sdk::Space& space, const std::vector<sdk::Value>& values,
                                 const std::string& where) {
  try {
    return encode_user_point(space, values);
  } catch (const sdk::InvalidArgument& e) {
    throw ConfigError(fmt::format("{}: {}", where, e.what()));
  }
}

// The study's log, dir/arbo.log. One that cannot be opened (a directory in its place, no
// permission) is a study error, exit 5, not an internal one.
std::shared_ptr<spdlog::logger> open_study_log(const fs::path& dir, bool verbose) {
  try {
    return make_logger("arbo", (dir / "arbo.log").string(), verbose);
  } catch (const spdlog::spdlog_ex& e) {
    throw StudyError(fmt::format("study {}: cannot open its log: {}", dir.string(), e.what()));
  }
}

}  // namespace

struct Study::Impl {
  // Held from before the study is read until after the store is closed (declared first, so
  // destroyed last): the one driver of the study.
  std::unique_ptr<StudyLock> lock;  // null when read_only
  bool read_only = false;
  fs::path dir;
  StudyStore store;
  Pipeline pipeline;
  const PluginRegistry& registry;
  std::shared_ptr<spdlog::logger> logger;
  std::atomic<bool> never{false};
  const std::atomic<bool>* interrupt = &never;

  std::unique_ptr<Components> components;
  std::unique_ptr<KnowledgeAugmentation> augmentation;
  DatasetBuffer data;
  std::unique_ptr<Proposer> proposer;
  std::int64_t total = 0;  // observations of any status
  std::int64_t failed = 0;
  std::int64_t repeats_noted = 0;  // proposals that repeated an evaluated point (note_repeat)
  // The pending observations' points by id, kept as the store's statuses change, so that
  // `ask` does not scan the store for them (O(n) per call).
  std::map<std::int64_t, Eigen::VectorXd> pending;
  std::optional<double> best;  // user's direction
  std::int64_t best_id = 0;

  double plugin_seconds = 0.0;
  double command_seconds = 0.0;

  Impl(std::unique_ptr<StudyLock> l, fs::path d, StudyStore s, Pipeline p, const PluginRegistry& r)
      : lock(std::move(l)),
        dir(std::move(d)),
        store(std::move(s)),
        pipeline(std::move(p)),
        registry(r) {}

  // Points the components' contexts and the evaluator at `flag`: they are built before the
  // caller of run() hands its flag over, and must see the one that Ctrl-C sets.
  void use_interrupt(const std::atomic<bool>* flag) {
    interrupt = flag;
    for (auto& c : components->contexts) c->set_interrupt(flag);
    components->evaluator->set_interrupt(flag);
  }

  void build(const fs::path& base_dir) {
    components = assemble(pipeline, registry, logger, interrupt, base_dir);
    std::vector<std::string> names;
    for (const auto& c : components->constraints) names.push_back(c.name);
    data.reset(components->space.size(), names, pipeline.maximize);
    augmentation = std::make_unique<KnowledgeAugmentation>(pipeline, *components, store, *logger);
    proposer = std::make_unique<Proposer>(pipeline, *components, *augmentation, data, *logger);
  }

  // Adds a finished observation to the in-memory dataset and the incumbent.
  void absorb(const Observation& o) {
    if (o.status == ObsStatus::Failed) {
      data.append_failed(o.x);
      ++failed;
      return;
    }
    if (o.status != ObsStatus::Complete) return;
    const auto& constraints = components->constraints;
    Eigen::VectorXd c(static_cast<Eigen::Index>(constraints.size()));
    for (std::size_t k = 0; k < constraints.size(); ++k) {
      c[static_cast<Eigen::Index>(k)] =
          constraints[k].normalized(o.constraints[static_cast<Eigen::Index>(k)]);
    }
    double y = pipeline.maximize ? -o.objective : o.objective;
    // [proposal] known_penalty: the models learn the penalized objective (Eq. 14 of the
    // LEAF-GP paper); the incumbent below stays the true objective of a feasible point.
    if (pipeline.proposal.known_penalty > 0.0 && !components->known.empty()) {
      // Finite, as every target: a huge excess times lambda saturates instead of overflowing.
      y = std::min(y + pipeline.proposal.known_penalty * components->known_squared_excess(o.x),
                   std::numeric_limits<double>::max());
    }
    data.append(o.x, y, c);
    if (o.feasible) {
      const bool better = !best || (pipeline.maximize ? o.objective > *best : o.objective < *best);
      if (better) {
        best = o.objective;
        best_id = o.id;
      }
    }
  }

  // The stored points and constraint values have the lengths of the parameters and
  // constraints the study was created with; a problem plugin that now declares others would
  // misread every one of them.
  void check_stored_names() const {
    // Older builds could be killed before writing them; such a study is checked row by row.
    if (!store.meta("parameter_names") || !store.meta("constraint_names")) return;
    std::vector<std::string> params, constraints;
    for (const auto& p : components->space.parameters()) params.push_back(p.name);
    for (const auto& c : components->constraints) constraints.push_back(c.name);
    const auto stored_params = store.names("parameter_names");
    const auto stored_constraints = store.names("constraint_names");
    if (stored_params != params || stored_constraints != constraints) {
      throw StudyError(fmt::format(
          "study {} was created with parameters [{}] and black-box constraints [{}], but its "
          "pipeline now gives [{}] and [{}] (did the problem plugin change?)",
          dir.string(), fmt::join(stored_params, ", "), fmt::join(stored_constraints, ", "),
          fmt::join(params, ", "), fmt::join(constraints, ", ")));
    }
  }

  void load_observations() {
    for (auto& o : store.observations()) {
      ++total;
      if (o.status == ObsStatus::Pending) {
        pending.emplace(o.id, o.x);
      } else {
        absorb(o);
      }
    }
  }

  // Proposes observation number `total` and records it as pending, with its statistics, in
  // one transaction. `ask` overrides the stored origin.
  Observation propose_and_record(bool ask) { return *try_propose_and_record(ask); }

  // As propose_and_record, but empty when the proposal repeats a point being evaluated and no
  // other could be drawn (ProposedPoint::repeats_pending; only while points are pending).
  std::optional<Observation> try_propose_and_record(bool ask) {
    Observation obs;
    const auto t0 = Clock::now();
    ProposedPoint p = proposer->propose(total);
    plugin_seconds += p.plugin_seconds;
    // A solve cut short by an interrupt proposes what an uninterrupted one would not: it is
    // not recorded, so a resumed study proposes this observation afresh.
    if (interrupt->load()) {
      throw InterruptedError(fmt::format("interrupted while proposing observation {}", total + 1));
    }
    if (p.repeats_pending) return std::nullopt;
    const bool design = p.stage == Origin::Design;
    obs.x = std::move(p.x);
    obs.proposed_by_json = design ? components->design_proposed_by : components->model_proposed_by;
    if (p.stats) obs.stats_json = p.stats->to_json();
    obs.surrogate_states = std::move(p.surrogate_states);
    obs.origin = ask ? "ask" : design ? "design" : "model";
    obs.params_json = params_to_json(components->space, obs.x);
    obs.propose_seconds = seconds_since(t0);
    obs.created_at = unix_now();
    obs.id = store.add_pending(obs);
    pending.emplace(obs.id, obs.x);
    ++total;
    note_repeat(obs);
    test_signal_point("run:pending");
    return obs;
  }

  // A proposal that repeats an evaluated point tells a deterministic objective nothing new,
  // and a model that proposes it once tends to go on proposing it (a tree model whose optimal
  // cell is an observed point's, a solver stopped at its start): said as a warning the first
  // time in an opened study, with what forbids it, and at info level after that. O(n d).
  void note_repeat(const Observation& obs) {
    const sdk::Dataset& d = data.view();
    if (!Proposer::contains_point(d.X, obs.x) && !Proposer::contains_point(d.X_failed, obs.x)) {
      return;
    }
    const std::string what = fmt::format("observation {} repeats a point already evaluated ({})",
                                         obs.id, components->space.describe(obs.x));
    if (repeats_noted++ > 0) {
      logger->info("{}", what);
      return;
    }
    logger->warn(
        "{}; a deterministic objective learns nothing from a repeat. [proposal] "
        "exclude_evaluated = true forbids repeats on discrete spaces, and the tree-kernel "
        "surrogates (tree_gp, bark) offer resample_duplicates = true (further repeats are in "
        "arbo.log)",
        what);
  }

  void evaluate_and_record(Observation& obs) {
    const auto t0 = Clock::now();
    EvalOutcome out = components->evaluator->evaluate(obs.id, obs.x, obs.params_json);
    // A problem plugin that failed while the user interrupted may have failed because its
    // context was cancelled: the observation stays pending and is evaluated again on resume.
    if (!out.ok && interrupt->load()) {
      throw InterruptedError(
          fmt::format("interrupted during the evaluation of observation {}", obs.id));
    }
    obs.eval_seconds = seconds_since(t0);
    if (components->problem) {
      plugin_seconds += obs.eval_seconds;
    } else {
      command_seconds += obs.eval_seconds;
    }
    record(obs, out);
  }

  // One evaluation running on its own thread (run_async).
  struct Running {
    Observation obs;
    Clock::time_point t0;
    std::thread thread;
    EvalOutcome out;
    std::exception_ptr error;
  };

  // [study] workers > 1 with an external command: up to q evaluations run at once, each on a
  // thread of its own that only waits for its command (CommandEvaluator::evaluate is
  // thread-safe); everything else (proposals, the store, the dataset) stays on this thread.
  // When one finishes it is recorded, and the next point is proposed with the others in
  // Dataset::X_pending. `rerun` are the pending observations of an earlier run, started
  // first. `pending_left` counts the study's pending observations (for progress reports).
  void run_async(std::vector<Observation>& rerun, std::int64_t& pending_left, double limit,
                 Clock::time_point t0, RunSummary& summary,
                 const std::function<void(const Observation&)>& report) {
    const auto q = static_cast<std::size_t>(pipeline.workers);
    // The evaluations' interrupt flag: set on the user's interrupt, and when this run ends by
    // an exception (the evaluations then stop, stay pending and are re-run on resume).
    std::atomic<bool> stop{false};
    std::mutex mutex;
    std::condition_variable cv;
    std::deque<Running*> finished;  // in the order they finished
    std::list<Running> running;
    components->evaluator->set_interrupt(&stop);
    struct Cleanup {
      Impl& s;
      std::atomic<bool>& stop;
      std::list<Running>& running;
      ~Cleanup() {
        stop = true;
        for (auto& r : running) {
          if (r.thread.joinable()) r.thread.join();
        }
        s.components->evaluator->set_interrupt(s.interrupt);
        s.data.set_pending({});
      }
    } cleanup{*this, stop, running};

    const auto update_pending = [&] {
      std::vector<Eigen::VectorXd> points;
      points.reserve(running.size());
      for (const auto& r : running) points.push_back(r.obs.x);
      data.set_pending(points);
    };
    const auto launch = [&](Observation obs) {
      Running& r = running.emplace_back();
      r.obs = std::move(obs);
      r.t0 = Clock::now();
      r.thread = std::thread([&, rp = &r] {
        try {
          rp->out = components->evaluator->evaluate(rp->obs.id, rp->obs.x, rp->obs.params_json);
        } catch (...) {
          rp->error = std::current_exception();
        }
        {
          std::lock_guard<std::mutex> lock(mutex);
          finished.push_back(rp);
        }
        cv.notify_one();
      });
      update_pending();
    };
    // Waits for the next evaluation to finish (passing the user's interrupt on), and records
    // it; one that was interrupted stays pending.
    const auto collect_one = [&] {
      Running* r = nullptr;
      {
        std::unique_lock<std::mutex> lock(mutex);
        while (finished.empty()) {
          if (interrupt->load()) stop = true;
          cv.wait_for(lock, std::chrono::milliseconds(100));
        }
        r = finished.front();
        finished.pop_front();
      }
      r->thread.join();
      Observation obs = std::move(r->obs);
      const EvalOutcome out = std::move(r->out);
      const std::exception_ptr error = r->error;
      obs.eval_seconds = seconds_since(r->t0);
      running.remove_if([r](const Running& x) { return &x == r; });
      update_pending();
      if (error) {
        try {
          std::rethrow_exception(error);
        } catch (const InterruptedError& e) {
          logger->info("{}", e.what());
          summary.termination = Termination::Interrupted;
          return;
        }
      }
      command_seconds += obs.eval_seconds;  // summed over evaluations: may exceed wall time
      record(obs, out);
      --pending_left;
      report(obs);
    };

    std::size_t next_rerun = 0;
    bool proposing = true;
    while (true) {
      if (interrupt->load()) {
        summary.termination = Termination::Interrupted;
        stop = true;
        proposing = false;
      }
      while (proposing && running.size() < q) {
        if (next_rerun < rerun.size()) {
          logger->info("re-running pending observation {}", rerun[next_rerun].id);
          launch(std::move(rerun[next_rerun++]));
          continue;
        }
        if (total >= pipeline.budget) {
          proposing = false;
          break;
        }
        if (limit > 0 && seconds_since(t0) >= limit) {
          summary.termination = Termination::TimeLimit;
          proposing = false;
          break;
        }
        if (limit > 0) components->solver_context->set_budget(limit - seconds_since(t0));
        std::optional<Observation> obs;
        try {
          obs = try_propose_and_record(false);
        } catch (const ExhaustedError& e) {
          // The points being evaluated count as evaluated: their results add no new point.
          if (running.empty()) throw;
          logger->info("{}", e.what());
          summary.termination = Termination::Exhausted;
          proposing = false;
          break;
        }
        if (!obs) break;  // every other point is pending: wait for one to finish
        ++pending_left;
        launch(std::move(*obs));
      }
      if (running.empty()) break;
      collect_one();
    }
  }

  // A study opened to be read (Study::open_read_only) refuses every call that would write.
  void require_writable(const char* call) const {
    if (!read_only) return;
    throw StudyError(
        fmt::format("{}: {} needs the study opened for writing; it was opened to be "
                    "read only (beside the run that may be driving it)",
                    store.directory().string(), call));
  }

  // `ask` and `tell_point` add an observation outside `run`. The count is the opened study's
  // (pending observations included), not read again.
  void require_budget_left() const {
    if (total < pipeline.budget) return;
    const std::string d = store.directory().string();
    throw StudyError(fmt::format(
        "{}: the budget of {} evaluations is spent; extend it with 'arbo run --resume --study {} "
        "--set study.budget=N'",
        d, pipeline.budget, d));
  }

  // Fills the result fields of `obs` from `out` (status, objective, constraints, feasibility
  // by the black-box values and the known constraints, reason, finish time).
  void finish(Observation& obs, const EvalOutcome& out) const {
    const auto& constraints = components->constraints;
    obs.finished_at = unix_now();
    if (out.ok) {
      if (out.constraints.size() != static_cast<Eigen::Index>(constraints.size())) {
        throw PluginError(fmt::format("evaluation returned {} constraint values, study has {}",
                                      out.constraints.size(), constraints.size()));
      }
      // Known constraints too: with [proposal] known_penalty the model stage proposes points
      // that violate them (otherwise every proposal satisfies them already).
      bool feasible = components->known_violation(obs.x) <= kKnownTolerance;
      for (std::size_t k = 0; k < constraints.size(); ++k) {
        feasible = feasible &&
                   constraints[k].normalized(out.constraints[static_cast<Eigen::Index>(k)]) <= 0.0;
      }
      obs.status = ObsStatus::Complete;
      obs.objective = out.objective;
      obs.constraints = out.constraints;
      obs.feasible = feasible;
    } else {
      obs.status = ObsStatus::Failed;
      obs.reason = out.reason;
    }
  }

  void record(Observation& obs, const EvalOutcome& out) {
    finish(obs, out);
    if (obs.status == ObsStatus::Complete) {
      store.complete(obs.id, obs.objective, obs.constraints, obs.feasible, obs.eval_seconds);
    } else {
      store.fail(obs.id, obs.reason, obs.eval_seconds);
      logger->warn("observation {} failed: {}", obs.id, obs.reason);
    }
    test_signal_point("run:recorded");
    pending.erase(obs.id);
    absorb(obs);
  }
};

Study::Study(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Study::~Study() = default;

std::unique_ptr<Study> Study::create(const fs::path& dir, Pipeline pipeline,
                                     const std::string& source_text, const PluginRegistry& registry,
                                     bool verbose) {
  // A complete study stays one: say so first, even while another process drives it.
  if (StudyStore::inspect(dir) == StudyDirState::Study) {
    throw StudyError(
        fmt::format("{} already holds a study; use --resume to continue it or "
                    "choose another --study directory",
                    dir.string()));
  }
  // Resolve the command's working directory now, so the stored pipeline runs from anywhere.
  if (!pipeline.problem.plugin) {
    fs::path base = pipeline.source_path.empty()
                        ? fs::current_path()
                        : fs::absolute(fs::path(pipeline.source_path)).parent_path();
    fs::path wd = pipeline.problem.working_directory.empty()
                      ? base
                      : fs::path(pipeline.problem.working_directory);
    if (wd.is_relative()) wd = base / wd;
    pipeline.problem.working_directory = wd.lexically_normal().string();
  }
  StudyStore::create_directory(dir);
  auto lock = std::make_unique<StudyLock>(dir);
  test_signal_point("create:locked");
  // Everything from the schema to the last metadata is one transaction, committed at the end:
  // a process killed before then leaves no study (the next creation clears what is left, and
  // --resume says so), and an exception destroys the uncommitted store, which removes its
  // files.
  auto impl = std::make_unique<Impl>(std::move(lock), dir, StudyStore::create_uncommitted(dir),
                                     std::move(pipeline), registry);
  test_signal_point("create:schema");
  impl->logger = open_study_log(dir, verbose);
  impl->build(dir);
  test_signal_point("create:built");
  auto& store = impl->store;
  store.set_meta("pipeline", to_toml(impl->pipeline));
  store.set_meta("source", source_text);
  store.set_meta("source_path", impl->pipeline.source_path);
  store.set_meta("arbo_version", ARBO_VERSION);
  // Plain copies of what `show` and `export` need, so they work without loading any plugin.
  store.set_meta("name", impl->pipeline.name);
  store.set_meta("direction", impl->pipeline.maximize ? "maximize" : "minimize");
  store.set_meta("budget", std::to_string(impl->pipeline.budget));
  nlohmann::json pnames = nlohmann::json::array();
  for (const auto& p : impl->components->space.parameters()) pnames.push_back(p.name);
  store.set_meta("parameter_names", pnames.dump());
  nlohmann::json names = nlohmann::json::array();
  for (const auto& c : impl->components->constraints) names.push_back(c.name);
  store.set_meta("constraint_names", names.dump());
  test_signal_point("create:meta");
  store.commit_creation();
  impl->logger->info("created study {} ({} evaluations, seed {})", dir.string(),
                     impl->pipeline.budget, impl->pipeline.seed);
  test_signal_point("create:committed");
  return std::unique_ptr<Study>(new Study(std::move(impl)));
}

std::unique_ptr<Study> Study::open(const fs::path& dir, const PluginRegistry& registry,
                                   bool verbose) {
  return open_with(dir, registry, verbose, false);
}

std::unique_ptr<Study> Study::open_read_only(const fs::path& dir, const PluginRegistry& registry,
                                             bool verbose) {
  return open_with(dir, registry, verbose, true);
}

std::unique_ptr<Study> Study::open_with(const fs::path& dir, const PluginRegistry& registry,
                                        bool verbose, bool read_only) {
  // Without a study.db, StudyStore::open says why (no such directory, not a directory, no
  // study), before the lock would create a lock file in a directory that holds no study.
  if (!StudyStore::exists(dir)) StudyStore::open(dir);
  // The lock comes before anything is read: a driver that loaded the study before it held the
  // lock would go on from a stale count once another driver's run ended, and propose and
  // number again what that run already had. A reader takes no lock and writes nothing (not
  // even the log): it reads a snapshot, beside a driver if one runs.
  std::unique_ptr<StudyLock> lock;
  if (!read_only) {
    lock = std::make_unique<StudyLock>(dir);
    test_signal_point("open:locked");
  }
  StudyStore store = read_only ? StudyStore::open_read_only(dir) : StudyStore::open(dir);
  const auto text = store.meta("pipeline");
  if (!text) throw StudyError(fmt::format("{}: the study has no stored pipeline", dir.string()));
  Pipeline pipeline = parse_pipeline(*text, (dir / "study.db").string() + " [stored pipeline]", {},
                                     lookup_from(registry));
  pipeline.source_path = store.meta("source_path").value_or("");
  auto impl =
      std::make_unique<Impl>(std::move(lock), dir, std::move(store), std::move(pipeline), registry);
  impl->read_only = read_only;
  impl->logger = read_only ? make_logger("arbo", "", verbose) : open_study_log(dir, verbose);
  impl->build(dir);
  impl->check_stored_names();
  impl->load_observations();
  impl->proposer->restore_states(impl->store.surrogate_states());
  test_signal_point("open:loaded");
  return std::unique_ptr<Study>(new Study(std::move(impl)));
}

RunSummary Study::run(const RunOptions& options) {
  Impl& s = *impl_;
  s.require_writable("run");
  // The run's flag reaches every component's Context::cancelled() and the evaluator; after
  // the run they see the study's own flag again, which is never set.
  struct UseInterrupt {
    Impl& s;
    ~UseInterrupt() { s.use_interrupt(&s.never); }
  } restore{s};
  if (options.interrupt) s.use_interrupt(options.interrupt);
  s.components->evaluator->cancel_on_interrupt(options.cancel_on_exit);
  RunSummary summary;
  const auto t0 = Clock::now();
  s.plugin_seconds = 0.0;
  s.command_seconds = 0.0;
  const double limit = s.pipeline.time_limit_seconds;

  // Evaluations that a killed run (or an unanswered `ask`) left pending are re-run first. The
  // lock keeps other writers out, so these are all the pending ones until they are re-run, and
  // progress needs no COUNT per evaluation (a scan of the table: O(n) per evaluation).
  std::vector<Observation> pending = s.store.observations(ObsStatus::Pending);
  auto pending_left = static_cast<std::int64_t>(pending.size());
  const auto report = [&](const Observation& o) {
    ++summary.evaluations;
    if (options.on_progress) {
      ProgressEvent ev;
      ev.observation = &o;
      ev.done = s.total - pending_left;
      ev.budget = s.pipeline.budget;
      ev.best = s.best;
      ev.elapsed_seconds = seconds_since(t0);
      options.on_progress(ev);
    }
  };

  summary.termination = Termination::BudgetReached;
  // A problem plugin is evaluated in-process, where nothing says that two evaluations of one
  // instance may run at once: it is evaluated one point at a time whatever [study] workers.
  const bool async = s.pipeline.workers > 1 && !s.components->problem;
  if (s.pipeline.workers > 1 && !async) {
    s.logger->info(
        "study.workers = {} applies to external commands; the problem plugin is "
        "evaluated one point at a time",
        s.pipeline.workers);
  }
  try {
    if (async) {
      s.run_async(pending, pending_left, limit, t0, summary, report);
      pending.clear();
    }
    for (auto& o : pending) {
      if (s.interrupt->load()) throw InterruptedError("interrupted");
      s.logger->info("re-running pending observation {}", o.id);
      s.evaluate_and_record(o);
      --pending_left;
      report(o);
    }
    while (!async && s.total < s.pipeline.budget) {
      if (s.interrupt->load()) {
        summary.termination = Termination::Interrupted;
        break;
      }
      if (limit > 0 && seconds_since(t0) >= limit) {
        summary.termination = Termination::TimeLimit;
        break;
      }
      if (limit > 0) s.components->solver_context->set_budget(limit - seconds_since(t0));
      Observation obs = s.propose_and_record(false);
      s.evaluate_and_record(obs);
      report(obs);
    }
  } catch (const ExhaustedError& e) {
    // Not a failure: the study is complete (nothing was recorded for the missing proposal).
    s.logger->info("{}", e.what());
    summary.termination = Termination::Exhausted;
  } catch (const KernelError& e) {
    // An interrupt ends the run wherever it lands; a plugin that gave up because its context
    // was cancelled (sdk::Cancelled, or nothing found) is part of it. A store error is not.
    const bool interrupted = dynamic_cast<const InterruptedError*>(&e) != nullptr ||
                             (s.interrupt->load() && e.exit_code() != kExitStudy);
    if (!interrupted) throw;
    s.logger->info("{}", e.what());
    summary.termination = Termination::Interrupted;
  }
  summary.wall_seconds = seconds_since(t0);
  summary.plugin_seconds = s.plugin_seconds;
  summary.command_seconds = s.command_seconds;
  summary.total = s.total;
  summary.failed = s.failed;
  summary.best = s.best;
  s.logger->info("run ended: {} after {} evaluations ({:.3f} s)", to_string(summary.termination),
                 summary.evaluations, summary.wall_seconds);
  s.logger->flush();
  return summary;
}

Observation Study::ask() {
  Impl& s = *impl_;
  s.require_writable("ask");
  s.require_budget_left();
  // Points asked and not told are being evaluated somewhere: the same rule as run_async's.
  std::vector<Eigen::VectorXd> pending;
  pending.reserve(s.pending.size());
  for (const auto& entry : s.pending) pending.push_back(entry.second);
  s.data.set_pending(pending);
  struct Clear {
    DatasetBuffer& data;
    ~Clear() { data.set_pending({}); }
  } clear{s.data};
  std::optional<Observation> obs = s.try_propose_and_record(true);
  if (!obs) {
    throw InfeasibleError(fmt::format(
        "every point satisfying the known constraints is pending ({} observations asked and not "
        "told): tell a result first",
        pending.size()));
  }
  return std::move(*obs);
}

void Study::tell(std::int64_t id, const EvalOutcome& outcome) {
  impl_->require_writable("tell");
  auto obs = impl_->store.observation(id);
  if (!obs) throw StudyError(fmt::format("observation {} does not exist", id));
  if (obs->status != ObsStatus::Pending) {
    throw StudyError(fmt::format("observation {} is not pending (status {})", id,
                                 kernel::to_string(obs->status)));
  }
  impl_->record(*obs, outcome);
}

Observation Study::tell_point(const std::vector<sdk::Value>& values, const EvalOutcome& outcome) {
  Impl& s = *impl_;
  s.require_writable("tell_point");
  s.require_budget_left();
  const sdk::Space& space = s.components->space;
  Observation obs;
  obs.x = encode_point_for(space, values, "tell");
  obs.origin = "tell";
  obs.params_json = params_to_json(space, obs.x);
  obs.created_at = unix_now();
  s.finish(obs, outcome);
  obs.id = s.store.add_finished(obs);
  ++s.total;
  if (obs.status == ObsStatus::Failed)
    s.logger->warn("observation {} failed: {}", obs.id, obs.reason);
  s.absorb(obs);
  return obs;
}

EvalOutcome Study::outcome_from_json(const std::string& json_text) const {
  return parse_command_output(json_text, impl_->components->constraints);
}

void Study::set_limits(std::int64_t budget, double time_limit_seconds, std::int64_t workers) {
  Impl& s = *impl_;
  s.require_writable("set_limits");
  if (budget < s.total) {
    throw ConfigError(
        fmt::format("study.budget = {} is below the {} observations the study "
                    "already has",
                    budget, s.total));
  }
  if (workers <= 0) workers = s.pipeline.workers;
  if (budget == s.pipeline.budget && time_limit_seconds == s.pipeline.time_limit_seconds &&
      workers == s.pipeline.workers) {
    return;
  }
  s.pipeline.budget = budget;
  s.pipeline.time_limit_seconds = time_limit_seconds;
  s.pipeline.workers = workers;
  s.store.set_meta("pipeline", to_toml(s.pipeline));
  s.store.set_meta("budget", std::to_string(budget));
}

Prediction Study::predict(const std::vector<std::vector<sdk::Value>>& points) {
  Impl& s = *impl_;
  const std::string dir = s.dir.string();
  if (!s.pipeline.surrogate) {
    throw ConfigError(fmt::format(
        "study {}: its pipeline has no [surrogate] (a model-free pipeline, [inner_solver] {}), "
        "so there is no model to predict with",
        dir, s.pipeline.inner_solver.id()));
  }
  const std::string sid = s.pipeline.surrogate->id();
  if (!s.components->surrogates.empty() &&
      dynamic_cast<const sdk::DensityModel*>(s.components->surrogates[0].surrogate.get()) !=
          nullptr) {
    throw ConfigError(fmt::format(
        "study {}: {} is a density model (arbo::sdk::DensityModel): its prediction is a log "
        "density ratio of good and bad points, not the objective, so it has no mean and "
        "uncertainty of the objective to report",
        dir, sid));
  }
  // User values -> encoded points; a parameter left out must be inactive there.
  const sdk::Space& space = s.components->space;
  Eigen::MatrixXd X(static_cast<Eigen::Index>(points.size()),
                    static_cast<Eigen::Index>(space.size()));
  for (std::size_t k = 0; k < points.size(); ++k) {
    const Eigen::VectorXd x =
        encode_point_for(space, points[k], fmt::format("predict: point {}", k + 1));
    X.row(static_cast<Eigen::Index>(k)) = x.transpose();
  }
  const sdk::Dataset& data = s.data.view();
  if (data.size() == 0) {
    throw StudyError(fmt::format(
        "study {}: no completed observation yet, so there is nothing to fit {} to", dir, sid));
  }
  // A surrogate of its own, so that this fit leaves the study's surrogates as they were.
  KernelContext context(sid, s.logger, &s.never);
  context.set_model_solver(s.components->model_solver);
  std::shared_ptr<sdk::Surrogate> model = make_surrogate(s.pipeline, s.registry, context, space);
  if (auto* saver = dynamic_cast<sdk::SavesState*>(model.get())) {
    const auto states = s.store.surrogate_states();
    if (const auto it = states.find(0); it != states.end()) {
      guarded_call(sid, "restore_state", [&] { saver->restore_state(it->second); });
    }
  }
  context.reseed(s.pipeline.seed, static_cast<std::uint64_t>(s.total), kSaltSurrogate);
  sdk::Metric metric;
  metric.name = "objective";
  guarded_call(sid, "fit", [&] { model->fit(data, metric); });
  Eigen::VectorXd mean, variance;
  guarded_call(sid, "predict", [&] { model->predict(X, mean, variance); });
  if (mean.size() != X.rows() || variance.size() != X.rows() || !mean.allFinite() ||
      !variance.allFinite()) {
    throw PluginError(component_error(
        sid, "predict",
        fmt::format("returned {} means and {} variances for {} points, or a non-finite one",
                    mean.size(), variance.size(), X.rows())));
  }
  Prediction out;
  out.mean.resize(points.size());
  out.stddev.resize(points.size());
  const double sign = s.pipeline.maximize ? -1.0 : 1.0;  // back from minimization sense
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    out.mean[static_cast<std::size_t>(i)] = sign * mean[i];
    out.stddev[static_cast<std::size_t>(i)] = std::sqrt(std::max(0.0, variance[i]));
  }
  return out;
}

const Pipeline& Study::pipeline() const noexcept { return impl_->pipeline; }
const sdk::Space& Study::space() const noexcept { return impl_->components->space; }
StudyStore& Study::store() noexcept { return impl_->store; }
const sdk::Dataset& Study::dataset() const { return impl_->data.view(); }
const std::vector<BlackBoxConstraint>& Study::constraints() const noexcept {
  return impl_->components->constraints;
}

std::int64_t Study::observation_count() const noexcept { return impl_->total; }

std::optional<Observation> Study::best() const {
  if (!impl_->best) return std::nullopt;
  return impl_->store.observation(impl_->best_id);
}

}  // namespace arbo::kernel
