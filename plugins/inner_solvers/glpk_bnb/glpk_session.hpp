// SPDX-License-Identifier: MIT
/// @file
/// @brief Safe use of GLPK from C++: one plugin-wide lock, fatal errors turned into exceptions,
/// terminal output captured, the per-thread environment freed when a solve ends (P13).
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <type_traits>

#include <arbo/sdk/error.hpp>

#include "glpk_guard.h"

namespace arbo::plugins::glpk {

/// GLPK signalled a fatal error. Its environment was freed, so every `glp_prob` of the session
/// is gone; the message carries GLPK's own text.
class GlpkError : public sdk::Error {
 public:
  using sdk::Error::Error;
};

/// Exclusive use of GLPK for one solve. GLPK keeps global per-thread state and is not
/// re-entrant, so every solve of the plugin holds this lock; the environment is freed when the
/// session ends, after every problem object of the session has been deleted.
///
/// A parallel solve opens one more session in each of its helper threads with
/// `exclusive = false`: they run inside the solve's own exclusive session, and GLPK (when built
/// with thread-local storage, see `thread_local_environments`) gives every thread its own
/// environment.
class GlpkSession {
 public:
  using LogFn = std::function<void(std::string_view)>;
  /// `log` receives GLPK's terminal output line by line (empty: discarded).
  explicit GlpkSession(LogFn log = {}, bool exclusive = true);

  /// True when this GLPK keeps its environment per thread (built with thread-local storage),
  /// so that threads may each run their own problems at the same time.
  static bool thread_local_environments() noexcept;
  ~GlpkSession();
  GlpkSession(const GlpkSession&) = delete;
  GlpkSession& operator=(const GlpkSession&) = delete;

  /// Increases every time GLPK failed in this process; problem objects created under an older
  /// generation were freed with the environment.
  static std::uint64_t generation() noexcept;

  /// Runs `body()` (GLPK calls on plain data; it must not throw and must hold no object with a
  /// destructor, since a fatal error jumps out of it) with GLPK's error hook armed.
  /// @throws GlpkError naming `what` and quoting GLPK's message when GLPK failed.
  template <class F>
  void run(const char* what, F&& body) {
    using Body = std::remove_reference_t<F>;
    static_assert(std::is_trivially_destructible_v<Body>,
                  "a guarded GLPK body is skipped by longjmp on error: capture plain references");
    static_assert(std::is_nothrow_invocable_v<Body&>, "a guarded GLPK body must be noexcept");
    last_output_.clear();
    const int rc = arbo_glpk_guarded(&invoke<Body>, static_cast<void*>(&body), &term_hook, this);
    flush();
    if (rc != 0) fail(what);
  }

 private:
  template <class Body>
  static void invoke(void* data) {
    (*static_cast<Body*>(data))();
  }
  static int term_hook(void* info, const char* text);
  void flush();
  [[noreturn]] void fail(const char* what);

  std::unique_lock<std::mutex> lock_;
  LogFn log_;
  std::string output_;  // terminal text since the last flush
  std::string last_output_;
};

}  // namespace arbo::plugins::glpk
