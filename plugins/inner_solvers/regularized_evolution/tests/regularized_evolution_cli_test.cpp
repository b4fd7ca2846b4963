// SPDX-License-Identifier: MIT
// Model-free ConEvo (Papalexopoulos et al. 2022, App. C.6) on problem/ising100 through the real
// `arbo` binary, its ten fine-balance equalities being constraint/polynomial components: every
// proposal keeps every balance without a projection, no point is proposed twice, and the
// proposals depend only on the seed (a rerun and a resumed study propose the same points).
// The initial design keeps the balances by construction (sdk::balance_from_unit), so neither
// ConEvo nor random search, the benchmark's model-free baselines, needs a model solver.
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/cli_harness.hpp"

namespace {

using arbo::test::CliResult;
using nlohmann::json;

// The paper's protocol in small: uniform random feasible initial points (fewer than 1e-6 of all
// points are feasible: the design draws them exactly, Sec. 5.2), then RegEvo's outer loop, which
// finds the balance equalities and runs ConEvo; or random search.
std::string pipeline(int seed, int budget, const std::string& solver = "regularized_evolution",
                     bool model_solver = true) {
  return "[study]\nseed = " + std::to_string(seed) + "\nbudget = " + std::to_string(budget) +
         R"(
direction = "maximize"
[problem]
plugin = "ising100"
[initial_design]
method = "random"
size = 8
[inner_solver]
plugin = ")" +
         solver + "\"\n" + (model_solver ? "[model_solver]\nplugin = \"glpk_bnb\"\n" : "");
}

bool bit(const json& params, int i) { return params.at("x" + std::to_string(i)).get<bool>(); }

// Number of the ten balances sum(x[10j .. 10j+4]) == sum(x[10j+5 .. 10j+9]) that hold.
int balances_kept(const json& params) {
  int kept = 0;
  for (int j = 0; j < 10; ++j) {
    int a = 0, b = 0;
    for (int k = 0; k < 5; ++k) {
      a += bit(params, 10 * j + k) ? 1 : 0;
      b += bit(params, 10 * j + 5 + k) ? 1 : 0;
    }
    kept += a == b ? 1 : 0;
  }
  return kept;
}

class RegEvoCli : public arbo::test::CliTest {
 protected:
  RegEvoCli() : CliTest("arbo_regevo_") {}

  std::vector<std::string> params(const std::string& study) {
    std::vector<std::string> out;
    for (const json& o : export_json(study)) out.push_back(o["params"].dump());
    return out;
  }

  // Study `study` has `n` complete observations, all distinct, each keeping the ten balances.
  void expect_balanced_and_distinct(const std::string& study, std::size_t n) {
    const json obs = export_json(study);
    ASSERT_EQ(obs.size(), n);
    std::set<std::string> distinct;
    for (const json& o : obs) {
      EXPECT_EQ(o["status"], "complete") << o.dump();
      EXPECT_EQ(balances_kept(o["params"]), 10) << o.dump();
      distinct.insert(o["params"].dump());
    }
    EXPECT_EQ(distinct.size(), n);
  }
};

TEST_F(RegEvoCli, EveryIsingProposalKeepsTheTenBalancesWithoutProjection) {
  write("p.toml", pipeline(5, 30, "regularized_evolution", false));
  const CliResult r = arbo("--verbose run p.toml --study s");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  expect_balanced_and_distinct("s", 30);
  // The solver's notes (debug log): 22 ConEvo children, none projected or drawn at random.
  std::size_t children = 0;
  for (std::size_t at = r.err.find("ConEvo (10 balance pairs) child of"); at != std::string::npos;
       at = r.err.find("ConEvo (10 balance pairs) child of", at + 1)) {
    ++children;
  }
  EXPECT_EQ(children, 22u) << r.err;
  EXPECT_EQ(r.err.find("projected onto the known constraints after"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("uniform feasible draw"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("initial design points satisfy"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("were projected"), std::string::npos) << r.err;
}

TEST_F(RegEvoCli, RandomSearchDrawsFeasibleIsingPointsWithoutAModelSolver) {
  write("p.toml", pipeline(6, 40, "random", false) + "[proposal]\nexclude_evaluated = true\n");
  const CliResult r = arbo("--verbose run p.toml --study s");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  expect_balanced_and_distinct("s", 40);
  // Every proposal is the solver's (or the design's), none a kernel fallback.
  EXPECT_EQ(r.err.find("random point satisfying them instead"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("initial design points satisfy"), std::string::npos) << r.err;
}

TEST_F(RegEvoCli, TheSameSeedProposesTheSamePointsAfterARerunAndAResume) {
  write("p.toml", pipeline(7, 24));
  ASSERT_EQ(arbo("run p.toml --study a").code, 0);
  ASSERT_EQ(arbo("run p.toml --study b").code, 0);
  const auto a = params("a");
  ASSERT_EQ(a.size(), 24u);
  EXPECT_EQ(params("b"), a);
  // Stopped after 14 evaluations, then resumed to 24.
  const CliResult first = arbo("run p.toml --study c --set study.budget=14");
  ASSERT_EQ(first.code, 0) << first.err;
  ASSERT_EQ(params("c").size(), 14u);
  const CliResult resumed = arbo("run --resume --study c --set study.budget=24");
  ASSERT_EQ(resumed.code, 0) << resumed.out << resumed.err;
  EXPECT_EQ(params("c"), a);
  // Another seed proposes other points (the comparison above can fail).
  write("q.toml", pipeline(8, 24));
  ASSERT_EQ(arbo("run q.toml --study d").code, 0);
  EXPECT_NE(params("d"), a);
}

// configs/regevo.toml and configs/nn-regevo.toml as committed (budgets, epochs and B cut down):
// both run on random_mlp, and no point is proposed twice.
TEST_F(RegEvoCli, TheCommittedPipelinesRunWithoutRepeatingAPoint) {
  const std::string configs = std::string(ARBO_SOURCE_DIR) + "/configs/";
  const CliResult free = arbo("run " + configs + "regevo.toml --study free --set study.budget=80");
  ASSERT_EQ(free.code, 0) << free.out << free.err;
  const CliResult nn = arbo("run " + configs +
                            "nn-regevo.toml --study nn --set study.budget=56 --set "
                            "surrogate.epochs=30 --set inner_solver.candidates=1000");
  ASSERT_EQ(nn.code, 0) << nn.out << nn.err;
  for (const auto& [study, budget] : {std::pair<std::string, std::size_t>{"free", 80},
                                      std::pair<std::string, std::size_t>{"nn", 56}}) {
    const auto points = params(study);
    EXPECT_EQ(points.size(), budget) << study;
    EXPECT_EQ(std::set<std::string>(points.begin(), points.end()).size(), budget) << study;
  }
}

}  // namespace
