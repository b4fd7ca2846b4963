// SPDX-License-Identifier: MIT
// configs/nn-milp.toml through the real `arbo` binary and real .so files, with few epochs and a
// small budget: model iterations are solved to proven optimality over a formulation with
// binaries, and `arbo check` refuses a space relu_net cannot encode, naming the parameter.
#include <sys/wait.h>

#include <csignal>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/cli_harness.hpp"

namespace {

using arbo::test::CliResult;
using nlohmann::json;

class ReluNetCli : public arbo::test::CliTest {
 protected:
  ReluNetCli() : CliTest("arbo_relu_net_") {}
};

const std::string kConfig = std::string(ARBO_SOURCE_DIR) + "/configs/nn-milp.toml";

TEST_F(ReluNetCli, NnMilpRunsWithProvenOptimalProposals) {
  // bbob_sphere: 10 categoricals of 10 levels (100 inputs), minimized.
  const CliResult r =
      arbo("run " + kConfig +
           " --study s --set problem.plugin=bbob_sphere --set study.direction=minimize"
           " --set study.budget=14 --set initial_design.size=10"
           " --set surrogate.epochs=300 --set inner_solver.threads=1");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const json obs = export_json("s");
  ASSERT_EQ(obs.size(), 14u);
  for (std::size_t i = 10; i < obs.size(); ++i) {
    EXPECT_EQ(obs[i]["status"], "complete");
    EXPECT_EQ(obs[i]["origin"], "model");
    ASSERT_TRUE(obs[i].contains("solver")) << obs[i].dump();
    const json& s = obs[i]["solver"];
    EXPECT_EQ(s["status"], "optimal") << s.dump();
    // 100 one-hot binaries at least, plus the unstable neurons' indicators.
    EXPECT_GE(s["binaries"].get<int>(), 100) << s.dump();
    EXPECT_GE(s["best_bound"].get<double>(), s["objective"].get<double>() - 1e-9) << s.dump();
  }
}

TEST_F(ReluNetCli, CheckRefusesASpaceTooWideNamingTheParameter) {
  const CliResult ok = arbo("check " + kConfig);
  EXPECT_EQ(ok.code, 0) << ok.out << ok.err;
  // random_mlp: 25 categoricals p0..p24 of 5 letters; 60 inputs hold 12 of them, p12 is the
  // 13th.
  const CliResult r = arbo("check " + kConfig + " --set surrogate.max_inputs=60");
  EXPECT_NE(r.code, 0) << r.out;
  EXPECT_NE(r.err.find("'p12'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("relu_net"), std::string::npos) << r.err;
}

std::vector<std::string> params_of(const json& observations) {
  std::vector<std::string> out;
  for (const json& o : observations) out.push_back(o["params"].dump());
  return out;
}

TEST_F(ReluNetCli, AKilledStudyResumesToTheSameProposals) {
  // Every fit draws its initialization and batch orders from the iteration's stream, so a
  // study killed after its 12th evaluation and resumed proposes what the whole run proposes.
  const std::vector<std::string> small{"--set", "problem.plugin=bbob_sphere",
                                       "--set", "study.direction=minimize",
                                       "--set", "study.budget=15",
                                       "--set", "initial_design.size=10",
                                       "--set", "surrogate.epochs=300",
                                       "--set", "inner_solver.threads=1"};
  std::string joined;
  for (const std::string& w : small) joined += " " + w;
  const CliResult whole = arbo("run " + kConfig + joined + " --study whole -q");
  ASSERT_EQ(whole.code, 0) << whole.err;
  const auto expected = params_of(export_json("whole"));
  ASSERT_EQ(expected.size(), 15u);
  std::vector<std::string> args{"run", kConfig};
  args.insert(args.end(), small.begin(), small.end());
  for (const char* a : {"--study", "killed", "-q"}) args.emplace_back(a);
  const pid_t pid = spawn(args, "export ARBO_TEST_SIGNAL_AT=run:recorded#12:KILL;");
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
  const CliResult resumed = arbo("run --resume --study killed -q");
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_EQ(params_of(export_json("killed")), expected);
  // Another seed proposes otherwise after the design: the comparison can fail.
  const CliResult other = arbo("run " + kConfig + joined + " --set study.seed=2 --study other -q");
  ASSERT_EQ(other.code, 0) << other.err;
  EXPECT_NE(params_of(export_json("other")), expected);
}

}  // namespace
