// SPDX-License-Identifier: MIT
/// @file
/// @brief Test-only fault injection at named points of a study's life (kernel-internal).
///
/// Inert unless the environment variable `ARBO_TEST_SIGNAL_AT` is set to `POINT[#N][:SIGNAL]`:
/// the N-th time (default 1) the process passes POINT, it sends itself SIGNAL (`KILL`, the
/// default, `INT`, `TERM` or `STOP`). The crash-safety tests use it to kill a driver exactly
/// inside the creation of a study, where a kill at a random moment rarely lands, and to hold a
/// driver still (`STOP`) while another process tries to drive the same study. The points, in
/// the order a run passes them:
///
///   create:locked     `Study::create`: the directory is locked, nothing is written yet
///   create:schema     the database and its schema exist, not committed
///   create:built      the components are built
///   create:meta       the pipeline and the metadata are written, not committed
///   create:committed  the study is complete
///   open:locked       `Study::open`: the study is locked, nothing is read yet
///   open:loaded       its pipeline is built and its observations are loaded
///   run:pending       a proposal was recorded as pending, before its evaluation
///   run:recorded      an evaluation's result was recorded
///   slurm:submitted   sbatch accepted an evaluation's job, whose id is not yet written
///
/// Reading the variable costs one getenv per process; a point costs one comparison.
#pragma once

#include <signal.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace arbo::kernel {

/// Sends the signal named by ARBO_TEST_SIGNAL_AT when `point` is its point (see the file
/// comment); does nothing otherwise.
inline void test_signal_point(std::string_view point) {
  struct Hook {
    std::string point;
    long count = 1;
    int signal = SIGKILL;
    std::atomic<long> seen{0};
  };
  static Hook* const hook = []() -> Hook* {
    const char* env = std::getenv("ARBO_TEST_SIGNAL_AT");
    if (env == nullptr || *env == '\0') return nullptr;
    auto* h = new Hook;  // never freed: a signal may be due during static destruction
    std::string spec = env;
    if (const auto colon = spec.rfind(':'); colon != std::string::npos) {
      const std::string name = spec.substr(colon + 1);
      const bool known = name == "KILL" || name == "INT" || name == "TERM" || name == "STOP";
      if (known) {
        h->signal = name == "KILL"   ? SIGKILL
                    : name == "INT"  ? SIGINT
                    : name == "TERM" ? SIGTERM
                                     : SIGSTOP;
        spec.resize(colon);
      }
    }
    if (const auto hash = spec.find('#'); hash != std::string::npos) {
      h->count = std::strtol(spec.c_str() + hash + 1, nullptr, 10);
      spec.resize(hash);
    }
    if (h->count < 1) {
      std::fprintf(stderr, "arbo: warning: ARBO_TEST_SIGNAL_AT=%s: the count must be >= 1\n", env);
      delete h;
      return nullptr;
    }
    h->point = spec;
    return h;
  }();
  if (hook == nullptr || point != hook->point) return;
  if (hook->seen.fetch_add(1) + 1 == hook->count) ::raise(hook->signal);
}

}  // namespace arbo::kernel
