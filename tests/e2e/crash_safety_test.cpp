// SPDX-License-Identifier: MIT
// Crash safety through the real `arbo` binary: the driver is killed (SIGKILL) or interrupted
// (SIGINT) at every named point of a study's life, its creation included, through the
// test-only hook ARBO_TEST_SIGNAL_AT (kernel/src/util/test_hook.hpp), and at seeded moments
// spread over an uninterrupted run's duration. After each, the study directory holds either a
// complete study or none (a reader says "holds no study", never a half-made one), and resuming
// it, or running the pipeline again when it holds none, ends with exactly the observations of
// an uninterrupted run. The cases run in parallel, each in its own directory.
#include <signal.h>
#include <sqlite3.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "common/cli_harness.hpp"
#include "common/study_rows.hpp"

namespace {

namespace fs = std::filesystem;

const std::string kPipeline = arbo::test::random_search_pipeline(11, 12);

struct Outcome {
  int code = -1;  ///< exit status, or 128 + the signal that ended the process
  std::string err;
};

// Runs `arbo <args>` in `dir` with ARBO_TEST_SIGNAL_AT = `hook` (empty: inert) and waits for
// it; with `kill_after` >= 0, sends it `signal` that many milliseconds after the start. Safe to
// call from several threads.
Outcome run_arbo(const fs::path& dir, const std::vector<std::string>& args,
                 const std::string& hook = "", int kill_after = -1, int signal = SIGKILL) {
  static std::atomic<int> counter{0};
  const fs::path err = dir / fmt::format("run{}.err", counter++);
  const pid_t pid =
      arbo::test::spawn_arbo(dir, args, {"ARBO_TEST_SIGNAL_AT=" + hook}, "/dev/null", err);
  Outcome o;
  if (pid <= 0) return o;  // never kill(-1, ...)
  if (kill_after >= 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(kill_after));
    ::kill(pid, signal);  // nothing happens if it already ended
  }
  o.code = arbo::test::wait_exit_code(pid);
  o.err = arbo::test::slurp(err);
  return o;
}

struct Case {
  std::string name;
  std::vector<std::string> args;  ///< the run that is broken
  std::string hook;               ///< ARBO_TEST_SIGNAL_AT, or empty for a timed signal
  int expected_code = -1;         ///< how that run ends (-1: any, for timed signals)
  bool init_first = false;        ///< the study is created by `arbo init` beforehand
  int kill_after = -1;            ///< ms, for timed signals
  int signal = SIGKILL;
};

// Runs one case in `root`/<name>; returns what went wrong, empty when nothing did.
std::string run_case(const fs::path& root, const Case& c, const std::string& reference) {
  const fs::path dir = root / c.name;
  fs::create_directories(dir);
  std::ofstream(dir / "p.toml") << kPipeline;
  if (c.init_first) {
    const Outcome init = run_arbo(dir, {"init", "p.toml", "--study", "s"});
    if (init.code != 0) return "init failed: " + init.err;
  }
  const Outcome broken = run_arbo(dir, c.args, c.hook, c.kill_after, c.signal);
  if (c.expected_code >= 0 && broken.code != c.expected_code) {
    return fmt::format("the broken run ended with {}, expected {}: {}", broken.code,
                       c.expected_code, broken.err);
  }
  // Either a complete study, or none: never one that a reader calls half-made.
  const Outcome show = run_arbo(dir, {"show", "s"});
  const bool complete = show.code == 0;
  if (!complete && (show.code != 5 || (show.err.find("holds no study") == std::string::npos &&
                                       show.err.find("no study in") == std::string::npos))) {
    return fmt::format("after the break, show exits {}: {}", show.code, show.err);
  }
  const Outcome again = complete ? run_arbo(dir, {"run", "--resume", "--study", "s", "-q"})
                                 : run_arbo(dir, {"run", "p.toml", "--study", "s", "-q"});
  if (again.code != 0) {
    return fmt::format("{} exits {}: {}", complete ? "resume" : "a new run", again.code, again.err);
  }
  const std::string got = arbo::test::observation_rows(dir / "s" / "study.db");
  if (got != reference) return "the observations differ:\n" + got + "expected:\n" + reference;
  std::error_code ec;
  fs::remove_all(dir, ec);
  return {};
}

