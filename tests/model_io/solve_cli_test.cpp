// SPDX-License-Identifier: MIT
// `arbo solve FILE` through the real CLI, with the enumerate test plugin as the model solver.
#include <string>
#include <utility>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/cli_harness.hpp"

namespace {

using nlohmann::json;

using arbo::test::CliResult;

// max 5 a + 4 b + 3 c + 2 d + 1.5 s.t. 2 a + 3 b + c + 4 d <= 5, binary: the best pair is
// a + b (weight 5, value 9; a + c only reaches 8), so the optimum is 10.5.
const char* kKnapsack = R"(\ a small knapsack
Maximize
 value: 5 a + 4 b + 3 c + 2 d + 1.5 obj_constant
Subject To
 weight: 2 a + 3 b + c + 4 d <= 5
Bounds
 obj_constant = 1
Binaries
 a b c d
End
)";

const char* kInfeasible = R"(Minimize
 obj: x + y
Subject To
 c1: x + y >= 7
Bounds
 0 <= x <= 3
 0 <= y <= 3
Generals
 x y
End
)";

const char* kUnbounded = R"(Minimize
 obj: x - 2 n
Subject To
 c1: x >= 1
Bounds
 0 <= x <= 3
 n >= 0
Generals
 x n
End
)";

class SolveCli : public arbo::test::CliTest {
 protected:
  SolveCli()
      : CliTest("arbo_solve_", "",
                std::string("--plugin-path '") + ARBO_ENUMERATE_PLUGIN_DIR + "' ") {}

  // `arbo solve ARGS --json`, which must succeed; its answer parsed (null when it failed).
  json solve_json(const std::string& args) {
    const CliResult r = arbo("solve " + args + " --json");
    EXPECT_EQ(r.code, 0) << r.err;
    return r.code == 0 ? json::parse(r.out) : json();
  }
};

void expect_contains(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << "'" << part << "' not in:\n" << text;
}

TEST_F(SolveCli, OptimalText) {
  write("knapsack.lp", kKnapsack);
  const CliResult r = arbo("solve knapsack.lp --solver enumerate");
  EXPECT_EQ(r.code, 0) << r.err;
  expect_contains(r.out, "status: optimal\n");
  expect_contains(r.out, "objective: 10.5\n");  // a + b: 9, plus the constant 1.5
  expect_contains(r.out, "best bound: 10.5\n");
  expect_contains(r.out, "gap: 0\n");
  expect_contains(r.out, "nodes: 16\n");
  expect_contains(r.out, "lp iterations: 0\n");
  expect_contains(r.out, "time: ");
  expect_contains(r.out, "max violation: 0\n");
  expect_contains(r.out, "variables:\n  a = 1\n  b = 1\n  c = 0\n  d = 0\n");
}

TEST_F(SolveCli, OptimalJson) {
  write("knapsack.lp", kKnapsack);
  const json j = solve_json("knapsack.lp --solver enumerate");
  EXPECT_EQ(j["file"], "knapsack.lp");
  EXPECT_EQ(j["solver"], "inner_solver/enumerate");
  EXPECT_EQ(j["status"], "optimal");
  EXPECT_EQ(j["objective"].get<double>(), 10.5);
  EXPECT_EQ(j["best_bound"].get<double>(), 10.5);
  EXPECT_EQ(j["gap"].get<double>(), 0.0);
  EXPECT_EQ(j["nodes"].get<int>(), 16);
  EXPECT_EQ(j["lp_iterations"].get<int>(), 0);
  EXPECT_GE(j["seconds"].get<double>(), 0.0);
  EXPECT_EQ(j["max_violation"].get<double>(), 0.0);
  ASSERT_TRUE(j["variables"].is_object());
  EXPECT_EQ(j["variables"].dump(), R"({"a":1.0,"b":1.0,"c":0.0,"d":0.0})");
}

