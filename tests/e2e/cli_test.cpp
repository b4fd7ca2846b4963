// SPDX-License-Identifier: MIT
// End-to-end tests of the `arbo` CLI with real plugin libraries and real study directories.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "common/cli_harness.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using arbo::test::CliResult;
using arbo::test::slurp;

class Cli : public arbo::test::CliTest {
 protected:
  Cli() : CliTest("arbo_e2e_", std::string("ARBO_PLUGIN_PATH='") + ARBO_FAULTY_PLUGIN_DIR + "' ") {}
};

const char* kSlowObjective = R"(import json, sys, time
p = json.load(sys.stdin)["params"]
time.sleep(0.03)
print(json.dumps({"objective": (p["x"] - 0.3) ** 2 + p["n"]}))
)";

const char* kSlowPipeline = R"(
[study]
seed = 5
budget = 40
[problem]
command = ["python3", "slow.py"]
[[problem.parameters]]
name = "x"
type = "real"
low = 0.0
high = 1.0
[[problem.parameters]]
name = "n"
type = "integer"
low = 0
high = 3
[initial_design]
method = "lhs"
size = 6
[inner_solver]
plugin = "random"
)";

TEST_F(Cli, QuickstartRunsThroughRealPlugins) {
  const CliResult r =
      arbo(std::string("run ") + ARBO_SOURCE_DIR + "/configs/quickstart.toml --study qs");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("budget reached"), std::string::npos) << r.out;
  const json obs = export_json("qs");
  ASSERT_EQ(obs.size(), 60u);
  double best = 1e300;
  for (std::size_t i = 0; i < obs.size(); ++i) {
    EXPECT_EQ(obs[i]["id"], i + 1);
    EXPECT_EQ(obs[i]["status"], "complete");
    EXPECT_EQ(obs[i]["origin"], i < 8 ? "design" : "model");
    if (obs[i]["feasible"]) best = std::min(best, obs[i]["objective"].get<double>());
  }
  EXPECT_NE(obs[10]["proposed_by"].dump().find("inner_solver/random"), std::string::npos);
  // Random search on constrained Branin: a feasible point was found, never below f*.
  EXPECT_GE(best, 0.397887 - 1e-6);
  EXPECT_LT(best, 10.0);
  const CliResult show = arbo("show qs");
  EXPECT_EQ(show.code, 0);
  EXPECT_NE(show.out.find("observations: 60 (60 complete"), std::string::npos) << show.out;
  const CliResult csv = arbo("export qs --format csv");
  EXPECT_EQ(csv.code, 0);
  EXPECT_EQ(std::count(csv.out.begin(), csv.out.end(), '\n'), 61);
  EXPECT_EQ(csv.out.rfind("id,status,origin,x1,x2,objective,feasible,", 0), 0u)
      << csv.out.substr(0, 200);
}

// The timeout leaves slow Python start-ups on a loaded machine far from it, so only the two
// deliberate hangs time out.
TEST_F(Cli, ExternalCommandFailuresAreRecordedAndTheStudyGoesOn) {
  write("obj.py", R"(import json, sys, time, math
d = json.load(sys.stdin)
i, x = d["id"], d["params"]["x"]
if i % 6 == 1: sys.exit(2)
if i % 6 == 2: time.sleep(30)
if i % 6 == 3: print("Traceback (most recent call last): garbage")
elif i % 6 == 4: print(json.dumps({"objective": float("nan")}))
else: print(json.dumps({"objective": x * x, "constraints": {"c": x}}))
)");
  write("p.toml", R"([study]
budget = 12
[problem]
command = ["python3", "obj.py"]
timeout = 3.0
[[problem.parameters]]
name = "x"
type = "real"
low = -1.0
high = 1.0
[[black_box_constraints]]
name = "c"
sense = "<="
threshold = 0.5
[initial_design]
size = 4
[inner_solver]
plugin = "random"
)");
  const CliResult r = arbo("run p.toml --study s");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const json obs = export_json("s");
  ASSERT_EQ(obs.size(), 12u);
  for (const auto& o : obs) {
    const int id = o["id"];
    const std::string reason = o.value("reason", "");
    switch (id % 6) {
      case 1: EXPECT_NE(reason.find("exited with status 2"), std::string::npos) << reason; break;
      case 2: EXPECT_NE(reason.find("timed out"), std::string::npos) << reason; break;
      case 3: EXPECT_NE(reason.find("not valid JSON"), std::string::npos) << reason; break;
      case 4: EXPECT_NE(reason.find("NaN"), std::string::npos) << reason; break;
      default:
        ASSERT_EQ(o["status"], "complete") << o.dump();
        EXPECT_EQ(o["feasible"], o["params"]["x"].get<double>() <= 0.5);
        EXPECT_DOUBLE_EQ(o["objective"].get<double>(),
                         o["params"]["x"].get<double>() * o["params"]["x"].get<double>());
    }
    if (id % 6 >= 1 && id % 6 <= 4) {
      EXPECT_EQ(o["status"], "failed");
    }
  }
}

