// SPDX-License-Identifier: MIT
/// @file
/// @brief Kernel-side proxies that let an error thrown by a surrogate or an acquisition while
/// another plugin (the inner solver, or the acquisition) calls it name that component.
///
/// The inner solver calls the acquisition, which calls the surrogates, without the kernel in
/// between, so the kernel's guard around `maximize` would blame the solver for whatever it
/// catches. The engine therefore hands the solver and the acquisition proxies instead of the
/// plugins' objects. A proxy forwards every call unchanged; when the call throws it records
/// (component id, method, message) in a `FaultRecorder` and rethrows the *original* exception
/// (`throw;`), so the calling plugin sees exactly what it saw before. The guard around the
/// outer call then asks the recorder whether the exception that reached it is the recorded one
/// (the same object, or a message containing the recorded message) and names that component.
///
/// Plugins discover capabilities with `dynamic_cast`, so a proxy implements exactly the
/// capability interfaces the wrapped object implements (a class template over the capability
/// set, instantiated for the combination found at load time); numerics and proposals are
/// unchanged. Cost per call: one virtual call and an inactive try block, no allocation.
/// A capability added to the SDK must be added to the lists in guarded_components.cpp, or the
/// proxy hides it.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "arbo/sdk/acquisition.hpp"
#include "arbo/sdk/surrogate.hpp"

namespace arbo::kernel {

/// The innermost proxied component that threw during one guarded call. Thread-safe (a solver
/// may call the acquisition from several threads); only the exception path takes the lock.
class FaultRecorder {
 public:
  /// Forgets the last record. Called before each guarded call whose callee reaches proxies.
  void clear() noexcept;
  /// Records that `component_id`.`method` threw `e` (null for a non-std exception). An
  /// exception that already has a record (it passed an inner proxy first: a surrogate called
  /// by the acquisition) keeps it, so the innermost component is named. Never throws.
  void record(std::string_view component_id, std::string_view method,
              const std::exception* e) noexcept;
  /// The message (`component_error` shape) naming the recorded component when the exception
  /// caught by a guard (`e`, null for a non-std one, with text `what`) is the recorded one:
  /// the same object with the same text, or a text that contains the recorded text (a caller
  /// that wrapped it). Otherwise nullopt: the guarded component is to blame.
  std::optional<std::string> blame(const std::exception* e, std::string_view what) const;

 private:
  bool matches(const void* address, std::string_view what) const;

  mutable std::mutex mutex_;
  bool recorded_ = false;
  const void* address_ = nullptr;
  std::string component_;
  std::string method_;
  std::string what_;
};

/// How many points a proxied acquisition evaluated since `reset()`, and the lowest and highest
/// of the values it returned (NaN ignored). The kernel reads it after each black-box solve to
/// tell the user when the solver saw a constant acquisition, which makes the proposal no better
/// than a random point. Thread-safe without locks (a solver may evaluate from several threads);
/// one relaxed update per point.
class ValueRange {
 public:
  /// Forgets everything; called before each solve.
  void reset() noexcept;
  /// Counts one evaluated point with value `v`.
  void add(double v) noexcept;
  /// Points evaluated since the last reset.
  std::int64_t count() const noexcept { return count_.load(std::memory_order_relaxed); }
  /// Lowest and highest non-NaN value (+inf and -inf when there is none).
  double lowest() const noexcept { return lowest_.load(std::memory_order_relaxed); }
  double highest() const noexcept { return highest_.load(std::memory_order_relaxed); }
  /// True when at least two points were evaluated and every non-NaN value was the same.
  bool constant() const noexcept { return count() >= 2 && lowest() == highest(); }

 private:
  std::atomic<std::int64_t> count_{0};
  std::atomic<double> lowest_{0.0};
  std::atomic<double> highest_{0.0};
};

/// A proxy of `surrogate` (named `component_id` in messages) with exactly its capabilities.
/// The proxy holds `surrogate` alive; `recorder` must outlive it.
std::shared_ptr<sdk::Surrogate> make_guarded_surrogate(std::shared_ptr<sdk::Surrogate> surrogate,
                                                       std::string component_id,
                                                       FaultRecorder& recorder);

/// A proxy of `acquisition` with exactly its capabilities; see `make_guarded_surrogate`. Every
/// value it returns through `value`/`values` is also added to `range`, which must outlive it.
std::shared_ptr<sdk::Acquisition> make_guarded_acquisition(
    std::shared_ptr<sdk::Acquisition> acquisition, std::string component_id,
    FaultRecorder& recorder, ValueRange& range);

}  // namespace arbo::kernel
