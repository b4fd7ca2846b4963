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

enum class LogLevel { Trace, Debug, Info, Warn, Error };

/// Services of the kernel, valid for the lifetime of the component that received it.
///
/// The kernel calls components from one thread at a time; a component that starts its own
/// threads must not call the Context from them, except `cancelled()` and `seconds_left()`,
/// which are thread-safe.
class ARBO_SDK_API Context {
 public:
  virtual ~Context();

  /// Writes a message to the study's log, tagged with the calling component's id.
  virtual void log(LogLevel level, std::string_view message) = 0;

  /// Random engine of the current iteration. The kernel reseeds it at the start of every
  /// iteration from (study seed, iteration number), so a resumed study proposes exactly what
  /// an uninterrupted one would. Components must draw all randomness from it.
  virtual std::mt19937_64& rng() = 0;

  /// True once the user interrupted the study or the iteration's time budget is spent.
  /// Long computations should poll it and return their best result so far. Thread-safe.
  virtual bool cancelled() const = 0;

  /// Seconds left in the current call's budget; +infinity when unlimited. Thread-safe.
  virtual double seconds_left() const = 0;

  /// The pipeline's model solver, for auxiliary models (projection, bound tightening); nullptr
  /// when the pipeline has none.
  virtual ModelSolver* model_solver() = 0;

  template <class... Args>
  void debug(fmt::format_string<Args...> format, Args&&... args) {
    log(LogLevel::Debug, fmt::format(format, std::forward<Args>(args)...));
  }
  template <class... Args>
  void info(fmt::format_string<Args...> format, Args&&... args) {
    log(LogLevel::Info, fmt::format(format, std::forward<Args>(args)...));
  }
  template <class... Args>
  void warn(fmt::format_string<Args...> format, Args&&... args) {
    log(LogLevel::Warn, fmt::format(format, std::forward<Args>(args)...));
  }
};

}  // namespace arbo::sdk
