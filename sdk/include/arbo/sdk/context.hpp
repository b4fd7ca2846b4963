// SPDX-License-Identifier: MIT
/// @file
/// @brief What the kernel gives every component: logging, randomness, time, the model solver.
#pragma once

#include <cstdint>
#include <random>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "arbo/sdk/export.hpp"

namespace arbo::sdk {

class ModelSolver;

/// Severity of a log message. The CLI prints Warn and Error on stderr (everything from Debug
/// with `--verbose`); the study's log file gets everything from Info. Trace is never written
/// by the CLI: use it for per-point detail that only a debugger session wants.
enum class LogLevel { Trace, Debug, Info, Warn, Error };

/// Services of the kernel, valid for the lifetime of the component that received it. Every
/// component has its own Context (its own log tag and random stream).
///
/// The kernel calls components from one thread at a time; a component that starts its own
/// threads must not call the Context from them, except `cancelled()` and `seconds_left()`,
/// which are thread-safe. The kernel's implementation is `kernel::KernelContext`; tests of a
/// plugin use `testing::TestContext` (testing/conformance.hpp), seeded by its constructor.
class ARBO_SDK_API Context {
 public:
  virtual ~Context();

  /// Writes a message to the study's log, tagged with the calling component's id:
  /// "[surrogate/tree_gp] message". Messages are one line each, without a trailing newline.
  virtual void log(LogLevel level, std::string_view message) = 0;

  /// Random engine of the current iteration. The kernel reseeds it at the start of every
  /// iteration from (study seed, iteration number, a salt of the component's role: surrogate
  /// of metric m, acquisition, inner solver, known constraint), so a resumed study proposes
  /// exactly what an uninterrupted one would. Components must draw all randomness from it
  /// (never from std::random_device,
  /// the time or a static engine); the draws of one call may depend only on the engine's state
  /// and the call's inputs.
  virtual std::mt19937_64& rng() = 0;

  /// True once the user interrupted the study or the current call's time budget is spent.
  /// Long computations should poll it and return their best result so far (or throw
  /// `Cancelled` when they have none). Thread-safe; costs one clock read.
  virtual bool cancelled() const = 0;

  /// Seconds left in the current call's budget; +infinity when unlimited. Today only the
  /// inner solver has a budget: the rest of the study's `time_limit`, when one is set. May
  /// be negative once the budget is spent. Thread-safe.
  virtual double seconds_left() const = 0;

  /// The pipeline's model solver, for auxiliary models (projection, bound tightening); nullptr
  /// when the pipeline has none. Owned by the kernel; valid as long as the Context.
  virtual ModelSolver* model_solver() = 0;

  /// `log(LogLevel::Debug, fmt::format(format, args...))`; the format string is checked at
  /// compile time. Formatting happens even when the level is filtered out, so keep debug
  /// messages out of hot loops.
  template <class... Args>
  void debug(fmt::format_string<Args...> format, Args&&... args) {
    log(LogLevel::Debug, fmt::format(format, std::forward<Args>(args)...));
  }
  /// `log(LogLevel::Info, ...)` with a compile-time checked format string.
  template <class... Args>
  void info(fmt::format_string<Args...> format, Args&&... args) {
    log(LogLevel::Info, fmt::format(format, std::forward<Args>(args)...));
  }
  /// `log(LogLevel::Warn, ...)` with a compile-time checked format string: something the user
  /// should see (the CLI prints it), e.g. a fallback that changes what the method does.
  template <class... Args>
  void warn(fmt::format_string<Args...> format, Args&&... args) {
    log(LogLevel::Warn, fmt::format(format, std::forward<Args>(args)...));
  }
};

}  // namespace arbo::sdk
