// SPDX-License-Identifier: MIT
// configs/nn-milp.toml through the real `arbo` binary and real .so files, with few epochs and a
// small budget: model iterations are solved to proven optimality over a formulation with
// binaries, and `arbo check` refuses a space relu_net cannot encode, naming the parameter.
#include <string>

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

}  // namespace