TEST_F(SolveCli, InfeasibleIsAnAnswer) {
  write("infeasible.lp", kInfeasible);
  const CliResult r = arbo("solve infeasible.lp --solver enumerate");
  EXPECT_EQ(r.code, 0) << r.err;
  expect_contains(r.out, "status: infeasible\n");
  expect_contains(r.out, "objective: -\n");
  EXPECT_EQ(r.out.find("variables:"), std::string::npos);
  const json v = solve_json("infeasible.lp --solver enumerate");
  EXPECT_EQ(v["status"], "infeasible");
  EXPECT_TRUE(v["objective"].is_null());
  EXPECT_TRUE(v["variables"].empty());
}

TEST_F(SolveCli, UnboundedIsAnAnswer) {
  write("unbounded.lp", kUnbounded);
  const json v = solve_json("unbounded.lp --solver enumerate");
  EXPECT_EQ(v["status"], "unbounded");
  EXPECT_TRUE(v["best_bound"].is_null());  // -inf
}

TEST_F(SolveCli, NodeLimitReturnsTheIncumbent) {
  write("knapsack.lp", kKnapsack);
  const json v = solve_json("knapsack.lp --solver enumerate --node-limit 3");
  EXPECT_EQ(v["status"], "limit reached");
  EXPECT_EQ(v["nodes"].get<int>(), 3);
  // Points (0,0,0,0), (1,0,0,0), (0,1,0,0) were enumerated: the incumbent is a = 1.
  EXPECT_EQ(v["objective"].get<double>(), 6.5);
  EXPECT_TRUE(v["best_bound"].is_null());
}

TEST_F(SolveCli, UnreadableAndInvalidFilesExitWith3) {
  const CliResult missing = arbo("solve nowhere.lp --solver enumerate");
  EXPECT_EQ(missing.code, 3);
  expect_contains(missing.err, "cannot read model file 'nowhere.lp': No such file or directory");

  write("broken.lp", "Minimize\n obj: x\nSubject To\n c1: x + y 3\nEnd\n");
  const CliResult broken = arbo("solve broken.lp --solver enumerate");
  EXPECT_EQ(broken.code, 3);
  expect_contains(broken.err, "broken.lp:4: expected '+', '-' or a relational operator");
  EXPECT_TRUE(broken.out.empty()) << broken.out;

  // A model the solver rejects (continuous variables) is the file's problem too.
  write("continuous.lp", "Minimize\n obj: x\nSubject To\n c1: x >= 1\nEnd\n");
  const CliResult rejected = arbo("solve continuous.lp --solver enumerate");
  EXPECT_EQ(rejected.code, 3);
  expect_contains(
      rejected.err,
      "inner_solver/enumerate: solve(): rejected continuous.lp: enumerate: variable 'x' is "
      "continuous");
}

TEST_F(SolveCli, SolverErrorsExitWith4) {
  // 2^30 points exceed the plugin's max_points.
  std::string lp = "Maximize\n obj: b0\nSubject To\n c: b0 <= 1\nBinaries\n";
  for (int i = 0; i < 30; ++i) lp += " b" + std::to_string(i);
  lp += "\nEnd\n";
  write("big.lp", lp);
  const CliResult r = arbo("solve big.lp --solver enumerate");
  EXPECT_EQ(r.code, 4);
  expect_contains(r.err,
                  "inner_solver/enumerate: solve(): enumerate: 1073741824 points "
                  "exceed max_points = 1000000");
}

TEST_F(SolveCli, SolverMustBeALoadedModelSolver) {
  write("knapsack.lp", kKnapsack);
  const CliResult unknown = arbo("solve knapsack.lp --solver enumerat");
  EXPECT_EQ(unknown.code, 3);
  expect_contains(unknown.err,
                  "--solver enumerat: no inner solver of that name is loaded "
                  "(did you mean 'enumerate'?)");
  // The stock random search is an inner solver but not a model solver.
  const CliResult random = arbo("solve knapsack.lp --solver random");
  EXPECT_EQ(random.code, 3);
  expect_contains(random.err, "--solver random: inner_solver/random is not a model solver");
}

