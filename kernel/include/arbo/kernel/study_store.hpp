// SPDX-License-Identifier: MIT
/// @file
/// @brief The study store: one SQLite database (WAL) per study directory.
///
/// Every state change is its own committed transaction before the call returns, so a process
/// killed at any point (SIGKILL included) leaves a consistent database: an observation is
/// either absent, pending (proposed, evaluation not recorded) or finished.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>

namespace arbo::kernel {

enum class ObsStatus { Pending, Complete, Failed };
const char* to_string(ObsStatus status) noexcept;

/// One row of the observations table.
struct Observation {
  std::int64_t id = 0;  ///< 1, 2, ... in proposal order
  ObsStatus status = ObsStatus::Pending;
  std::string origin;            ///< "design", "model", "ask", "tell"
  Eigen::VectorXd x;             ///< encoded point
  std::string params_json;       ///< user values as a JSON object {"name": value}
  double objective = 0.0;        ///< user's units and direction (Complete only)
  Eigen::VectorXd constraints;   ///< raw black-box values, user units (Complete only)
  bool feasible = false;         ///< all black-box constraints hold (Complete only)
  std::string reason;            ///< why it failed (Failed only)
  std::string proposed_by_json;  ///< {"inner_solver/random": "1.0.0", ...}
  std::string stats_json;        ///< proposal statistics (JSON object, model-based proposals;
                                 ///< empty: none); written by add_pending, read by proposal_stats
  /// State of each surrogate with `sdk::SavesState` after the fit of this proposal, by metric
  /// (0 the objective, 1 + k black-box constraint k); written by add_pending, which keeps the
  /// latest per metric, read by surrogate_states.
  std::map<int, std::string> surrogate_states;
  double propose_seconds = 0.0;  ///< wall time of the proposal (plugin work included)
  double eval_seconds = 0.0;     ///< wall time of the evaluation
  double created_at = 0.0;       ///< Unix time, seconds
  double finished_at = 0.0;      ///< Unix time, seconds (0 while pending)
};

/// What a directory holds, as far as studies go (`StudyStore::inspect`).
enum class StudyDirState {
  Missing,      ///< no `study.db` in it (or no such directory)
  Interrupted,  ///< the `study.db` of a creation that never completed: it provably holds no
                ///< observation (no table at all, or the bare schema of an older build that
                ///< created a study in several commits); `create` removes it
  Study,        ///< a `study.db` with content; `open` checks that it is a sound arbo study
};

/// The database of one study. Not thread-safe; one writer process at a time (see StudyLock).
///
/// Reading an observation checks what the kernel relies on: a known status, the point's length
/// against the study's parameters and a complete one's objective and constraint values against
/// its constraints (`parameter_names` and `constraint_names` in the metadata, when present),
/// and a pending one's `params` being a JSON object (they are sent to its evaluation again). A
/// row that fails is a StudyError naming the observation: a damaged study, never an internal
/// error.
class StudyStore {
 public:
  /// Creates `dir` (and parents) and a new database `dir/study.db`, committed, with the
  /// metadata "schema_version" and "created_at". The caller holds the StudyLock (`Study`
  /// does): a creation removes what an interrupted one left.
  /// @throws StudyError if the directory already holds a study, is not a directory or cannot
  /// be written (read-only file system, permissions).
  static StudyStore create(const std::filesystem::path& dir);
  /// As `create`, but the schema and every `set_meta` until `commit_creation()` are one
  /// transaction: a process killed before the commit leaves no study (`inspect` says
  /// Interrupted), and a store destroyed before it removes the database again. Leftovers of an
  /// interrupted creation in `dir` are removed first.
  static StudyStore create_uncommitted(const std::filesystem::path& dir);
  /// Commits what `create_uncommitted` began: from here on `dir` holds a study.
  void commit_creation();
  /// Opens an existing study. @throws StudyError if missing or not an arbo study, if its
  /// creation was interrupted, or if its schema version is newer than this build understands.
  static StudyStore open(const std::filesystem::path& dir);
  /// Opens an existing study to read it only (`show`, `export`): never writes, and reads a
  /// study on a read-only file system. Writing through it fails. Same errors as `open`.
  static StudyStore open_read_only(const std::filesystem::path& dir);
  /// True when `dir/study.db` exists.
  static bool exists(const std::filesystem::path& dir);
  /// Creates `dir` and its parents (nothing when it exists). @throws StudyError if it exists
  /// and is not a directory, or cannot be created (read-only file system, permissions).
  static void create_directory(const std::filesystem::path& dir);
  /// What `dir` holds. Reads only; a database it cannot read counts as Study, for `open` to
  /// say why.
  static StudyDirState inspect(const std::filesystem::path& dir);