TEST_F(Cli, KillNineAndResumeLosesNothing) {
  write("slow.py", kSlowObjective);
  write("p.toml", kSlowPipeline);
  const pid_t pid = spawn({"run", "p.toml", "--study", "killed"});
  // Wait until some observations are stored, then kill without warning.
  for (int i = 0; i < 600; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const CliResult r = arbo("export killed --format csv");
    if (r.code == 0 && std::count(r.out.begin(), r.out.end(), '\n') > 15) break;
  }
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  const json partial = export_json("killed");
  ASSERT_GT(partial.size(), 10u);
  ASSERT_LT(partial.size(), 40u) << "the run finished before it was killed";

  const CliResult resumed = arbo("run --resume --study killed");
  ASSERT_EQ(resumed.code, 0) << resumed.out << resumed.err;
  const CliResult fresh = arbo("run p.toml --study fresh");
  ASSERT_EQ(fresh.code, 0) << fresh.err;

  const json a = export_json("killed"), b = export_json("fresh");
  ASSERT_EQ(a.size(), 40u);
  ASSERT_EQ(b.size(), 40u);
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i]["id"], i + 1);
    EXPECT_EQ(a[i]["status"], "complete") << a[i].dump();
    // Same seed, same proposals: the interruption changed nothing.
    EXPECT_EQ(a[i]["params"], b[i]["params"]) << "observation " << i + 1;
    EXPECT_EQ(a[i]["objective"], b[i]["objective"]);
  }
}

TEST_F(Cli, InterruptStopsCleanlyAndResumeFinishes) {
  write("slow.py", kSlowObjective);
  write("p.toml", kSlowPipeline);
  const pid_t pid = spawn({"run", "p.toml", "--study", "s"});
  for (int i = 0; i < 600; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const CliResult r = arbo("export s --format csv");
    if (r.code == 0 && std::count(r.out.begin(), r.out.end(), '\n') > 5) break;
  }
  ASSERT_EQ(kill(pid, SIGINT), 0);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130) << slurp(dir_ / "bg_err.txt");
  EXPECT_NE(slurp(dir_ / "bg_out.txt").find("arbo run --resume --study s"), std::string::npos);
  // The evaluation in progress was ended and stays pending; every other one is complete.
  const json partial = export_json("s");
  for (std::size_t i = 0; i < partial.size(); ++i) {
    if (i + 1 == partial.size() && partial[i]["status"] == "pending") continue;
    EXPECT_EQ(partial[i]["status"], "complete") << partial[i].dump();
  }
  const CliResult r = arbo("run --resume --study s");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(export_json("s").size(), 40u);
}

TEST_F(Cli, ResumeCanExtendTheBudget) {
  write("slow.py", kSlowObjective);
  write("p.toml", kSlowPipeline);
  ASSERT_EQ(arbo("run p.toml --study s --set study.budget=8").code, 0);
  CliResult r = arbo("run --resume --study s --set study.budget=12");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(export_json("s").size(), 12u);
  r = arbo("run p.toml --resume --study s --set study.seed=9 --set study.budget=12");
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("does not match the pipeline stored"), std::string::npos) << r.err;
}

TEST_F(Cli, PluginExceptionNamesPluginAndMethodAndKeepsTheStudy) {
  write("p.toml", R"([study]
budget = 10
[problem]
plugin = "faulty"
[initial_design]
size = 2
[inner_solver]
plugin = "throwing"
throw_on_call = 3
)");
  const CliResult r = arbo("run p.toml --study s");
  EXPECT_EQ(r.code, 4) << r.out << r.err;
  EXPECT_NE(r.err.find("inner_solver/throwing: maximize(): simulated solver failure"),
            std::string::npos)
      << r.err;
  const json obs = export_json("s");
  ASSERT_EQ(obs.size(), 4u);  // 2 design points + 2 successful solver calls
  for (const auto& o : obs) EXPECT_EQ(o["status"], "complete");
}

