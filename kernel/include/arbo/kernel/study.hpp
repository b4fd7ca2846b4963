// SPDX-License-Identifier: MIT
/// @file
/// @brief A study: the BO loop over a pipeline, backed by the study store.
///
/// This is the kernel's C++ API; the CLI is a thin client of it.
///
/// One iteration (ARCHITECTURE.md, "The loop"):
///   1. dataset = observations so far (kept in memory, appended after every commit, and
///      copied into the plugins' sdk::Dataset only when a plugin may read it);
///   2. one surrogate per metric is fitted (model-based pipelines, after the initial design);
///   3. the acquisition is bound to the surrogates and the incumbent;
///   4. the inner solver maximizes it subject to the known constraints (or, model-free, returns
///      any feasible point);
///   5. the point is snapped onto the space;
///   6. it is recorded as pending (committed), evaluated, and the result committed.
/// Every component's random stream is reseeded from (seed, observation number), so a study
/// killed at any moment and resumed proposes exactly what an uninterrupted one would.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arbo/kernel/evaluator.hpp"
#include "arbo/kernel/pipeline.hpp"
#include "arbo/kernel/plugin_registry.hpp"
#include "arbo/kernel/study_store.hpp"
#include "arbo/sdk/dataset.hpp"
#include "arbo/sdk/space.hpp"

namespace arbo::kernel {

/// Reported after every finished evaluation of `Study::run`.
struct ProgressEvent {
  const Observation* observation = nullptr;
  std::int64_t done = 0;  ///< observations finished (complete or failed)
  std::int64_t budget = 0;
  std::optional<double> best;    ///< best feasible objective so far, user's direction
  double elapsed_seconds = 0.0;  ///< since `run` started
};

struct RunOptions {
  /// Set asynchronously (signal handler) to stop after the current evaluation.
  const std::atomic<bool>* interrupt = nullptr;
  std::function<void(const ProgressEvent&)> on_progress;
  /// Evaluations that outlive the driver (Slurm jobs) are cancelled when the run is
  /// interrupted (`arbo run --cancel-on-exit`); otherwise a resumed run re-attaches to them.
  bool cancel_on_exit = false;
};

/// Why `run` ended. `Exhausted`: `[proposal] exclude_evaluated` and every point satisfying the
/// known constraints has been evaluated.
enum class Termination { BudgetReached, TimeLimit, Interrupted, Exhausted };
const char* to_string(Termination t) noexcept;

/// What `run` did, and where its time went.
struct RunSummary {
  Termination termination = Termination::BudgetReached;
  std::int64_t evaluations = 0;  ///< finished in this call (re-run pending ones included)
  std::int64_t total = 0;        ///< observations in the study after the call
  std::int64_t failed = 0;       ///< failed observations in the study
  std::optional<double> best;    ///< best feasible objective, user's direction
  double wall_seconds = 0.0;     ///< of the loop
  double plugin_seconds = 0.0;   ///< inside plugin calls (fit, bind, maximize, evaluate)
  double command_seconds = 0.0;  ///< inside external commands
  /// Kernel overhead: wall time not spent in plugins or external commands.
  double kernel_seconds() const { return wall_seconds - plugin_seconds - command_seconds; }
};

/// The objective surrogate's prediction at some points (`Study::predict`), one entry per point.
struct Prediction {
  std::vector<double> mean;    ///< predicted objective, in the objective's user units and direction
  std::vector<double> stddev;  ///< predictive standard deviation (>= 0), the objective's units
};

/// A point given by a user (`Study::predict`, `Study::tell_point`, `arbo tell --params`,
/// `arbo problem eval`) encoded by `space`: `values` holds one entry per parameter of `space`,
/// in its order, std::monostate where none is given (allowed only for a parameter that is
/// inactive at the point; it then gets its default).
/// Errors: sdk::InvalidArgument naming the parameter, when a value is invalid (Space::encode:
/// wrong type, out of bounds, unknown choice) or an active parameter has no value.
/// Cost: O(D) for D parameters.
Eigen::VectorXd encode_user_point(const sdk::Space& space, const std::vector<sdk::Value>& values);

class Study {
 public:
  /// Creates a study directory for `pipeline` (source_text: the TOML as written, stored for
  /// reference). The study appears complete or not at all: a process killed while creating it
  /// leaves a directory that holds no study, which `create` accepts (clearing what is left) and
  /// `open` refuses with a message that says so. The returned study holds the study lock.
  /// @throws StudyError if `dir` already holds a study, is in use or cannot be written;
  /// PluginError/ConfigError if components cannot be created.
  static std::unique_ptr<Study> create(const std::filesystem::path& dir, Pipeline pipeline,
                                       const std::string& source_text,
                                       const PluginRegistry& registry, bool verbose = false);
  /// Opens an existing study, reloading its stored pipeline through `registry`. Takes the study
  /// lock before reading anything and holds it for the object's lifetime, so one process at a
  /// time drives a study. @throws StudyError if it is in use by another process, missing or
  /// damaged.
  static std::unique_ptr<Study> open(const std::filesystem::path& dir,
                                     const PluginRegistry& registry, bool verbose = false);
  /// Opens an existing study to read it (plots, `predict`, the observations) while another
  /// process may be driving it: takes no lock and writes nothing, not even the study's log
  /// (warnings go to stderr). The object sees the study as it was when opened. `run`, `ask`,
  /// `tell`, `tell_point` and `set_limits` throw StudyError. Same errors as `open`, less
  /// "in use".
  static std::unique_ptr<Study> open_read_only(const std::filesystem::path& dir,
                                               const PluginRegistry& registry,
                                               bool verbose = false);
  ~Study();