class CrashSafety : public arbo::test::TempDirTest {
 protected:
  CrashSafety() : TempDirTest("arbo_crash_") {}
};

TEST_F(CrashSafety, EveryBreakLeavesNoStudyOrOneThatResumesToTheUninterruptedResult) {
  const fs::path ref_dir = dir_ / "reference";
  fs::create_directories(ref_dir);
  std::ofstream(ref_dir / "p.toml") << kPipeline;
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(run_arbo(ref_dir, {"run", "p.toml", "--study", "s", "-q"}).code, 0);
  const auto run_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0)
          .count();
  const std::string reference = arbo::test::observation_rows(ref_dir / "s" / "study.db");
  ASSERT_EQ(std::count(reference.begin(), reference.end(), '\n'), 12) << reference;

  const std::vector<std::string> run = {"run", "p.toml", "--study", "s", "-q"};
  const std::vector<std::string> resume = {"run", "--resume", "--study", "s", "-q"};
  std::vector<Case> cases;
  for (const auto& [sig, name, killed] :
       {std::tuple{SIGKILL, "KILL", 128 + SIGKILL}, std::tuple{SIGINT, "INT", 128 + SIGINT}}) {
    // SIGINT before the run loop ends the process (128 + 2); in the loop it stops the run
    // cleanly after the current evaluation with exit 130, the same number.
    for (const char* point :
         {"create:locked", "create:schema", "create:built", "create:meta", "create:committed"}) {
      cases.push_back(
          {fmt::format("{}_{}", point, name), run, fmt::format("{}:{}", point, name), killed});
    }
    cases.push_back({fmt::format("init_create:meta_{}", name),
                     {"init", "p.toml", "--study", "s"},
                     fmt::format("create:meta:{}", name),
                     killed});
    for (const char* point : {"open:locked", "open:loaded"}) {
      cases.push_back({fmt::format("{}_{}", point, name), resume, fmt::format("{}:{}", point, name),
                       killed, true});
    }
    for (const char* point : {"run:pending#1", "run:pending#6", "run:recorded#3"}) {
      cases.push_back(
          {fmt::format("{}_{}", point, name), run, fmt::format("{}:{}", point, name), killed});
    }
    // Interrupted after the last evaluation, the run has nothing left to stop: it ends well.
    cases.push_back({fmt::format("run:recorded#12_{}", name), run,
                     fmt::format("run:recorded#12:{}", name), sig == SIGKILL ? killed : 0});
  }
  // Seeded moments over the uninterrupted run's duration, alternately SIGKILL and SIGINT.
  std::mt19937 rng(23);
  std::uniform_int_distribution<int> moment(0, static_cast<int>(std::max<long>(run_ms, 20)));
  for (int k = 0; k < 8; ++k) {
    Case c{fmt::format("timed{}", k), run, "", -1};
    c.kill_after = moment(rng);
    c.signal = k % 2 == 0 ? SIGKILL : SIGINT;
    cases.push_back(c);
  }

  std::vector<std::string> failures(cases.size());
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> workers;
  for (int w = 0; w < 4; ++w) {
    workers.emplace_back([&] {
      for (std::size_t i = next++; i < cases.size(); i = next++) {
        failures[i] = run_case(dir_, cases[i], reference);
      }
    });
  }
  for (auto& t : workers) t.join();
  for (std::size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(failures[i], "") << cases[i].name
                               << (cases[i].kill_after >= 0
                                       ? fmt::format(" (signal after {} ms)", cases[i].kill_after)
                                       : "");
  }
}

}  // namespace
