// SPDX-License-Identifier: MIT
// [study] workers: several evaluations of an external command at once, through the real CLI.
// The commands record what runs beside them (files in running/), so the tests assert on counts
// and identities, never on durations: at most q run at once, more than one did, no point is
// evaluated twice at once, failures stay failures, and a driver killed with q evaluations
// running leaves no process behind and no observation lost on --resume.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/cli_harness.hpp"

namespace {

namespace fs = std::filesystem;
using arbo::test::alive;
using arbo::test::CliResult;
using arbo::test::slurp;
using arbo::test::wait_until;
using nlohmann::json;

// The command of every test: marks itself running (running/<id> holds its params), records how
// many run beside it and whether one of them has its params, waits until another runs (at
// most $BARRIER s, default 10: the last evaluation of a study may run alone), then sleeps
// 0.3 s and answers.
// Observations listed in `fail_ids` misbehave: 2 exits 1, 3 prints garbage, 4 hangs past the
// timeout, 5 prints NaN. Without a file `fast`, `hang_all` makes every evaluation hang (and
// record its pid in pids/).
constexpr const char* kObjective = R"(import json, os, sys, time
req = json.load(sys.stdin)
i, p = req["id"], req["params"]
os.makedirs("running", exist_ok=True)
os.makedirs("pids", exist_ok=True)
mine = "running/%d" % i
with open(mine + ".tmp", "w") as f:
    json.dump(p, f, sort_keys=True)
os.rename(mine + ".tmp", mine)
def others():
    out = []
    for name in os.listdir("running"):
        if name.endswith(".tmp") or name == str(i):
            continue
        try:
            out.append(open("running/" + name).read())
        except OSError:
            pass
    return out
seen = 0
repeat = False
deadline = time.time() + float(os.environ.get("BARRIER", "10"))
while True:
    o = others()
    seen = max(seen, len(o) + 1)
    repeat = repeat or json.dumps(p, sort_keys=True) in o
    if len(o) > 0 or time.time() > deadline:
        break
    time.sleep(0.02)
end = time.time() + float(os.environ.get("SLEEP", "0.3"))
while time.time() < end:
    o = others()
    seen = max(seen, len(o) + 1)
    repeat = repeat or json.dumps(p, sort_keys=True) in o
    time.sleep(0.02)
with open("seen.txt", "a") as f:
    f.write("%d %d %d\n" % (i, seen, int(repeat)))
if os.path.exists("hang_all") and not os.path.exists("fast"):
    open("pids/%d" % os.getpid(), "w").close()
    os.remove(mine)
    time.sleep(300)
os.remove(mine)
fail = [int(s) for s in os.environ.get("FAIL_IDS", "").split(",") if s]
if i in fail:
    kind = fail.index(i)
    if kind == 0:
        sys.exit(1)
    if kind == 1:
        print("no number here")
        sys.exit(0)
    if kind == 2:
        time.sleep(300)
    if kind == 3:
        print(json.dumps({"objective": float("nan")}))
        sys.exit(0)
x = [v if not isinstance(v, str) else len(v) for v in p.values()]
print(sum((v - 0.3) ** 2 for v in x))
)";

// Parameters of the continuous and the discrete problems.
constexpr const char* kReal = R"([[problem.parameters]]
name = "x"
type = "real"
low = 0.0
high = 1.0
[[problem.parameters]]
name = "y"
type = "real"
low = 0.0
high = 1.0
)";
// 3 x 4 = 12 points: random draws of 4 pending proposals collide often.
constexpr const char* kDiscrete = R"([[problem.parameters]]
name = "n"
type = "integer"
low = 0
high = 2
[[problem.parameters]]
name = "c"
type = "categorical"
choices = ["a", "bb", "ccc", "dddd"]
)";

// Processes whose command line mentions `needle` (every process in /proc).
std::vector<pid_t> processes_with(const std::string& needle) {
  std::vector<pid_t> out;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmdline = slurp(e.path() / "cmdline");
    for (char& c : cmdline) {
      if (c == '\0') c = ' ';
    }
    const auto pid = static_cast<pid_t>(std::stol(name));
    if (cmdline.find(needle) != std::string::npos && alive(pid)) out.push_back(pid);
  }
  return out;
}

