// SPDX-License-Identifier: MIT
// surrogate/bark through the real `arbo` binary: with a black-box acquisition (lcb maximized by
// random search) a study on the paper's DiscreteAckley13 (binary integers and reals) runs to
// its budget with the same proposals for one worker thread and for one per chain;
// configs/bark.toml and configs/bark-prior.toml pass `arbo check`; and configs/bark.toml (the
// integrated UCB solved by glpk_bnb), killed with SIGKILL after some model-based proposals and
// resumed, proposes exactly what the uninterrupted study proposes, because the chains' states
// were stored with each proposal; without them (the stored states deleted before resuming) the
// resumed study proposes otherwise, which shows the comparison can fail.
#include <sqlite3.h>
#include <sys/wait.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/cli_harness.hpp"

namespace {

using arbo::test::CliResult;
using nlohmann::json;

const char* kPipeline = R"([study]
seed = 5
budget = 14
[problem]
plugin = "discrete_ackley13"
[initial_design]
method = "random"
size = 8
[surrogate]
plugin = "bark"
burn_in = 100
sweeps = 60
thinning = 20
[acquisition]
plugin = "lcb"
[inner_solver]
plugin = "random"
samples = 500
)";

class BarkCli : public arbo::test::CliTest {
 protected:
  BarkCli() : CliTest("arbo_bark_") {}

  std::vector<std::string> points(const std::string& name, const std::string& extra) {
    write(name + ".toml", kPipeline);
    const CliResult r = arbo("run " + name + ".toml --study " + name + " " + extra);
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    std::vector<std::string> out;
    for (const json& o : export_json(name)) out.push_back(o["params"].dump());
    EXPECT_EQ(out.size(), 14u);
    return out;
  }
};

TEST_F(BarkCli, RunsToItsBudgetAndIgnoresTheThreadCount) {
  const auto one = points("one", "--set surrogate.threads=1");
  const auto four = points("four", "--set surrogate.threads=4");
  EXPECT_EQ(one, four);
  // Model-based proposals differ from one another (the chains move between iterations).
  std::vector<std::string> model(one.begin() + 8, one.end());
  std::sort(model.begin(), model.end());
  EXPECT_GT(std::unique(model.begin(), model.end()) - model.begin(), 1);
}

TEST_F(BarkCli, ConfigsPassCheck) {
  for (const char* config : {"bark", "bark-prior"}) {
    const CliResult r =
        arbo(std::string("check ") + ARBO_SOURCE_DIR + "/configs/" + config + ".toml");
    EXPECT_EQ(r.code, 0) << config << ": " << r.out << r.err;
  }
}

// configs/bark.toml made small enough for a test (10 trees, 2 chains, 4 samples), on
// DiscreteAckley13 with 6 initial points and 6 model-based proposals.
const std::string kSmall =
    std::string(ARBO_SOURCE_DIR) +
    "/configs/bark.toml --set problem.plugin=\"discrete_ackley13\" --set study.budget=12 "
    "--set initial_design.size=6 --set surrogate.num_trees=10 --set surrogate.chains=2 "
    "--set surrogate.burn_in=100 --set surrogate.sweeps=100 --set surrogate.thinning=50";

std::vector<std::string> params_of(const json& observations) {
  std::vector<std::string> out;
  for (const json& o : observations) out.push_back(o["params"].dump());
  return out;
}

TEST_F(BarkCli, AKilledStudyResumesFromTheStoredChainsAndProposesTheSame) {
  const CliResult whole = arbo("run " + kSmall + " --study whole -q");
  ASSERT_EQ(whole.code, 0) << whole.err;
  const auto expected = params_of(export_json("whole"));
  ASSERT_EQ(expected.size(), 12u);

  for (const bool drop_states : {false, true}) {
    const std::string study = drop_states ? "dropped" : "killed";
    // Killed when the 9th evaluation (the 3rd model-based proposal's) is recorded.
    std::vector<std::string> args{"run"};
    std::istringstream words(kSmall);
    for (std::string w; words >> w;) {
      if (w.front() == '"') w = w.substr(1, w.size() - 2);
      args.push_back(w);
    }
    for (const char* a : {"--study", study.c_str(), "-q"}) args.emplace_back(a);
    const pid_t pid = spawn(args, "export ARBO_TEST_SIGNAL_AT=run:recorded#9:KILL;");
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
    if (drop_states) {
      sqlite3* db = nullptr;
      ASSERT_EQ(sqlite3_open((dir_ / study / "study.db").c_str(), &db), SQLITE_OK);
      ASSERT_EQ(sqlite3_exec(db, "DELETE FROM surrogate_states", nullptr, nullptr, nullptr),
                SQLITE_OK);
      sqlite3_close(db);
    }
    const CliResult resumed = arbo("run --resume --study " + study + " -q");
    ASSERT_EQ(resumed.code, 0) << resumed.err;
    const auto got = params_of(export_json(study));
    ASSERT_EQ(got.size(), 12u);
    EXPECT_TRUE(std::equal(got.begin(), got.begin() + 9, expected.begin()))
        << "the observations recorded before the kill";
    if (drop_states) {
      EXPECT_NE(got, expected) << "without the stored chains the resumed study starts cold";
    } else {
      EXPECT_EQ(got, expected);
    }
  }
}

}  // namespace
