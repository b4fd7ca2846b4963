// SPDX-License-Identifier: MIT
// [proposal] exclude_evaluated through the real CLI and plugins: on a discrete space no point
// is proposed twice (completed or failed), and once every point that satisfies the known
// constraints has been evaluated the study ends cleanly, with exit code 0 and a message.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "common/cli_harness.hpp"

namespace {

using arbo::test::CliResult;
using arbo::test::slurp;
using nlohmann::json;

class Exclusion : public arbo::test::CliTest {
 protected:
  Exclusion() : CliTest("arbo_exclusion_") {}

  // 4 x 3 = 12 points, of which the known constraint n <= 2 leaves 9; the objective crashes at
  // (n = 1, c = "b"), which must not be proposed again either.
  void write_problem(const std::string& solver_tables) {
    write("f.py", R"(import json, sys
p = json.load(sys.stdin)["params"]
if p["n"] == 1 and p["c"] == "b":
    sys.exit(3)
print(json.dumps({"objective": (p["n"] - 1.2) ** 2 + {"a": 0.0, "b": 0.5, "c": 1.0}[p["c"]]}))
)");
    write("p.toml", R"([study]
seed = 4
budget = 30
[problem]
command = ["python3", "f.py"]
[[problem.parameters]]
name = "n"
type = "integer"
low = 0
high = 3
[[problem.parameters]]
name = "c"
type = "categorical"
choices = ["a", "b", "c"]
[[known_constraints]]
plugin = "polynomial"
expression = "n <= 2"
[initial_design]
size = 4
[proposal]
exclude_evaluated = true
)" + solver_tables);
  }

  // Runs the study and checks that it visited each of the 9 feasible points exactly once.
  std::string run_to_exhaustion() {
    const CliResult r = arbo("run p.toml --study s --quiet");
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_NE((r.out + r.err).find("every point has been evaluated"), std::string::npos)
        << r.out << r.err;
    const json obs = export_json("s");
    std::set<std::pair<std::int64_t, std::string>> seen;
    int failed = 0;
    for (const json& o : obs) {
      const auto n = o["params"]["n"].get<std::int64_t>();
      const auto c = o["params"]["c"].get<std::string>();
      EXPECT_LE(n, 2) << o.dump();
      EXPECT_TRUE(seen.emplace(n, c).second) << "proposed twice: " << o.dump();
      failed += o["status"] == "failed";
    }
    EXPECT_EQ(obs.size(), 9u);
    EXPECT_EQ(failed, 1);
    return slurp(dir_ / "s" / "arbo.log");
  }
};

TEST_F(Exclusion, RandomSearchVisitsEveryPointOnceThenStops) {
  write_problem("[inner_solver]\nplugin = \"random\"\n");
  const std::string log = run_to_exhaustion();
  // Random search cannot prove it; the kernel's enumeration of the 12 points does.
  EXPECT_NE(log.find("has been evaluated (9 evaluations; [proposal] exclude_evaluated), found by "
                     "enumeration"),
            std::string::npos)
      << log;
  // A finished study resumed has nothing left to propose and says so again.
  const CliResult again = arbo("run p.toml --resume --study s --quiet");
  EXPECT_EQ(again.code, 0) << again.out << again.err;
  EXPECT_EQ(export_json("s").size(), 9u);
}

TEST_F(Exclusion, NelderMeadWithAModelVisitsEveryPointOnceThenStops) {
  write_problem(R"([surrogate]
plugin = "tree_gp"
[acquisition]
plugin = "lcb"
[inner_solver]
plugin = "nelder_mead"
samples = 50
)");
  run_to_exhaustion();
}

// glpk_bnb adds one no-good cut per evaluated point; the model is infeasible once all nine are
// cut off, which is the proof that ends the study.
TEST_F(Exclusion, GlpkBnbCutsOffEvaluatedPointsAndProvesExhaustion) {
  write_problem(R"([surrogate]
plugin = "tree_gp"
[acquisition]
plugin = "lcb"
[inner_solver]
plugin = "glpk_bnb"
)");
  const std::string log = run_to_exhaustion();
  EXPECT_NE(log.find("proven by inner_solver/glpk_bnb"), std::string::npos) << log;
}

TEST_F(Exclusion, RealParametersAndSolversWithoutTheCapabilityAreRefused) {
  write("p.toml", R"([problem]
plugin = "branin"
[proposal]
exclude_evaluated = true
[inner_solver]
plugin = "random"
)");
  CliResult r = arbo("check p.toml");
  EXPECT_EQ(r.code, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("proposal.exclude_evaluated"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("parameter 'x1' is real"), std::string::npos) << r.err;
  r = arbo("run p.toml --study s");
  EXPECT_EQ(r.code, 3) << r.err;
  write("q.toml", R"([problem]
plugin = "branin"
[proposal]
exclude_evaluated = "yes"
)");
  r = arbo("check q.toml");
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("exclude_evaluated"), std::string::npos) << r.err;
}

}  // namespace
