// SPDX-License-Identifier: MIT
/// @file
/// @brief Evaluators turn a proposed point into objective and black-box constraint values.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "arbo/kernel/pipeline.hpp"

namespace arbo::sdk {
class Problem;
}

namespace arbo::kernel {

class KernelContext;

/// Outcome of one evaluation. `ok == false` records a failed observation with `reason`.
struct EvalOutcome {
  bool ok = false;
  double objective = 0.0;       ///< user's units and direction
  Eigen::VectorXd constraints;  ///< raw values, one per black-box constraint, user units
  std::string reason;           ///< why it failed (crash, timeout, garbage output, NaN)
};

/// Evaluates points. Failures of the objective are outcomes, not exceptions: the study goes on.
class Evaluator {
 public:
  virtual ~Evaluator();
  /// @param id           observation id (passed to external commands)
  /// @param x            snapped encoded point
  /// @param params_json  the point's user values as a JSON object text
  virtual EvalOutcome evaluate(std::int64_t id, const Eigen::VectorXd& x,
                               const std::string& params_json) = 0;

  /// The flag that interrupts evaluations (the study's; null: never). An evaluator that can
  /// stop its work when it is set throws InterruptedError, and the observation stays pending.
  void set_interrupt(const std::atomic<bool>* interrupt) noexcept { interrupt_ = interrupt; }

  /// For evaluations that outlive the driver (Slurm jobs): `true` ends them when the run is
  /// interrupted (`arbo run --cancel-on-exit`), in addition to the pipeline's own setting.
  /// Evaluators whose evaluations always end with the run ignore it.
  virtual void cancel_on_interrupt(bool) {}

 protected:
  bool interrupted() const noexcept { return interrupt_ != nullptr && interrupt_->load(); }
  const std::atomic<bool>* interrupt_flag() const noexcept { return interrupt_; }

 private:
  const std::atomic<bool>* interrupt_ = nullptr;
};

/// In-process evaluation of a problem plugin (guarded: an exception becomes a failed outcome
/// naming the plugin). `context` is the problem's context, reseeded per observation id so
/// noisy problems are reproducible; `noise` > 0 adds Gaussian noise of that standard deviation
/// to the objective, drawn from the same per-observation stream.
std::unique_ptr<Evaluator> make_problem_evaluator(std::shared_ptr<sdk::Problem> problem,
                                                  std::string component_id, KernelContext& context,
                                                  std::uint64_t seed, double noise = 0.0);

/// Runs `spec.command` once per point: writes `{"id": N, "params": {...}}` to its stdin, reads
/// its stdout, enforces `spec.timeout_seconds` (the whole process group is killed), and parses
/// the result (see configs/README.md). `base_dir` resolves a relative working directory.
///
/// The command runs in its own process group under a small supervisor process, which ends the
/// group when the command exits (what it left behind is killed), on a timeout (SIGKILL), on
/// an interrupt (SIGTERM, a grace period of a few seconds, then SIGKILL; the evaluation then
/// throws InterruptedError) and when the driver dies, even by SIGKILL (the same as an
/// interrupt). The supervisor keeps the driver's descriptors, among them the study's lock, until
/// the group is gone, so a `--resume` cannot start the same evaluation beside the old one.
/// Limits: a process that leaves the group (setsid(), setpgid()) is not followed, and a
/// process that cannot die (uninterruptible sleep) is waited for 5 s at most. The result is
/// read when the command exits: output written later by processes it left behind is not.
/// When the output exceeds 4 MiB, only its last 4 MiB are kept and the result is the last
/// line. The command inherits no descriptor but its stdin, stdout and stderr.
///
/// `evaluate` may run on several threads at once (`[study] workers`): each call spawns its own
/// command, and each supervisor closes the driver's pipe ends of the other running commands.
std::unique_ptr<Evaluator> make_command_evaluator(const ProblemSpec& spec,
                                                  std::vector<BlackBoxConstraint> constraints,
                                                  const std::filesystem::path& base_dir);

/// Runs `spec.command` as one Slurm batch job per point (`spec.executor == Executor::Slurm`,
/// docs/slurm.md): submitted with sbatch (`spec.slurm`, time limit `spec.timeout_seconds`
/// rounded up to whole minutes), followed by its files under `study_dir`/slurm/<id>/ and one
/// squeue query per poll interval for all running jobs, its output parsed as a local command's.
/// A job that ends without a result (failed, cancelled, timed out, out of memory) is a failed
/// outcome naming its Slurm state. sbatch refusing a job throws ConfigError and the observation
/// stays pending. An interrupt leaves the job running (a resumed run re-attaches to it and
/// collects its result) unless cancel-on-exit is on. Thread-safe like the command evaluator.
std::unique_ptr<Evaluator> make_slurm_evaluator(const ProblemSpec& spec,
                                                std::vector<BlackBoxConstraint> constraints,
                                                const std::filesystem::path& study_dir);

/// Parses an external command's stdout into an outcome (exposed for tests). Accepts a bare
/// number, or an object with "objective" and optional "constraints" (object by name, or array
/// in declared order), or {"error": "reason"}. NaN/Infinity tokens (as Python prints them)
/// are recognized and reported as a failure.
EvalOutcome parse_command_output(const std::string& stdout_text,
                                 const std::vector<BlackBoxConstraint>& constraints);

}  // namespace arbo::kernel