class Parallel : public arbo::test::CliTest {
 protected:
  Parallel() : CliTest("arbo_parallel_") {}

  // A pipeline of the command above, with `workers` and the rest of its tables in `extra`.
  void write_pipeline(int workers, int budget, const std::string& params,
                      const std::string& extra = "[inner_solver]\nplugin = \"random\"\n",
                      double timeout = 60.0) {
    write("f.py", kObjective);
    write("p.toml", "[study]\nseed = 5\nbudget = " + std::to_string(budget) +
                        "\nworkers = " + std::to_string(workers) +
                        "\n[problem]\ncommand = [\"python3\", \"f.py\"]\ntimeout = " +
                        std::to_string(timeout) + "\n" + params + "[initial_design]\nsize = 2\n" +
                        extra);
  }

  // seen.txt: per observation id, the most evaluations it saw running (itself included) and
  // whether one of them had its params.
  std::map<int, std::pair<int, bool>> seen() {
    std::map<int, std::pair<int, bool>> out;
    std::istringstream in(slurp(dir_ / "seen.txt"));
    int id = 0, n = 0, repeat = 0;
    while (in >> id >> n >> repeat) out[id] = {n, repeat != 0};
    return out;
  }

  // Checks the concurrency seen by the commands: never more than q, more than one at some
  // point, and no point evaluated twice at once.
  void check_seen(std::size_t evaluations, int q) {
    const auto s = seen();
    EXPECT_EQ(s.size(), evaluations) << slurp(dir_ / "seen.txt");
    int most = 0;
    for (const auto& [id, v] : s) {
      EXPECT_LE(v.first, q) << "observation " << id << " ran beside " << v.first - 1;
      EXPECT_FALSE(v.second) << "observation " << id << " was evaluated twice at once";
      most = std::max(most, v.first);
    }
    EXPECT_GE(most, 2) << "no two evaluations ever ran at once";
  }
};

TEST_F(Parallel, AtMostQEvaluationsRunAtOnceAndEveryPointIsDistinct) {
  write_pipeline(3, 12, kReal);
  const CliResult r = arbo("run p.toml --study s --quiet");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const json obs = export_json("s");
  ASSERT_EQ(obs.size(), 12u);
  std::set<std::string> points;
  std::set<std::int64_t> ids;
  for (const json& o : obs) {
    EXPECT_EQ(o["status"], "complete") << o.dump();
    points.insert(o["params"].dump());
    ids.insert(o["id"].get<std::int64_t>());
  }
  EXPECT_EQ(points.size(), 12u);
  EXPECT_EQ(ids.size(), 12u);
  check_seen(12, 3);
}

TEST_F(Parallel, FourPendingPointsAreNeverTheSameOnADiscreteSpace) {
  // Random search draws each proposal from its own stream: on 12 points, four draws collide
  // with probability 0.43, and the kernel must replace a draw that repeats a pending point.
  write_pipeline(4, 12, kDiscrete, "[inner_solver]\nplugin = \"random\"\n", 60.0);
  const CliResult r = arbo("run p.toml --study s --quiet");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(export_json("s").size(), 12u);
  check_seen(12, 4);
}

TEST_F(Parallel, FourPendingPointsAreNeverTheSameWithAModelOnBothSpaces) {
  // A model-based pipeline whose proposal is a deterministic function of the data: without
  // the pending points (lies, and the kernel's check) it would propose one point four times.
  const std::string model =
      "[surrogate]\nplugin = \"tree_gp\"\n[acquisition]\nplugin = \"lcb\"\n"
      "[inner_solver]\nplugin = \"nelder_mead\"\nsamples = 50\n";
  for (const char* params : {kReal, kDiscrete}) {
    SCOPED_TRACE(params);
    fs::remove_all(dir_ / "s");
    fs::remove(dir_ / "seen.txt");
    write_pipeline(4, 12, params, model);
    const CliResult r = arbo("run p.toml --study s --quiet");
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_EQ(export_json("s").size(), 12u);
    check_seen(12, 4);
  }
}

