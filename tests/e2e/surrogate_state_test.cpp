// SPDX-License-Identifier: MIT
// A surrogate's saved state (sdk::SavesState) through the real `arbo` binary and a real plugin
// .so: a study killed with SIGKILL after some model-based proposals and resumed proposes
// exactly what an uninterrupted study proposes, because the kernel stored the surrogate's state
// with each proposal and hands it back on resume. The same model without the capability is
// the control: its resumed study proposes differently, which shows that the state matters and
// that the comparison can fail. The test plugin passes the conformance kit, whose SavesState
// checks (round trip, damaged states refused) it exercises.
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <arbo/sdk/testing/conformance.hpp>

#include "common/cli_harness.hpp"
#include "common/study_rows.hpp"

namespace {

namespace fs = std::filesystem;

std::string pipeline(const std::string& surrogate) {
  return fmt::format(
      "[study]\nseed = 5\nbudget = 14\n[problem]\nplugin = \"branin\"\n"
      "[initial_design]\nsize = 4\n[surrogate]\nplugin = \"{}\"\n"
      "[acquisition]\nplugin = \"lcb\"\n[inner_solver]\nplugin = \"random\"\n",
      surrogate);
}

class SurrogateState : public arbo::test::TempDirTest {
 protected:
  SurrogateState() : TempDirTest("arbo_state_") {}

  // Runs `arbo <args>` in `dir` with the test plugins on the path and ARBO_TEST_SIGNAL_AT =
  // `hook` (empty: inert); returns the exit code (128 + signal when killed).
  int arbo(const fs::path& dir, const std::vector<std::string>& args,
           const std::string& hook = "") {
    const pid_t pid =
        arbo::test::spawn_arbo(dir, args,
                               {"ARBO_TEST_SIGNAL_AT=" + hook,
                                std::string("ARBO_PLUGIN_PATH=") + ARBO_STATEFUL_PLUGIN_DIR},
                               dir / "out.txt", dir / "err.txt");
    const int code = arbo::test::wait_exit_code(pid);
    last_err_ = arbo::test::slurp(dir / "err.txt");
    return code;
  }

  // The observations of an uninterrupted study of `surrogate`, and of one killed with SIGKILL
  // when its 8th evaluation (the 4th model-based proposal's) has been recorded, then resumed.
  void run_both(const std::string& surrogate, std::string& whole, std::string& resumed) {
    for (const bool kill : {false, true}) {
      const fs::path dir = dir_ / fmt::format("{}_{}", surrogate, kill ? "killed" : "whole");
      fs::create_directories(dir);
      std::ofstream(dir / "p.toml") << pipeline(surrogate);
      const int code =
          arbo(dir, {"run", "p.toml", "--study", "s", "-q"}, kill ? "run:recorded#8:KILL" : "");
      ASSERT_EQ(code, kill ? 128 + SIGKILL : 0) << last_err_;
      if (kill) {
        ASSERT_EQ(arbo(dir, {"run", "--resume", "--study", "s", "-q"}), 0) << last_err_;
      }
      (kill ? resumed : whole) = arbo::test::observation_rows(dir / "s" / "study.db");
    }
  }

  std::string last_err_;
};

TEST_F(SurrogateState, AResumedStudyContinuesFromTheSavedStateAndProposesTheSame) {
  std::string whole, resumed;
  run_both("chain", whole, resumed);
  EXPECT_EQ(std::count(whole.begin(), whole.end(), '\n'), 14) << whole;
  EXPECT_EQ(resumed, whole);
}

TEST_F(SurrogateState, WithoutTheStateTheResumedStudyProposesOtherPoints) {
  std::string whole, resumed;
  run_both("chain_unsaved", whole, resumed);
  ASSERT_EQ(std::count(whole.begin(), whole.end(), '\n'), 14) << whole;
  ASSERT_EQ(std::count(resumed.begin(), resumed.end(), '\n'), 14) << resumed;
  // The first 8 observations were recorded before the kill; the 9th is the first proposal
  // fitted without the lost phase.
  const auto prefix = [](const std::string& s, int lines) {
    std::size_t pos = 0;
    for (int i = 0; i < lines; ++i) pos = s.find('\n', pos) + 1;
    return s.substr(0, pos);
  };
  EXPECT_EQ(prefix(resumed, 8), prefix(whole, 8));
  EXPECT_NE(prefix(resumed, 9), prefix(whole, 9));
}

TEST(SurrogateStatePlugin, Conforms) {
  arbo::sdk::testing::expect_plugin_conforms(ARBO_STATEFUL_PLUGIN_SO);
}

}  // namespace
