// SPDX-License-Identifier: MIT
/// @file
/// @brief The kernel's two clocks (kernel-internal): a monotonic one for durations and the
/// wall clock for the timestamps a study stores.
#pragma once

#include <chrono>

namespace arbo::kernel {

using Clock = std::chrono::steady_clock;

/// Seconds elapsed since `t0` on the monotonic clock.
inline double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// Seconds since the Unix epoch (wall clock), as stored in created_at / finished_at.
inline double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace arbo::kernel