TEST_F(Parallel, FailuresAmongConcurrentEvaluationsAreRecordedWithTheirReasons) {
  write_pipeline(3, 9, kReal, "[inner_solver]\nplugin = \"random\"\n", 5.0);
  // FAIL_IDS is read by the command: 2 exits 1, 3 prints garbage, 4 hangs, 5 prints NaN.
  const std::string cmd = "cd '" + dir_.string() + "' && BARRIER=0 FAIL_IDS=2,3,4,5 '" + ARBO_CLI +
                          "' run p.toml --study s --quiet >out.txt 2>err.txt </dev/null";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << slurp(dir_ / "err.txt");
  const json obs = export_json("s");
  ASSERT_EQ(obs.size(), 9u);
  std::map<std::int64_t, json> by_id;
  for (const json& o : obs) by_id[o["id"].get<std::int64_t>()] = o;
  const std::map<std::int64_t, std::string> reasons = {
      {2, "exited with status 1"}, {3, "no number here"}, {4, "timed out"}, {5, "NaN"}};
  for (const auto& [id, reason] : reasons) {
    ASSERT_TRUE(by_id.count(id)) << obs.dump();
    EXPECT_EQ(by_id[id]["status"], "failed") << by_id[id].dump();
    EXPECT_NE(by_id[id].dump().find(reason), std::string::npos)
        << "expected '" << reason << "' in " << by_id[id].dump();
  }
  for (std::int64_t id : {1, 6, 7, 8, 9}) {
    EXPECT_EQ(by_id[id]["status"], "complete") << by_id[id].dump();
  }
}

TEST_F(Parallel, KillNineWithQEvaluationsRunningLeavesNoProcessAndResumeLosesNone) {
  write_pipeline(3, 7, kReal);
  write("hang_all", "");
  const pid_t driver = spawn({"run", "p.toml", "--study", "s"});
  // Three evaluations hang at once.
  const bool three = wait_until([&] {
    return fs::exists(dir_ / "pids") &&
           std::distance(fs::directory_iterator(dir_ / "pids"), fs::directory_iterator{}) >= 3;
  });
  std::vector<pid_t> commands;
  if (three) {
    for (const auto& e : fs::directory_iterator(dir_ / "pids")) {
      commands.push_back(static_cast<pid_t>(std::stol(e.path().filename().string())));
    }
  }
  ASSERT_EQ(kill(driver, SIGKILL), 0);
  int st = 0;
  waitpid(driver, &st, 0);
  ASSERT_TRUE(three) << slurp(dir_ / "bg_err.txt");
  EXPECT_EQ(commands.size(), 3u);
  // Every evaluation process goes with the driver: those recorded, and any python3 f.py run
  // from this test's directory (its supervisors hold the lock until then).
  for (pid_t p : commands) {
    EXPECT_TRUE(wait_until([&] { return !alive(p); })) << "evaluation " << p << " survived";
  }
  EXPECT_TRUE(wait_until([&] {
    for (pid_t p : processes_with("f.py")) {
      std::error_code ec;
      const fs::path cwd = fs::read_symlink("/proc/" + std::to_string(p) + "/cwd", ec);
      if (!ec && fs::equivalent(cwd, dir_, ec)) return false;
    }
    return true;
  })) << "an evaluation process outlived the driver";
  const json before = export_json("s");
  int pending = 0;
  for (const json& o : before) pending += o["status"] == "pending";
  EXPECT_EQ(pending, 3) << before.dump();
  // The resume re-runs the three and completes the budget: ids 1..7, each once, all complete.
  write("fast", "");
  ASSERT_TRUE(wait_until([&] {
    const int fd = ::open((dir_ / "s" / "lock").c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) return true;
    const bool free = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
    ::close(fd);
    return free;
  }));
  const CliResult r = arbo("run --resume --study s --quiet");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const json obs = export_json("s");
  std::set<std::int64_t> ids;
  for (const json& o : obs) {
    ids.insert(o["id"].get<std::int64_t>());
    EXPECT_EQ(o["status"], "complete") << o.dump();
  }
  EXPECT_EQ(obs.size(), 7u);
  EXPECT_EQ(ids, (std::set<std::int64_t>{1, 2, 3, 4, 5, 6, 7}));
}