TEST_F(Cli, ProblemThatThrowsOrReturnsNaNGivesFailedObservations) {
  write("p.toml", R"([study]
budget = 12
[problem]
plugin = "faulty"
throw_every = 3
nan_every = 4
[inner_solver]
plugin = "random"
)");
  const CliResult r = arbo("run p.toml --study s");
  ASSERT_EQ(r.code, 0) << r.err;
  const json obs = export_json("s");
  ASSERT_EQ(obs.size(), 12u);
  for (const auto& o : obs) {
    const int id = o["id"];
    if (id % 3 == 0) {
      EXPECT_NE(o.value("reason", "").find("problem/faulty: evaluate(): simulated objective crash"),
                std::string::npos)
          << o.dump();
    } else if (id % 4 == 0) {
      EXPECT_NE(o.value("reason", "").find("non-finite objective"), std::string::npos) << o.dump();
    } else {
      EXPECT_EQ(o["status"], "complete");
    }
  }
}

// G1's feasible set is far too small for rejection sampling; with the GLPK branch-and-bound as
// the model solver, the initial design and the random inner solver project uniform draws onto
// the problem's known constraints (which become constraint/polynomial components).
TEST_F(Cli, ProjectionFindsFeasiblePointsOfTinyFeasibleSets) {
  write("p.toml", R"([study]
seed = 2
budget = 8
[problem]
plugin = "g1"
[initial_design]
size = 4
[inner_solver]
plugin = "random"
samples = 20
)");
  CliResult r = arbo("run p.toml --study plain");
  // One design point happens to be feasible, so the kernel's fallback tries too, and fails
  // like the solver: still exit 6, since no point could be found.
  EXPECT_EQ(r.code, 6) << r.err;
  EXPECT_NE(r.err.find("no random point could be made to satisfy them"), std::string::npos)
      << r.err;
  r = arbo("run p.toml --study projected --set model_solver.plugin=glpk_bnb");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const json obs = export_json("projected");
  ASSERT_EQ(obs.size(), 8u);
  for (const auto& o : obs) {
    EXPECT_EQ(o["status"], "complete") << o.dump();
    // G1's known constraints are checked by the kernel before evaluation; the problem itself
    // has no black-box constraints, so every complete observation counts as feasible.
    EXPECT_EQ(o["feasible"], true) << o.dump();
  }
  // Resumed past its design, a study does not build the design again: each of its
  // projections is a model solve.
  r = arbo("run --resume --study projected --set study.budget=10");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(export_json("projected").size(), 10u);
  const std::string log = slurp(dir_ / "projected" / "arbo.log");
  const std::string projected_line = "initial design points were projected";
  const auto first = log.find(projected_line);
  ASSERT_NE(first, std::string::npos) << log;
  EXPECT_EQ(log.find(projected_line, first + 1), std::string::npos) << log;
  // A bad expression or a missing capability is caught by `arbo check`, which creates every
  // component without running.
  write("q.toml", R"([problem]
plugin = "branin"
[[known_constraints]]
plugin = "polynomial"
expression = "x1 + x9 <= 3"
[inner_solver]
plugin = "random"
)");
  r = arbo("check q.toml");
  EXPECT_EQ(r.code, 4) << r.out << r.err;
  EXPECT_NE(r.err.find("x9"), std::string::npos) << r.err;
  // It names where the expression was written, as a pipeline error does.
  EXPECT_NE(r.err.find("\n --> q.toml:5 (known_constraints.0.expression)"), std::string::npos)
      << r.err;
  r = arbo("check q.toml --set 'known_constraints.0.expression=\"x1 + x8 <= 3\"'");
  EXPECT_EQ(r.code, 4) << r.err;
  EXPECT_NE(r.err.find("\n --> --set (known_constraints.0.expression)"), std::string::npos)
      << r.err;
}

