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
  double propose_seconds = 0.0;  ///< wall time of the proposal (plugin work included)
  double eval_seconds = 0.0;     ///< wall time of the evaluation
  double created_at = 0.0;       ///< Unix time, seconds
  double finished_at = 0.0;      ///< Unix time, seconds (0 while pending)
};

/// The database of one study. Not thread-safe; one writer process at a time (see StudyLock).
class StudyStore {
 public:
  /// Creates `dir` (and parents) and a new database `dir/study.db`.
  /// @throws StudyError if the directory already holds a study.
  static StudyStore create(const std::filesystem::path& dir);
  /// Opens an existing study. @throws StudyError if missing or not an arbo study, or if its
  /// schema version is newer than this build understands.
  static StudyStore open(const std::filesystem::path& dir);
  /// True when `dir/study.db` exists.
  static bool exists(const std::filesystem::path& dir);

  StudyStore(StudyStore&&) noexcept;
  StudyStore& operator=(StudyStore&&) noexcept;
  ~StudyStore();

  /// Key/value metadata ("pipeline" = resolved TOML, "source" = original TOML,
  /// "arbo_version", "created_at", ...). set_meta commits.
  void set_meta(const std::string& key, const std::string& value);
  std::optional<std::string> meta(const std::string& key) const;

  /// Inserts a pending observation (id assigned, returned) with its proposal statistics
  /// (`obs.stats_json`, when not empty: fit and solve times, model size, nodes, gap, status)
  /// and commits both in one transaction.
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

  const std::filesystem::path& directory() const noexcept;

 private:
  struct Impl;
  explicit StudyStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// An exclusive advisory lock (flock) on `dir/lock`, held for the object's lifetime, so two
/// `arbo run` processes cannot drive one study. Released by the OS if the process dies.
class StudyLock {
 public:
  /// @throws StudyError naming the directory if another process holds the lock.
  explicit StudyLock(const std::filesystem::path& dir);
  ~StudyLock();
  StudyLock(const StudyLock&) = delete;
  StudyLock& operator=(const StudyLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace arbo::kernel
