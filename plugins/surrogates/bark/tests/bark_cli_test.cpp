// SPDX-License-Identifier: MIT
// surrogate/bark through the real `arbo` binary with a black-box acquisition (lcb maximized by
// random search; the integrated-UCB MIP is not part of this plugin): a study on the paper's
// DiscreteAckley13 (binary integers and reals) runs to its budget, and its proposals are the
// same for one worker thread and for one per chain.
#include <algorithm>
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

}  // namespace