TEST_F(Cli, InfeasibleKnownConstraintsExitSixWithAnIntactStudy) {
  write("p.toml", R"([study]
budget = 5
[problem]
plugin = "faulty"
[[known_constraints]]
plugin = "never"
[inner_solver]
plugin = "random"
max_tries = 2000
)");
  const CliResult r = arbo("run p.toml --study s");
  EXPECT_EQ(r.code, 6) << r.out << r.err;
  EXPECT_NE(r.err.find("no point satisfying the known constraints"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("constraint/never"), std::string::npos) << r.err;
  EXPECT_EQ(export_json("s").size(), 0u);
}

// An inner solver that finds nothing although an observation satisfies the known constraints
// has failed; the set is not empty. The study goes on: that proposal is a random feasible
// point, with a warning and the solver's failure in the observation's statistics. (On
// Alkylation, glpk_bnb once declared a LEAF-GP acquisition model infeasible at its root, and
// the study stopped with exit 6 after 9 evaluations.) Here `random` draws once per call, and
// about 5 % of Branin's box satisfies x1 + x2 <= 0.
TEST_F(Cli, AnInnerSolverThatFindsNothingOnAFeasibleSetDoesNotStopTheStudy) {
  write("p.toml", R"([study]
budget = 20
seed = 3
[problem]
plugin = "branin"
[[known_constraints]]
plugin = "polynomial"
expression = "x1 + x2 <= 0"
[initial_design]
size = 5
[surrogate]
plugin = "tree_gp"
[acquisition]
plugin = "lcb"
[inner_solver]
plugin = "random"
max_tries = 1
projections = 0
)");
  const CliResult r = arbo("run p.toml --study s --quiet");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("completed observations satisfy them: this proposal is a random point"),
            std::string::npos)
      << r.err;
  const json obs = export_json("s");
  ASSERT_EQ(obs.size(), 20u);
  for (const json& o : obs) {
    const double x1 = o["params"]["x1"].get<double>(), x2 = o["params"]["x2"].get<double>();
    EXPECT_LE(x1 + x2, 0.0) << o.dump();
  }
  const CliResult csv = arbo("export s --format csv");
  ASSERT_EQ(csv.code, 0) << csv.err;
  std::istringstream lines(csv.out);
  std::string line;
  int fallbacks = 0;
  while (std::getline(lines, line)) {
    fallbacks += line.find("found no point satisfying the known constraints") != std::string::npos;
  }
  // Most of the 15 model proposals fall back (one draw in 20 is feasible), never the design.
  EXPECT_GE(fallbacks, 10) << csv.out;
  EXPECT_LE(fallbacks, 15) << csv.out;
}

// An external-function study for ask and tell: a log-scaled real, a categorical and one
// black-box constraint.
constexpr const char* kAskTellPipeline = R"([problem]
command = ["false"]
[[problem.parameters]]
name = "lr"
type = "real"
low = 0.001
high = 0.1
log = true
[[problem.parameters]]
name = "opt"
type = "categorical"
choices = ["adam", "sgd"]
[[black_box_constraints]]
name = "mem"
sense = "<="
threshold = 8.0
[inner_solver]
plugin = "random"
)";

TEST_F(Cli, AskAndTell) {
  write("p.toml", kAskTellPipeline);
  ASSERT_EQ(arbo("init p.toml --study s").code, 0);
  CliResult r = arbo("ask s");
  ASSERT_EQ(r.code, 0) << r.err;
  json a = json::parse(r.out);
  EXPECT_EQ(a["id"], 1);
  EXPECT_TRUE(a["params"]["opt"] == "adam" || a["params"]["opt"] == "sgd");
  r = arbo("tell s 1 --objective 0.25 --constraint mem=3.5");
  ASSERT_EQ(r.code, 0) << r.err;
  r = arbo("ask s");
  ASSERT_EQ(json::parse(r.out)["id"], 2);
  EXPECT_EQ(arbo("tell s 2 --failed 'out of memory'").code, 0);
  r = arbo("tell s 2 --objective 1 --constraint mem=1");
  EXPECT_EQ(r.code, 5);
  EXPECT_NE(r.err.find("not pending"), std::string::npos) << r.err;
  r = arbo("tell s 1 --objective 1 --constraint nope=1");
  EXPECT_NE(r.code, 0);
  r = arbo("tell s 2 --objective 1");
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("constraint 'mem' is missing"), std::string::npos) << r.err;
  r = arbo("tell s 3 --objective 1 --constraint mem=1");
  EXPECT_EQ(r.code, 5);
  EXPECT_NE(r.err.find("observation 3 does not exist"), std::string::npos) << r.err;
  ASSERT_EQ(arbo("ask s").code, 0);
  EXPECT_EQ(arbo("tell s 3 --json '{\"objective\": 2, \"constraints\": {\"mem\": 9}}'").code, 0);
  const json obs = export_json("s");
  ASSERT_EQ(obs.size(), 3u);
  EXPECT_EQ(obs[0]["status"], "complete");
  EXPECT_EQ(obs[0]["feasible"], true);
  EXPECT_EQ(obs[1]["reason"], "out of memory");
  EXPECT_EQ(obs[2]["feasible"], false);
  EXPECT_EQ(obs[0]["origin"], "ask");
}