  StudyStore(StudyStore&&) noexcept;
  StudyStore& operator=(StudyStore&&) noexcept;
  ~StudyStore();

  /// Key/value metadata ("pipeline" = resolved TOML, "source" = original TOML,
  /// "arbo_version", "created_at", ...). set_meta commits.
  void set_meta(const std::string& key, const std::string& value);
  std::optional<std::string> meta(const std::string& key) const;
  /// A metadata array of names ("parameter_names", "constraint_names"); empty when absent.
  /// @throws StudyError if it is not a JSON array of strings.
  std::vector<std::string> names(const std::string& key) const;

  /// Inserts a pending observation (id assigned, returned) with its proposal statistics
  /// (`obs.stats_json`, when not empty: fit and solve times, model size, nodes, gap, status)
  /// and its surrogates' states (`obs.surrogate_states`, replacing the stored ones of the same
  /// metrics), and commits all of it in one transaction.
  std::int64_t add_pending(const Observation& obs);
  /// Records a finished evaluation and commits. @throws StudyError if `id` is not pending.
  void complete(std::int64_t id, double objective, const Eigen::VectorXd& constraints,
                bool feasible, double eval_seconds);
  /// Records a failed evaluation with its reason and commits.
  void fail(std::int64_t id, const std::string& reason, double eval_seconds);
  /// Inserts an already finished observation in one transaction (used by `tell` for points
  /// the user evaluated without `ask`). Returns the id.
  std::int64_t add_finished(const Observation& obs);

  /// All observations in id order.
  std::vector<Observation> observations() const;
  /// The observations with the given status, in id order (one scan, reading only those rows).
  std::vector<Observation> observations(ObsStatus status) const;
  std::optional<Observation> observation(std::int64_t id) const;
  /// Number of observations with the given status.
  std::int64_t count(ObsStatus status) const;

  /// Every recorded proposal statistics object (JSON text), by observation id.
  std::map<std::int64_t, std::string> proposal_stats() const;
  /// The latest stored state of each surrogate with `sdk::SavesState`, by metric (see
  /// `Observation::surrogate_states`); empty when none was stored.
  std::map<int, std::string> surrogate_states() const;

  const std::filesystem::path& directory() const noexcept;

 private:
  struct Impl;
  explicit StudyStore(std::unique_ptr<Impl> impl);
  static StudyStore open_impl(const std::filesystem::path& dir, bool read_only);
  std::unique_ptr<Impl> impl_;
};

/// The observations of `store` as the JSON array `arbo export --format json` writes (one
/// object per observation in id order: id, status, origin, params, objective, feasible and
/// constraints by name when complete, reason when failed, times, proposer versions, solver
/// statistics; indented by 2), read by the Python module too. Invalid UTF-8 in a failure
/// reason is replaced by U+FFFD. O(n) in the observations.
/// @throws StudyError naming the observation if a stored JSON text is damaged.
std::string observations_json(const StudyStore& store);

/// An exclusive advisory lock (flock) on `dir/lock`, held for the object's lifetime, so that
/// one process at a time drives a study (`Study` holds it from before it reads the study until
/// it is destroyed: `run`, `ask`, `tell`). Readers (`show`, `export`) take no lock. Released by
/// the OS if the process dies.
class StudyLock {
 public:
  /// How long a lock held by another process is waited for by default, in seconds: longer
  /// than an evaluation's supervisor takes to end its command after the driver was killed
  /// (SIGTERM, 2 s, SIGKILL), and than an `ask` or `tell` of a parallel worker holds it.
  static constexpr double kDefaultWaitSeconds = 5.0;

  /// Takes the lock, polling every 50 ms for up to `wait_seconds` while another process
  /// holds it.
  /// @throws StudyError naming the directory if another process still holds the lock after
  /// `wait_seconds`, or if the lock file cannot be opened (no such directory, read-only file
  /// system).
  explicit StudyLock(const std::filesystem::path& dir, double wait_seconds = kDefaultWaitSeconds);
  ~StudyLock();
  /// True when some process holds the lock of the study in `dir` now (an `arbo run` driving
  /// it, or an `ask`/`tell` in progress); false when none does or there is no lock file. Takes
  /// and drops a shared lock, so a driver starting at that instant waits one poll (50 ms).
  /// Creates nothing, and works on a read-only file system. O(1).
  static bool held(const std::filesystem::path& dir);
  StudyLock(const StudyLock&) = delete;
  StudyLock& operator=(const StudyLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace arbo::kernel
