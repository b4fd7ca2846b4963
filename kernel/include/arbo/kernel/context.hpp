// SPDX-License-Identifier: MIT
/// @file
/// @brief The kernel's implementation of `sdk::Context`, one instance per component.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <random>
#include <string>

#include "arbo/sdk/context.hpp"

namespace spdlog {
class logger;
}

namespace arbo::kernel {

/// Context of one component: its own log tag and random stream, the study's interrupt flag and
/// deadline, and the pipeline's model solver.
class KernelContext final : public sdk::Context {
 public:
  KernelContext(std::string component_id, std::shared_ptr<spdlog::logger> logger,
                const std::atomic<bool>* interrupt);

  void log(sdk::LogLevel level, std::string_view message) override;
  std::mt19937_64& rng() override { return rng_; }
  bool cancelled() const override;
  double seconds_left() const override;
  sdk::ModelSolver* model_solver() override { return model_solver_; }

  /// Reseeds the random stream from a hash of (seed, stream, salt), so that every iteration of
  /// every component has an independent, reproducible stream. O(1), under a microsecond.
  void reseed(std::uint64_t seed, std::uint64_t stream, std::uint64_t salt);
  /// Sets the deadline of the current call (steady clock); `seconds <= 0` means none.
  void set_budget(double seconds);
  void set_model_solver(sdk::ModelSolver* solver) { model_solver_ = solver; }
  /// The flag `cancelled()` reads (null: none): the study points every context at the flag of
  /// the run in progress.
  void set_interrupt(const std::atomic<bool>* interrupt) noexcept { interrupt_ = interrupt; }
  const std::string& component_id() const noexcept { return id_; }

 private:
  std::string id_;
  std::shared_ptr<spdlog::logger> logger_;
  const std::atomic<bool>* interrupt_;
  std::mt19937_64 rng_;
  std::chrono::steady_clock::time_point deadline_ = std::chrono::steady_clock::time_point::max();
  sdk::ModelSolver* model_solver_ = nullptr;
};

/// A logger writing to `file` (all levels from info; empty path = none) and to stderr (warnings
/// and errors, or everything from info when `verbose`).
std::shared_ptr<spdlog::logger> make_logger(const std::string& name, const std::string& file,
                                            bool verbose);

}  // namespace arbo::kernel