// `arbo tell DIR --params JSON`: a point the study did not propose (an earlier experiment)
// becomes a finished observation with origin "tell"; a typo in it records nothing.
TEST_F(Cli, TellWithParamsRecordsAnEarlierExperiment) {
  write("p.toml", std::string("[study]\nbudget = 5\n") + kAskTellPipeline);
  ASSERT_EQ(arbo("init p.toml --study s").code, 0);
  CliResult r =
      arbo("tell s --params '{\"lr\": 0.01, \"opt\": \"sgd\"}' --objective 0.5 --constraint mem=2");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("observation 1 recorded as complete (a told point)"), std::string::npos)
      << r.out;
  EXPECT_EQ(arbo("tell s --params '{\"lr\": 0.02, \"opt\": \"adam\"}' --failed 'spilled'").code, 0);
  // Refused, nothing recorded: an unknown name, a value out of bounds, a missing parameter,
  // both an id and --params, neither.
  r = arbo("tell s --params '{\"lrr\": 0.01, \"opt\": \"sgd\"}' --objective 1 --constraint mem=1");
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("did you mean 'lr'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nothing was recorded for the point of --params"), std::string::npos)
      << r.err;
  r = arbo("tell s --params '{\"lr\": 5, \"opt\": \"sgd\"}' --objective 1 --constraint mem=1");
  EXPECT_EQ(r.code, 3) << r.err;
  r = arbo("tell s --params '{\"lr\": 0.01}' --objective 1 --constraint mem=1");
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("'opt' is missing"), std::string::npos) << r.err;
  EXPECT_EQ(arbo("tell s 1 --params '{\"lr\": 0.01}' --objective 1").code, 2);
  EXPECT_EQ(arbo("tell s --objective 1").code, 2);
  // The next proposal takes the next number.
  r = arbo("ask s");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["id"], 3);
  const json obs = export_json("s");
  ASSERT_EQ(obs.size(), 3u);
  EXPECT_EQ(obs[0]["origin"], "tell");
  EXPECT_EQ(obs[0]["status"], "complete");
  EXPECT_EQ(obs[0]["params"]["opt"], "sgd");
  EXPECT_NEAR(obs[0]["params"]["lr"].get<double>(), 0.01, 1e-12);
  EXPECT_EQ(obs[0]["feasible"], true);
  EXPECT_EQ(obs[1]["origin"], "tell");
  EXPECT_EQ(obs[1]["reason"], "spilled");
  // The first point told again is a repeat, which arbo show counts.
  EXPECT_EQ(arbo("show s").out.find("repeats:"), std::string::npos);
  ASSERT_EQ(
      arbo("tell s --params '{\"lr\": 0.01, \"opt\": \"sgd\"}' --objective 0.5 --constraint mem=2")
          .code,
      0);
  r = arbo("show s");
  EXPECT_NE(r.out.find("repeats: 1 of 4 observations repeat an earlier point"), std::string::npos)
      << r.out;
}