TEST_F(Parallel, SigtermWithQEvaluationsRunningLeavesThemPendingAndResumeCompletes) {
  write_pipeline(3, 5, kReal);
  write("hang_all", "");
  const pid_t driver = spawn({"run", "p.toml", "--study", "s"});
  const bool three = wait_until([&] {
    return fs::exists(dir_ / "pids") &&
           std::distance(fs::directory_iterator(dir_ / "pids"), fs::directory_iterator{}) >= 3;
  });
  ASSERT_EQ(kill(driver, SIGTERM), 0);
  int status = 0;
  waitpid(driver, &status, 0);
  ASSERT_TRUE(three) << slurp(dir_ / "bg_err.txt");
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 130) << slurp(dir_ / "bg_err.txt");
  for (const auto& e : fs::directory_iterator(dir_ / "pids")) {
    const auto pid = static_cast<pid_t>(std::stol(e.path().filename().string()));
    EXPECT_TRUE(wait_until([&] { return !alive(pid); })) << "evaluation " << pid << " survived";
  }
  const json before = export_json("s");
  ASSERT_EQ(before.size(), 3u) << before.dump();
  for (const json& o : before) EXPECT_EQ(o["status"], "pending") << o.dump();
  // The resume may change the number of workers; the new number holds.
  write("fast", "");
  const CliResult r = arbo("run --resume --study s --quiet --set study.workers=2");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const json obs = export_json("s");
  EXPECT_EQ(obs.size(), 5u);
  for (const json& o : obs) EXPECT_EQ(o["status"], "complete") << o.dump();
  check_seen(5, 2);
  EXPECT_NE(arbo("show s --pipeline").out.find("workers = 2"), std::string::npos);
}

TEST_F(Parallel, ExclusionWithPendingPointsEndsOnceEveryPointIsEvaluated) {
  // 12 points, budget 30, 4 at once: pending points count as evaluated, so the study ends
  // when the last ones are proposed, and lets them finish.
  write_pipeline(4, 30, kDiscrete,
                 "[inner_solver]\nplugin = \"random\"\n[proposal]\nexclude_evaluated = true\n");
  const CliResult r = arbo("run p.toml --study s --quiet");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE((r.out + r.err).find("every point has been evaluated"), std::string::npos) << r.out;
  const json obs = export_json("s");
  std::set<std::string> points;
  for (const json& o : obs) {
    EXPECT_EQ(o["status"], "complete") << o.dump();
    points.insert(o["params"].dump());
  }
  EXPECT_EQ(obs.size(), 12u);
  EXPECT_EQ(points.size(), 12u);
}

TEST_F(Parallel, AskedPointsArePendingForTheNextAsk) {
  // Six asks without a tell on 12 points: random draws repeat some (the log says how they
  // were replaced), the answers never do.
  write_pipeline(1, 12, kDiscrete);
  ASSERT_EQ(arbo("init p.toml --study s").code, 0);
  std::set<std::string> points;
  for (int i = 0; i < 6; ++i) {
    const CliResult r = arbo("ask s");
    ASSERT_EQ(r.code, 0) << r.err;
    points.insert(json::parse(r.out)["params"].dump());
  }
  EXPECT_EQ(points.size(), 6u);
  EXPECT_NE(slurp(dir_ / "s" / "arbo.log").find("repeated the pending point"), std::string::npos)
      << "the test no longer exercises a repeated draw";
}

TEST_F(Parallel, AProblemPluginIsEvaluatedOnePointAtATime) {
  write("p.toml",
        "[study]\nbudget = 4\nworkers = 3\n[problem]\nplugin = \"branin\"\n"
        "[inner_solver]\nplugin = \"random\"\n");
  const CliResult r = arbo("run p.toml --study s --quiet");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(export_json("s").size(), 4u);
  EXPECT_NE(slurp(dir_ / "s" / "arbo.log").find("evaluated one point at a time"),
            std::string::npos);
}

TEST_F(Parallel, WorkersMustBeAPositiveInteger) {
  for (const char* value : {"0", "2.5", "\"4\"", "-1"}) {
    SCOPED_TRACE(value);
    write("p.toml", std::string("[study]\nbudget = 4\nworkers = ") + value +
                        "\n[problem]\nplugin = \"branin\"\n[inner_solver]\nplugin = \"random\"\n");
    const CliResult r = arbo("run p.toml --study s");
    EXPECT_EQ(r.code, 3) << r.out << r.err;
    EXPECT_NE(r.err.find("study.workers"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("p.toml"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(" 3 | workers = "), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "s" / "study.db"));
  }
}

}  // namespace