  /// Runs until the budget is reached, the time limit passes or `interrupt` is set. Pending
  /// observations left by a killed run are evaluated first.
  /// @throws PluginError (a surrogate/acquisition/solver threw), InfeasibleError, StudyError.
  RunSummary run(const RunOptions& options);

  /// Proposes one point, records it as pending with origin "ask", and returns it. The study's
  /// pending observations (asked, not yet told) are the proposal's `Dataset::X_pending`, as
  /// with `[study] workers`: the point repeats none of them.
  /// @throws StudyError if the study's observations (pending included) already reach its
  /// budget; InfeasibleError when every point satisfying the known constraints is pending;
  /// PluginError as `run`.
  Observation ask();
  /// Records the outcome of a pending observation (from `ask`). @throws StudyError.
  void tell(std::int64_t id, const EvalOutcome& outcome);
  /// Records a point that the study did not propose, with its outcome, as a finished
  /// observation with origin "tell" (one transaction): earlier experiments that warm-start a
  /// study, a point an Optuna user enqueued, the trial that defined an Optuna search space.
  /// `values` holds one user value per parameter in the space's order (monostate for a
  /// parameter inactive there); the point is snapped to the space's grid as every observation
  /// is. It counts toward the budget and takes the next observation number (the streams of
  /// later proposals are keyed by theirs). Feasibility is computed as for any observation
  /// (black-box values and known constraints); a point violating a known constraint is
  /// recorded as infeasible. Cost: one insert.
  /// @throws ConfigError if a value is invalid (naming the parameter) or a needed one missing;
  ///         StudyError if the budget is spent; PluginError if the outcome has the wrong number
  ///         of constraint values.
  Observation tell_point(const std::vector<sdk::Value>& values, const EvalOutcome& outcome);
  /// Converts user-facing JSON (an object {"objective":..., "constraints": ...}, a bare number,
  /// or {"error": ...}) into an outcome with this study's constraints.
  EvalOutcome outcome_from_json(const std::string& json_text) const;

  /// Changes the budget, time limit and (unless `workers` is 0) the evaluations run at once of
  /// the stored pipeline (to extend a study on resume).
  /// @throws ConfigError if `budget` is below the number of observations already made.
  void set_limits(std::int64_t budget, double time_limit_seconds, std::int64_t workers = 0);

  /// The objective's surrogate fitted to the completed observations, evaluated at `points`:
  /// each point holds one user value per parameter, in the space's order (monostate for a
  /// parameter that is inactive there). Returns the predictive mean and standard deviation in
  /// the objective's user units and direction: the surrogate learns the kernel's
  /// minimization-sense target (`sdk::Dataset::y`, negated for a maximized study), and its
  /// mean is negated back here; whatever standardization the surrogate does inside, its
  /// `predict` is in the target's units (sdk/surrogate.hpp).
  ///
  /// The fit is the one the next proposal makes (the same data, and the surrogate's stream
  /// reseeded for observation number `observation_count()`), but on a separate instance of
  /// the pipeline's surrogate, so the study's own surrogates, and hence its proposals, are left
  /// as they were; a surrogate with `sdk::SavesState` starts from the state stored with the
  /// study's last model-based proposal. Pending observations are not in the fit (no constant
  /// liar). With `[proposal] known_penalty` the surrogate models the penalized objective, and
  /// that is what is returned.
  /// Cost: one fit of the surrogate (a GP: O(n^3)) and one `predict` over all the points.
  /// @throws ConfigError if the pipeline has no surrogate, if its surrogate is a density model
  ///         (`sdk::DensityModel`, TPE: its prediction is a density ratio, not the objective),
  ///         or if a point is invalid (naming the point and the parameter); StudyError if the
  ///         study has no completed observation; PluginError if the surrogate throws or
  ///         returns a non-finite or wrongly sized prediction.
  Prediction predict(const std::vector<std::vector<sdk::Value>>& points);

  const Pipeline& pipeline() const noexcept;
  const sdk::Space& space() const noexcept;
  StudyStore& store() noexcept;
  /// The observations as plugins see them. Brings the dataset up to date first: O(n) after
  /// observations were added, O(1) otherwise.
  const sdk::Dataset& dataset() const;
  /// Black-box constraints in effect (declared, or the problem's own).
  const std::vector<BlackBoxConstraint>& constraints() const noexcept;
  /// Id and objective of the best feasible observation, if any.
  std::optional<Observation> best() const;
  /// Observations of any status (pending included), as counted when the study was opened and
  /// kept since. O(1).
  std::int64_t observation_count() const noexcept;

 private:
  struct Impl;
  explicit Study(std::unique_ptr<Impl> impl);
  static std::unique_ptr<Study> open_with(const std::filesystem::path& dir,
                                          const PluginRegistry& registry, bool verbose,
                                          bool read_only);
  std::unique_ptr<Impl> impl_;
};

/// User values of a point as a JSON object text ({"name": value}, inactive parameters absent).
std::string params_to_json(const sdk::Space& space, const Eigen::VectorXd& x);

/// Adapts a registry to the config loader's lookup interface.
ComponentLookup lookup_from(const PluginRegistry& registry);

}  // namespace arbo::kernel
