// SPDX-License-Identifier: MIT
// Shared by the harnesses: what to do with an exception the code under test should not throw.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <exception>

namespace arbo::fuzz {

/// With ARBO_FUZZ_STRICT=1 an unexpected exception type, or a broken round trip, is a finding
/// (abort, so libFuzzer saves the input); by default it is ignored so that a run goes on
/// looking for crashes, leaks and hangs, which are what the issue asks the harnesses to prove
/// absent.
inline bool strict() {
  static const bool on = [] {
    const char* v = std::getenv("ARBO_FUZZ_STRICT");
    return v != nullptr && v[0] == '1';
  }();
  return on;
}

[[noreturn]] inline void finding(const char* what, const char* detail) {
  std::fprintf(stderr, "arbo fuzz finding: %s: %s\n", what, detail);
  std::abort();
}

inline void unexpected(const std::exception& e) {
  if (strict()) finding("unexpected exception", e.what());
}

}  // namespace arbo::fuzz
