// SPDX-License-Identifier: MIT
// configs/gp-ei.toml through the real `arbo` binary on the built-in Branin problem: the study
// finishes and beats a bar that random search with the same budget and seed misses; the lcb
// and cwei pipelines run with the GP.
#include <algorithm>
#include <filesystem>
#include <limits>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/cli_harness.hpp"

namespace {

namespace fs = std::filesystem;
using arbo::test::CliResult;
using nlohmann::json;

class GpCli : public arbo::test::CliTest {
 protected:
  GpCli() : CliTest("arbo_gp_") {}

  // Best objective of a finished study, after checking it has `budget` complete observations.
  double best_of(const std::string& study, std::size_t budget) {
    const json obs = export_json(study);
    EXPECT_EQ(obs.size(), budget);
    double best = std::numeric_limits<double>::infinity();
    for (const json& o : obs) {
      EXPECT_EQ(o["status"], "complete") << o.dump();
      best = std::min(best, o["objective"].get<double>());
    }
    return best;
  }
};

constexpr int kBudget = 25;

// Branin's minimum is 0.397887. With 25 evaluations (4 of them the Sobol design) random search
// from the same seed ends 1.2 above it (best 1.61 at build c5eac11); the GP gets within 0.05
// (0.446). The bar between them, regret 0.5, is checked on both sides.
TEST_F(GpCli, GpEiConfigBeatsRandomSearchOnBranin) {
  const std::string budget = " --set study.budget=" + std::to_string(kBudget);
  const CliResult r =
      arbo(std::string("run ") + ARBO_SOURCE_DIR + "/configs/gp-ei.toml --study gp" + budget);
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const double gp = best_of("gp", kBudget);

  // Random search: the same study with the model stage replaced by uniform sampling.
  write("random.toml", R"([study]
seed = 1
[problem]
plugin = "branin"
[initial_design]
method = "sobol"
size = 4
[inner_solver]
plugin = "random"
)");
  const CliResult rr = arbo("run random.toml --study random" + budget);
  ASSERT_EQ(rr.code, 0) << rr.out << rr.err;
  const double random = best_of("random", kBudget);

  constexpr double kBar = 0.397887 + 0.5;
  EXPECT_LT(gp, kBar) << "random search: " << random;
  EXPECT_GT(random, kBar) << "gp: " << gp;
}

// configs/gp-ei.toml with lcb (which has no xi) in place of ei, and the Matern kernel.
TEST_F(GpCli, LcbAndMaternPipelinesRun) {
  std::string text = arbo::test::slurp(fs::path(ARBO_SOURCE_DIR) / "configs" / "gp-ei.toml");
  const std::string ei = "plugin = \"ei\"\nxi = 0.0\n";
  ASSERT_NE(text.find(ei), std::string::npos) << text;
  text.replace(text.find(ei), ei.size(), "plugin = \"lcb\"\n");
  write("lcb.toml", text);
  const CliResult r =
      arbo("run lcb.toml --study lcb --set study.budget=10 --set 'surrogate.kernel=\"matern52\"'");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const json obs = export_json("lcb");
  ASSERT_EQ(obs.size(), 10u);
  for (std::size_t i = 4; i < obs.size(); ++i) EXPECT_EQ(obs[i]["origin"], "model") << i;
}

// cwei on the constrained Branin: one GP per metric (objective and the disk constraint).
TEST_F(GpCli, CweiPipelineRunsOnAConstrainedProblem) {
  const CliResult r = arbo(std::string("run ") + ARBO_SOURCE_DIR +
                           "/configs/gp-ei.toml --study cwei --set study.budget=12 "
                           "--set acquisition.plugin=cwei "
                           "--set 'problem.plugin=\"branin_constrained\"'");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const json obs = export_json("cwei");
  ASSERT_EQ(obs.size(), 12u);
  int feasible = 0;
  for (std::size_t i = 4; i < obs.size(); ++i) {
    EXPECT_EQ(obs[i]["origin"], "model") << i;
    feasible += obs[i].value("feasible", false) ? 1 : 0;
  }
  EXPECT_GT(feasible, 0);
}

}  // namespace
