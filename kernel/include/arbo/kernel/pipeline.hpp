// SPDX-License-Identifier: MIT
/// @file
/// @brief The resolved pipeline: everything a study needs, with every default filled in.
///
/// Produced by `load_pipeline` from a TOML file (plus `--set` overrides) and validated against
/// the loaded plugins' parameter specs. `to_toml` writes it back as a complete TOML document;
/// the study stores that text and `--resume` reloads it through the same loader, so a study can
/// always be rerun exactly.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arbo/sdk/component.hpp"
#include "arbo/sdk/params.hpp"
#include "arbo/sdk/plugin.hpp"
#include "arbo/sdk/space.hpp"

namespace arbo::kernel {

/// Longest time limit or timeout, in seconds (about 31 years): a deadline this far away still
/// fits the steady clock's 64-bit count of nanoseconds, where 1e10 s overflowed into the past.
inline constexpr double kMaxSeconds = 1e9;

/// A plugin slot: which component and its validated parameters.
struct ComponentSpec {
  sdk::Kind kind = sdk::Kind::InnerSolver;
  std::string name;      ///< component name within its kind, e.g. "random"
  sdk::ParamSet params;  ///< validated, defaults filled
  /// Where the table ("") and each parameter given in it were written ("file:line (key)"),
  /// for errors only the plugin finds when it is created; filled for known constraints.
  std::map<std::string, std::string> sources;
  std::string id() const { return std::string(sdk::to_string(kind)) + "/" + name; }
};

/// A black-box constraint measured by the evaluator: feasible iff value <= threshold (sense
/// "<=") or value >= threshold (sense ">=").
struct BlackBoxConstraint {
  std::string name;
  double threshold = 0.0;
  bool less_equal = true;
  /// The normalized value c (feasible iff c <= 0) the kernel stores in `Dataset::C`.
  double normalized(double value) const {
    return less_equal ? value - threshold : threshold - value;
  }
};

/// Where objective values come from: a problem plugin, or an external command.
/// Where an external command runs ([problem] executor).
enum class Executor {
  Local,  ///< a child process of the driver, on this machine
  Slurm,  ///< one Slurm batch job per evaluation ([problem.slurm]; docs/slurm.md)
};
const char* to_string(Executor executor) noexcept;

/// `[problem.slurm]`: how each evaluation is submitted with sbatch. The job's time limit is
/// `ProblemSpec::timeout_seconds`, rounded up to whole minutes (Slurm's unit).
struct SlurmOptions {
  std::string partition;                 ///< sbatch --partition (empty: the cluster's default)
  std::string memory;                    ///< sbatch --mem, e.g. "4G" (empty: the default)
  std::int64_t cpus = 0;                 ///< sbatch --cpus-per-task (0: the default)
  std::string job_name = "arbo";         ///< job names are "<job_name>-<observation id>"
  std::vector<std::string> sbatch_args;  ///< further sbatch arguments, passed as given
  double poll_seconds = 10.0;            ///< seconds between two squeue queries of the study
  bool cancel_on_exit = false;           ///< scancel the study's jobs when a run is interrupted
};

struct ProblemSpec {
  std::optional<ComponentSpec> plugin;     ///< set for a built-in problem
  double noise = 0.0;                      ///< built-in problem: std. dev. of additive Gaussian
                                           ///< noise on the objective ([problem] noise = ...)
  std::vector<std::string> command;        ///< argv of an external command (plugin unset)
  double timeout_seconds = 3600.0;         ///< external command: wall-clock limit per evaluation
  std::string working_directory;           ///< external command: cwd (empty = the TOML's folder)
  std::vector<sdk::Parameter> parameters;  ///< external command: the declared space
  Executor executor = Executor::Local;     ///< external command: where it runs
  SlurmOptions slurm;                      ///< executor = Slurm: the submission's settings
};

enum class DesignMethod { Random, LatinHypercube, Sobol };
const char* to_string(DesignMethod method) noexcept;

/// c-TPE's knowledge augmentation ([augmentation]): before the model is first used, the kernel
/// evaluates `points` extra points (uniform, from the study seed) once, keeps only the values
/// of the cheap black-box constraints, stores them in the study (never re-evaluated on resume,
/// not observations, not counted in the budget), and fits each cheap constraint's surrogate on
/// them too (`sdk::FitsPartialObservations`). Off when `cheap_constraints` is empty.
struct Augmentation {
  std::vector<std::string> cheap_constraints;  ///< names of black-box constraints
  std::int64_t points = 200;                   ///< N_p
};

/// How the kernel turns the inner solver's answer into a proposal ([proposal]); the defaults
/// change nothing. Together they make LEAF-GP-RND as Thebelt et al. (2022) ran it
/// (configs/leaf-gp-rnd.toml).
struct ProposalOptions {
  /// After a black-box solve (one without a certificate), propose the objective surrogate's
  /// representative point of the region holding the solver's point (`sdk::RepresentsRegions`:
  /// the centre of a tree ensemble's leaf-intersection box) instead of the point itself, when
  /// the representative satisfies the known constraints the solver had to respect.
  bool representative = false;
  /// > 0: the known constraints become a penalty instead of constraints of the search (Eq. 14
  /// of the LEAF-GP paper): the inner solver receives none, every model fit sees the
  /// objective plus known_penalty * (sum of squared row excesses in user units,
  /// `sdk::ReportsRowExcesses`, else violation^2), and a point violating them is evaluated
  /// and recorded as infeasible. The initial design is still projected onto them. 0: off.
  double known_penalty = 0.0;
  /// true: no proposal repeats an evaluated point (completed, failed or pending): model-based
  /// solvers add one no-good cut per such point, black-box ones skip them
  /// (`sdk::ExcludesEvaluated`; NN+MILP, Papalexopoulos et al. 2022, Sec. 3). Only on spaces
  /// without Real parameters. When every point satisfying the known constraints has been
  /// evaluated, the study ends cleanly ("every point has been evaluated").
  bool exclude_evaluated = false;
  /// What the surrogates see of the points still being evaluated when the study runs several
  /// evaluations at once (`[study] workers` > 1). Every solver receives them in
  /// `Dataset::X_pending` whatever the rule; the constant liars also add each one to the data
  /// the surrogates are fitted to, with a made-up ("lie") value per metric: the largest
  /// (worst, in minimization sense), the smallest (best) or the mean of the completed values
  /// (Ginsbourger, Le Riche & Carraro 2010, "Kriging is well-suited to parallelize
  /// optimization", Sec. 3.2, CL[max]/CL[min]/CL[mean]). `Ignore` fits the models to the
  /// completed observations only.
  enum class Pending { ConstantLiarWorst, ConstantLiarBest, ConstantLiarMean, Ignore };
  Pending pending = Pending::ConstantLiarWorst;
};

/// The TOML spelling of a pending rule ("constant_liar_worst", ...).
const char* to_string(ProposalOptions::Pending rule) noexcept;

/// The whole study definition.
struct Pipeline {
  std::string name;  ///< study name (default: the file's stem)
  std::uint64_t seed = 0;
  std::int64_t budget = 100;  ///< total evaluations, initial design included
  bool maximize = false;
  double time_limit_seconds = 0.0;  ///< 0 = none; wall clock of one `run` call
  /// Evaluations of an external command run at once (>= 1); a problem plugin is always
  /// evaluated one point at a time.
  std::int64_t workers = 1;
  ProblemSpec problem;
  std::vector<BlackBoxConstraint> black_box;  ///< external command: declared in TOML;
                                              ///< problem plugin: filled from the problem
  std::vector<ComponentSpec> known_constraints;
  DesignMethod design = DesignMethod::Sobol;
  std::int64_t design_size = 10;
  std::optional<ComponentSpec> surrogate;  ///< one instance per metric
  std::optional<ComponentSpec> acquisition;
  ComponentSpec inner_solver;
  /// Solver of auxiliary models for every component's `Context::model_solver()`: an
  /// inner-solver component that is also an `sdk::ModelSolver`. Default: the inner solver
  /// itself when it is one.
  std::optional<ComponentSpec> model_solver;
  Augmentation augmentation;
  ProposalOptions proposal;
  std::string source_path;  ///< file the pipeline came from (for messages), may be empty
};

/// How the loader looks up components (the registry, or a fake in tests).
struct ComponentLookup {
  /// Component info for (kind, name), or nullptr.
  std::function<const sdk::ComponentInfo*(sdk::Kind, std::string_view)> find;
  /// Valid names of a kind, for "did you mean".
  std::function<std::vector<std::string>(sdk::Kind)> names;
};

/// Parses and validates a pipeline.
/// @param text      TOML document
/// @param path      file name used in messages (need not exist)
/// @param overrides "key.path=value" strings (from `--set`); value parsed as a TOML value,
///                  falling back to a string
/// @throws ConfigError whose message names the file, line and key, shows the offending line
///         (toml11 format), and suggests the nearest valid key or plugin name.
Pipeline parse_pipeline(const std::string& text, const std::string& path,
                        const std::vector<std::string>& overrides, const ComponentLookup& lookup);

/// The text of an input file (`what`: "pipeline", "model"). @throws ConfigError naming the file
/// if it is a directory, cannot be read, or holds more than `max_bytes` (a FIFO or a device is
/// read only that far, so `/dev/zero` ends).
std::string read_input_file(const std::filesystem::path& file, std::string_view what,
                            std::size_t max_bytes);

/// The text of a pipeline file: `read_input_file` with the loader's limit (8 MiB).
std::string read_pipeline_file(const std::filesystem::path& file);

/// Reads `file` (`read_pipeline_file`) and calls `parse_pipeline`. @throws ConfigError if
/// unreadable.
Pipeline load_pipeline(const std::filesystem::path& file, const std::vector<std::string>& overrides,
                       const ComponentLookup& lookup);

/// Parameters of one component from "key=value" strings (`arbo solve --set`), each value read
/// as a TOML value (falling back to a string) and validated against `info.params()` like a
/// pipeline table's keys.
/// `given`, when not null, receives the names of the parameters the strings set (the rest
/// hold their defaults).
/// @throws ConfigError naming the offending `--set` and the expected domain or nearest key.
sdk::ParamSet read_component_params(const std::vector<std::string>& overrides,
                                    const sdk::ComponentInfo& info, const std::string& id,
                                    std::vector<std::string>* given = nullptr);

/// Writes a complete TOML document (all defaults explicit) that `parse_pipeline` reads back to
/// an identical pipeline. Doubles are written with round-trip precision.
std::string to_toml(const Pipeline& pipeline);

}  // namespace arbo::kernel