TEST_F(Cli, BadInputGivesClearErrorsAndExitCodes) {
  write("syntax.toml", "[study]\nbudget = = 3\n");
  CliResult r = arbo("run syntax.toml");
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("syntax.toml"), std::string::npos) << r.err;

  write("typo.toml", "[problem]\nplugin = \"branin\"\n[inner_solver]\nplugin = \"randon\"\n");
  r = arbo("check typo.toml");
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("typo.toml"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("did you mean 'random'"), std::string::npos) << r.err;

  write(
      "ok.toml",
      "[study]\nbudget = 3\n[problem]\nplugin = \"branin\"\n[inner_solver]\nplugin = \"random\"\n");
  r = arbo("check ok.toml");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("ok"), std::string::npos);
  ASSERT_EQ(arbo("run ok.toml --study s").code, 0);
  r = arbo("run ok.toml --study s");
  EXPECT_EQ(r.code, 5);
  EXPECT_NE(r.err.find("already holds a study"), std::string::npos) << r.err;
  r = arbo("run --resume --study missing");
  EXPECT_EQ(r.code, 5);
  r = arbo("show missing");
  EXPECT_EQ(r.code, 5);
  r = arbo("frobnicate");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("unknown command"), std::string::npos);
  r = arbo("run ok.toml --bogus");
  EXPECT_EQ(r.code, 2);
  r = arbo("run nonexistent.toml");
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("nonexistent.toml"), std::string::npos) << r.err;
}

TEST_F(Cli, BrokenPluginsAreReportedAndTheRestStillWork) {
  const std::string abi_dir = std::string(ARBO_TEST_PLUGIN_DIR) + "/abi";
  // The corpus is built with this test (tests/abi); without it the check below means nothing.
  ASSERT_TRUE(fs::is_directory(abi_dir)) << "broken-plugin corpus not built: " << abi_dir;
  write(
      "ok.toml",
      "[study]\nbudget = 3\n[problem]\nplugin = \"branin\"\n[inner_solver]\nplugin = \"random\"\n");
  const CliResult r = arbo("--plugin-path " + abi_dir + " run ok.toml --study s");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("ABI version mismatch"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(".so"), std::string::npos) << r.err;
}

// The model-based path of the loop (one surrogate per metric, acquisition bound to them, inner
// solver maximizing it, known constraint respected) with the SDK's template plugins, loaded
// from their own directory as third-party plugins would be.
TEST_F(Cli, ModelBasedPipelineWithThirdPartyPlugins) {
  const std::string templates = std::string(ARBO_TEST_PLUGIN_DIR) + "/templates";
  write("p.toml", R"([study]
seed = 4
budget = 30
[problem]
plugin = "branin_constrained"
[[known_constraints]]
plugin = "xyz"
radius = 0.45
[initial_design]
method = "lhs"
size = 8
[surrogate]
plugin = "xyz"
k = 3
[acquisition]
plugin = "xyz"
[inner_solver]
plugin = "xyz"
)");
  const CliResult r = arbo("--plugin-path " + templates + " run p.toml --study s");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const json obs = export_json("s");
  ASSERT_EQ(obs.size(), 30u);
  for (std::size_t i = 0; i < obs.size(); ++i) {
    EXPECT_EQ(obs[i]["status"], "complete");
    EXPECT_EQ(obs[i]["origin"], i < 8 ? "design" : "model");
    // The template constraint is a ball of radius 0.45 in the unit-scaled box, centred in it.
    const double u1 = (obs[i]["params"]["x1"].get<double>() + 5.0) / 15.0 - 0.5;
    const double u2 = obs[i]["params"]["x2"].get<double>() / 15.0 - 0.5;
    EXPECT_LE(u1 * u1 + u2 * u2, 0.45 * 0.45 + 1e-9) << obs[i].dump();
  }
  const std::string by = obs[20]["proposed_by"].dump();
  for (const char* id : {"surrogate/xyz", "acquisition/xyz", "inner_solver/xyz"}) {
    EXPECT_NE(by.find(id), std::string::npos) << by;
  }
}

TEST_F(Cli, ModelBasedSolverNeedsFormulatingComponents) {
  const std::string templates = std::string(ARBO_TEST_PLUGIN_DIR) + "/templates";
  write("p.toml", R"([problem]
plugin = "branin"
[surrogate]
plugin = "xyz"
[acquisition]
plugin = "xyz"
[inner_solver]
plugin = "model_only"
)");
  CliResult r = arbo("--plugin-path " + templates + " run p.toml --study s");
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("inner_solver/model_only optimizes the acquisition as a model, but "
                       "acquisition/xyz cannot formulate itself (capability "
                       "arbo::sdk::FormulatesAcquisition missing)"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "s" / "study.db")) << "a rejected pipeline leaves no study";
  write("q.toml", R"([problem]
plugin = "branin"
[inner_solver]
plugin = "random"
[model_solver]
plugin = "random"
)");
  r = arbo("run q.toml --study q");
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("[model_solver] inner_solver/random cannot solve models"), std::string::npos)
      << r.err;
}

