// SPDX-License-Identifier: MIT
/// @file
/// @brief Kernel error types. Each maps to one documented CLI exit code (see README).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace arbo::kernel {

/// Process exit codes of the `arbo` CLI.
enum ExitCode : int {
  kExitOk = 0,
  kExitInternal = 1,       ///< unexpected failure (a bug)
  kExitUsage = 2,          ///< bad command line
  kExitConfig = 3,         ///< invalid pipeline file, unknown plugin or parameter
  kExitPlugin = 4,         ///< a plugin failed to load, or threw during the study
  kExitStudy = 5,          ///< study directory missing, already exists, locked or damaged
  kExitInfeasible = 6,     ///< known constraints admit no point that could be found
  kExitOutput = 7,         ///< standard output or an --output file could not be written
  kExitInterrupted = 130,  ///< SIGINT/SIGTERM/SIGHUP: the study is intact and resumable
};

/// Base of kernel errors; `exit_code()` is what the CLI returns.
class KernelError : public std::runtime_error {
 public:
  KernelError(const std::string& message, int exit_code)
      : std::runtime_error(message), exit_code_(exit_code) {}
  int exit_code() const noexcept { return exit_code_; }

 private:
  int exit_code_;
};

/// Invalid configuration. The message already names file, line and key.
class ConfigError : public KernelError {
 public:
  explicit ConfigError(const std::string& message) : KernelError(message, kExitConfig) {}
};

/// A plugin could not be loaded or created, or threw from a method. The message names the
/// component id (or library path), the method and the plugin's own message.
class PluginError : public KernelError {
 public:
  explicit PluginError(const std::string& message) : KernelError(message, kExitPlugin) {}
};

/// The study store could not be created, opened, locked or written.
class StudyError : public KernelError {
 public:
  explicit StudyError(const std::string& message) : KernelError(message, kExitStudy) {}
};

/// No point satisfying the known constraints could be found.
class InfeasibleError : public KernelError {
 public:
  explicit InfeasibleError(const std::string& message) : KernelError(message, kExitInfeasible) {}
};

/// With `[proposal] exclude_evaluated`: every point of the space that satisfies the known
/// constraints has been evaluated, so no proposal is left. Not a failure: `arbo run` ends the
/// study with it (exit 0, "every point has been evaluated"); only `arbo ask` reports it as an
/// exit code, since it cannot return a point.
class ExhaustedError : public KernelError {
 public:
  explicit ExhaustedError(const std::string& message) : KernelError(message, kExitInfeasible) {}
};
/// The user interrupted the work (SIGINT, SIGTERM, SIGHUP) before it could finish; what was
/// stored is intact (an evaluation cut short stays pending) and `--resume` continues.
class InterruptedError : public KernelError {
 public:
  explicit InterruptedError(const std::string& message) : KernelError(message, kExitInterrupted) {}
};

/// Standard output or an output file could not be written (a full disk, a closed pipe). The
/// message names the destination and the system's reason; the study itself is not affected.
class OutputError : public KernelError {
 public:
  explicit OutputError(const std::string& message) : KernelError(message, kExitOutput) {}
};

/// The one shape of every message about a component's failure:
/// `<kind>/<name>: <method>(): <what>`, e.g. `surrogate/tree_gp: fit(): matrix not positive
/// definite`. `component_id` is the component's id ("kind/name"), `method` the called method
/// without parentheses. A `what` that already begins with the component's own prefix (a plugin
/// that names itself, as `[kind/name] method(): ...` or `kind/name: method(): ...`) is not
/// prefixed twice. Each line of `what` is cut to 2000 bytes (`sdk::excerpt_lines`), since a
/// plugin may quote a long value whole. O(message length).
std::string component_error(std::string_view component_id, std::string_view method,
                            std::string_view what);

}  // namespace arbo::kernel