TEST_F(SolveCli, UsageErrors) {
  EXPECT_EQ(arbo("solve").code, 2);
  write("knapsack.lp", kKnapsack);
  const CliResult r = arbo("solve knapsack.lp --solver enumerate --time-limit 0");
  EXPECT_EQ(r.code, 2);
  expect_contains(r.err, "--time-limit must be a positive number of seconds");
  // 1e10 s overflowed the steady clock's deadline into the past.
  const CliResult far = arbo("solve knapsack.lp --solver enumerate --time-limit 1e10");
  EXPECT_EQ(far.code, 2);
  expect_contains(far.err, "--time-limit must be at most 1000000000 seconds");
  EXPECT_EQ(arbo("solve knapsack.lp --gap -1").code, 2);
  const CliResult help = arbo("solve --help");
  EXPECT_EQ(help.code, 0);
  expect_contains(help.out, "--solver");
  expect_contains(help.out, "--json");
}

TEST_F(SolveCli, TimeLimitAndGapArePassedThrough) {
  write("knapsack.lp", kKnapsack);
  // A generous limit does not stop a 16-point enumeration.
  const CliResult r = arbo("solve knapsack.lp --solver enumerate --time-limit 600 --gap 0.01");
  EXPECT_EQ(r.code, 0) << r.err;
  expect_contains(r.out, "status: optimal\n");
}

TEST_F(SolveCli, SetPassesSolverParameters) {
  write("knapsack.lp", kKnapsack);
  // 16 points exceed max_points = 10: the parameter reached the component.
  const CliResult small = arbo("solve knapsack.lp --solver enumerate --set max_points=10");
  EXPECT_EQ(small.code, 4) << small.err;
  expect_contains(small.err, "16 points exceed max_points = 10");
  // Checked like a pipeline table's keys: the message names the key and what was expected.
  for (const auto& [set, message] :
       {std::pair{"max_pointz=10",
                  "unknown parameter 'max_pointz' of inner_solver/enumerate; "
                  "did you mean 'max_points'?"},
        std::pair{"max_points=many",
                  "parameter 'max_points' of inner_solver/enumerate expects "
                  "an integer, got \"many\""}}) {
    const CliResult bad = arbo(std::string("solve knapsack.lp --solver enumerate --set ") + set);
    EXPECT_EQ(bad.code, 3) << bad.err;
    expect_contains(bad.err, message);
  }
  const CliResult ok = arbo("solve knapsack.lp --solver enumerate --set max_points=100");
  EXPECT_EQ(ok.code, 0) << ok.err;
  expect_contains(ok.out, "status: optimal\n");
}

TEST_F(SolveCli, SolverLimitParametersSetTheSolveOptions) {
  write("knapsack.lp", kKnapsack);
  // glpk_bnb's own node_limit and relative_gap, given with --set, limit this solve: before,
  // the command's defaults silently replaced them.
  const json n = solve_json("knapsack.lp --set node_limit=1");
  EXPECT_EQ(n["status"], "limit reached");
  EXPECT_EQ(n["nodes"].get<int>(), 1);
  const json v = solve_json("knapsack.lp --set relative_gap=0.5");
  EXPECT_EQ(v["status"], "optimal");
  EXPECT_GT(v["gap"].get<double>(), 1e-4);  // stopped at the looser gap, short of 10.5 (a, b)
  EXPECT_LT(v["objective"].get<double>(), 10.5);
  // The flag and the parameter of the same meaning together are a usage error.
  const CliResult both = arbo("solve knapsack.lp --set node_limit=1 --node-limit 2");
  EXPECT_EQ(both.code, 2);
  expect_contains(both.err, "--set node_limit and --node-limit say the same thing");
}

}  // namespace