TEST_F(Cli, MaximizeIsSupported) {
  write("p.toml", R"([study]
budget = 25
direction = "maximize"
[problem]
plugin = "faulty"
[inner_solver]
plugin = "random"
)");
  const CliResult r = arbo("run p.toml --study s");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("best feasible: max = "), std::string::npos) << r.out;
  double best = -1;
  for (const auto& o : export_json("s")) best = std::max(best, o["objective"].get<double>());
  const CliResult show = arbo("show s");
  EXPECT_NE(show.out.find("direction: maximize"), std::string::npos) << show.out;
  std::ostringstream expected;
  expected << "best feasible: " << nlohmann::json(best).dump();
  EXPECT_NE(show.out.find(expected.str()), std::string::npos) << show.out << expected.str();
}

TEST_F(Cli, AnyBuiltInProblemCanBeNoisy) {
  const std::string base = "[study]\nseed = 2\nbudget = 80\n[problem]\nplugin = \"hartmann6\"\n";
  write("clean.toml", base + "[inner_solver]\nplugin = \"random\"\n");
  write("noisy.toml", base + "noise = 0.5\n[inner_solver]\nplugin = \"random\"\n");
  ASSERT_EQ(arbo("run clean.toml --study clean").code, 0);
  ASSERT_EQ(arbo("run noisy.toml --study noisy").code, 0);
  ASSERT_EQ(arbo("run noisy.toml --study noisy2").code, 0);
  const json c = export_json("clean"), n = export_json("noisy"), n2 = export_json("noisy2");
  ASSERT_EQ(c.size(), 80u);
  double sum = 0, sum_sq = 0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    EXPECT_EQ(c[i]["params"], n[i]["params"]) << "noise must not change the proposals";
    EXPECT_EQ(n[i]["objective"], n2[i]["objective"]) << "noise must be reproducible";
    const double d = n[i]["objective"].get<double>() - c[i]["objective"].get<double>();
    sum += d;
    sum_sq += d * d;
  }
  const double mean = sum / 80, sd = std::sqrt(sum_sq / 80 - mean * mean);
  EXPECT_NEAR(mean, 0.0, 0.25);  // 4.5 standard errors
  EXPECT_GT(sd, 0.35);
  EXPECT_LT(sd, 0.65);
  const CliResult bad = arbo("check noisy.toml --set problem.noise=-1");
  EXPECT_EQ(bad.code, 3);
  EXPECT_NE(bad.err.find("problem.noise"), std::string::npos) << bad.err;
}

TEST_F(Cli, PluginsListsComponentsWithParameterDocs) {
  const CliResult r = arbo("plugins --params");
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* id : {"inner_solver/random", "problem/branin", "problem/branin_constrained",
                         "problem/hartmann6", "inner_solver/throwing"}) {
    EXPECT_NE(r.out.find(id), std::string::npos) << id << "\n" << r.out;
  }
  EXPECT_NE(r.out.find("max_tries"), std::string::npos) << r.out;
}

// `ask` counts the study's observations (pending ones included) from the opened study instead
// of reading them all a second time, and refuses once they reach the budget.
TEST_F(Cli, AskRefusesOnceTheBudgetIsSpent) {
  write("p.toml",
        "[study]\nbudget = 3\n[problem]\nplugin = \"branin\"\n[initial_design]\nsize = 1\n"
        "[inner_solver]\nplugin = \"random\"\n");
  ASSERT_EQ(arbo("init p.toml --study s").code, 0);
  ASSERT_EQ(arbo("ask s").code, 0);
  ASSERT_EQ(arbo("tell s 1 --objective 1").code, 0);
  ASSERT_EQ(arbo("ask s").code, 0);
  ASSERT_EQ(arbo("ask s").code, 0);
  const CliResult r = arbo("ask s");
  EXPECT_EQ(r.code, 5);
  EXPECT_NE(r.err.find("the budget of 3 evaluations is spent"), std::string::npos) << r.err;
  const CliResult run = arbo("run --resume --study s --quiet");
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(export_json("s").size(), 3u);
}

}  // namespace
