// SPDX-License-Identifier: MIT
// [problem] executor = "slurm" through the real CLI against a real single-node cluster (the
// ctest fixture starts it; SLURM_CONF points at it). The objective records, per observation,
// every invocation and the Slurm job it ran in (calls/<id>), so the tests assert that each
// evaluation ran once, as the job the study recorded, whatever was killed in between.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/cli_harness.hpp"

namespace {

namespace fs = std::filesystem;
using arbo::test::CliResult;
using arbo::test::slurp;
using arbo::test::wait_until;
using nlohmann::json;

// What each observation does is set by files in the test directory, read by the job:
// hold_<id> (wait for gate_<id>), fail_<id> (exit 3 with "boom" on stderr), cancel_<id> (scancel
// its own job), slow_<id> (sleep past any time limit), graceful_<id> (sleep past any time limit,
// and on SIGTERM print a result and exit 0). Every evaluation marks itself running,
// waits up to the seconds in the file `barrier` (default 10) for another to run beside it, and
// records the most it saw running (seen.txt).
constexpr const char* kObjective = R"(import json, os, subprocess, sys, time
req = json.load(sys.stdin)
i, p = req["id"], req["params"]
job = os.environ.get("SLURM_JOB_ID", "")
os.makedirs("calls", exist_ok=True)
with open("calls/%d" % i, "a") as f:
    f.write(job + "\n")
os.makedirs("running", exist_ok=True)
open("running/%d" % i, "w").close()
barrier = float(open("barrier").read()) if os.path.exists("barrier") else 10.0
seen = 1
deadline = time.time() + barrier
while True:
    seen = max(seen, len(os.listdir("running")))
    if seen > 1 or time.time() > deadline:
        break
    time.sleep(0.05)
time.sleep(0.2)
seen = max(seen, len(os.listdir("running")))
if os.path.exists("hold_%d" % i):
    while not os.path.exists("gate_%d" % i):
        time.sleep(0.05)
os.remove("running/%d" % i)
with open("seen.txt", "a") as f:
    f.write("%d %d\n" % (i, seen))
if os.path.exists("fail_%d" % i):
    sys.stderr.write("boom\n")
    sys.exit(3)
if os.path.exists("cancel_%d" % i):
    subprocess.run(["scancel", job])
    time.sleep(120)
if os.path.exists("slow_%d" % i):
    time.sleep(600)
if os.path.exists("graceful_%d" % i):
    import signal
    def done(*_):
        print(json.dumps({"objective": 0.0}), flush=True)
        sys.exit(0)
    signal.signal(signal.SIGTERM, done)
    time.sleep(600)
print(json.dumps({"objective": sum((v - 0.3) ** 2 for v in p.values())}))
)";

class Slurm : public arbo::test::CliTest {
 protected:
  Slurm() : CliTest("arbo_slurm_") {}

  void SetUp() override {
    CliTest::SetUp();
    ASSERT_NE(std::getenv("SLURM_CONF"), nullptr) << "the test runs under ctest's slurm fixture";
  }

  // A test that failed half-way may leave jobs waiting for a gate file: they are cancelled, so
  // that the cluster's other tests do not wait behind them.
  void TearDown() override {
    for (const std::string& line : lines_of("squeue --noheader --format='%i|%o'")) {
      const auto bar = line.find('|');
      if (bar != std::string::npos && line.find(dir_.string(), bar) == bar + 1) {
        [[maybe_unused]] int rc = std::system(("scancel " + line.substr(0, bar)).c_str());
      }
    }
    CliTest::TearDown();
  }

  static std::vector<std::string> lines_of(const std::string& cmd) {
    std::vector<std::string> out;
    if (FILE* p = popen(cmd.c_str(), "r")) {
      char buf[4096];
      while (fgets(buf, sizeof buf, p) != nullptr) {
        std::string line = buf;
        while (!line.empty() && (line.back() == '\n' || line.back() == ' ')) line.pop_back();
        out.push_back(line);
      }
      pclose(p);
    }
    return out;
  }

  void write_pipeline(int workers, int budget, double timeout = 600.0,
                      const std::string& slurm_extra = "") {
    write("f.py", kObjective);
    write(
        "p.toml",
        "[study]\nseed = 3\nbudget = " + std::to_string(budget) +
            "\nworkers = " + std::to_string(workers) +
            "\n[problem]\ncommand = [\"python3\", \"f.py\"]\ntimeout = " + std::to_string(timeout) +
            "\nexecutor = \"slurm\"\n"
            "[[problem.parameters]]\nname = \"x\"\ntype = \"real\"\nlow = 0.0\n"
            "high = 1.0\n[[problem.parameters]]\nname = \"y\"\ntype = \"real\"\n"
            "low = 0.0\nhigh = 1.0\n"
            "[problem.slurm]\njob_name = \"arbotest\"\npoll = 0.5\n" +
            slurm_extra + "[initial_design]\nsize = 2\n[inner_solver]\nplugin = \"random\"\n");
  }

  // The jobs of each invocation of observation `id` (calls/<id>), in order.
  std::vector<std::string> calls(int id) {
    std::vector<std::string> out;
    std::istringstream in(slurp(dir_ / "calls" / std::to_string(id)));
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  }

  std::string job_id(int id) {
    std::string s = slurp(dir_ / "s" / "slurm" / std::to_string(id) / "job_id");
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
  }

  // The job's state as squeue reports it (empty: unknown).
  static std::string squeue_state(const std::string& job) {
    const auto lines = lines_of("squeue --noheader --states=all --format=%T --jobs=" + job);
    return lines.size() == 1 ? lines[0] : std::string();
  }

  std::map<std::int64_t, json> observations() {
    std::map<std::int64_t, json> by_id;
    for (const json& o : export_json("s")) by_id[o["id"].get<std::int64_t>()] = o;
    return by_id;
  }

  bool exists(const std::string& rel) { return fs::exists(dir_ / rel); }
};

TEST_F(Slurm, TwoWorkersRunEachEvaluationOnceAsItsOwnJob) {
  write_pipeline(2, 6);
  write("barrier", "3");  // the last evaluation runs alone
  const CliResult r = arbo("run p.toml --study s --quiet");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const auto obs = observations();
  ASSERT_EQ(obs.size(), 6u);
  std::set<std::string> jobs;
  for (const auto& [id, o] : obs) {
    EXPECT_EQ(o["status"], "complete") << o.dump();
    const auto c = calls(static_cast<int>(id));
    ASSERT_EQ(c.size(), 1u) << "observation " << id << " ran " << c.size() << " times";
    EXPECT_FALSE(c[0].empty()) << "observation " << id << " did not run as a Slurm job";
    EXPECT_EQ(c[0], job_id(static_cast<int>(id))) << "the recorded job is not the one that ran";
    jobs.insert(c[0]);
  }
  EXPECT_EQ(jobs.size(), 6u);
  // Two ran at once, never more.
  std::istringstream in(slurp(dir_ / "seen.txt"));
  int id = 0, seen = 0, most = 0;
  while (in >> id >> seen) {
    EXPECT_LE(seen, 2) << "observation " << id;
    most = std::max(most, seen);
  }
  EXPECT_EQ(most, 2) << slurp(dir_ / "seen.txt");
  EXPECT_EQ(arbo("show s").code, 0);
}

TEST_F(Slurm, FailedAndCancelledJobsAreFailedObservationsNamingTheCause) {
  write_pipeline(2, 4);
  write("barrier", "0");
  write("fail_2", "");
  write("cancel_3", "");
  const CliResult r = arbo("run p.toml --study s --quiet");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  auto obs = observations();
  ASSERT_EQ(obs.size(), 4u);
  const std::string failed = obs[2].dump();
  EXPECT_EQ(obs[2]["status"], "failed") << failed;
  for (const std::string& part :
       std::vector<std::string>{"slurm job " + job_id(2), "exited with status 3", "boom"}) {
    EXPECT_NE(failed.find(part), std::string::npos) << part << " not in " << failed;
  }
  const std::string cancelled = obs[3].dump();
  EXPECT_EQ(obs[3]["status"], "failed") << cancelled;
  EXPECT_NE(cancelled.find("slurm job " + job_id(3) + " ended CANCELLED"), std::string::npos)
      << cancelled;
  EXPECT_EQ(obs[1]["status"], "complete") << obs[1].dump();
  EXPECT_EQ(obs[4]["status"], "complete") << obs[4].dump();
}

TEST_F(Slurm, AJobPastItsTimeLimitIsAFailedObservationNamingTheLimit) {
  // problem.timeout = 30 s is Slurm's minimum, one minute; the jobs sleep ten. The first dies of
  // Slurm's SIGTERM, the second catches it and prints a result, which does not count: the job
  // ran out of its time either way.
  write_pipeline(3, 3, 30.0);
  write("barrier", "0");
  write("slow_1", "");
  write("graceful_2", "");
  const CliResult r = arbo("run p.toml --study s --quiet");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  auto obs = observations();
  ASSERT_EQ(obs.size(), 3u);
  for (int id : {1, 2}) {
    const std::string timed_out = obs[id].dump();
    EXPECT_EQ(obs[id]["status"], "failed") << timed_out;
    EXPECT_NE(timed_out.find("slurm job " + job_id(id) +
                             " ended TIMEOUT (its time limit: problem.timeout = 30 s, 1 min"),
              std::string::npos)
        << timed_out;
    EXPECT_NE(timed_out.find("DUE TO TIME LIMIT"), std::string::npos) << timed_out;
  }
  EXPECT_NE(obs[1].dump().find("its command was killed by signal 15"), std::string::npos)
      << obs[1].dump();
  EXPECT_NE(obs[2].dump().find("its command exited with status 0 after Slurm's SIGTERM"),
            std::string::npos)
      << obs[2].dump();
  EXPECT_EQ(obs[3]["status"], "complete") << obs[3].dump();
}

TEST_F(Slurm, SbatchRefusingTheJobIsAClearErrorThatConsumesNoEvaluation) {
  write_pipeline(2, 4, 600.0, "partition = \"no_such_partition\"\n");
  const CliResult r = arbo("run p.toml --study s --quiet");
  EXPECT_EQ(r.code, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("sbatch refused the job of observation"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("invalid partition"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--partition=no_such_partition"), std::string::npos) << r.err;
  // Nothing ran and nothing failed: the refused proposals stay pending.
  EXPECT_FALSE(exists("calls"));
  for (const auto& [id, o] : observations()) EXPECT_EQ(o["status"], "pending") << o.dump();
}

TEST_F(Slurm, KillNineWhileJobsRunThenResumeCollectsAndReattachesWithoutResubmitting) {
  write_pipeline(2, 4);
  write("hold_1", "");
  write("hold_2", "");
  const pid_t driver = spawn({"run", "p.toml", "--study", "s"});
  const bool both = wait_until([&] { return exists("running/1") && exists("running/2"); });
  ASSERT_EQ(kill(driver, SIGKILL), 0);
  int st = 0;
  waitpid(driver, &st, 0);
  ASSERT_TRUE(both) << slurp(dir_ / "bg_err.txt");
  const std::string job1 = job_id(1), job2 = job_id(2);
  ASSERT_FALSE(job1.empty());
  ASSERT_FALSE(job2.empty());
  EXPECT_EQ(squeue_state(job1), "RUNNING");
  EXPECT_EQ(squeue_state(job2), "RUNNING");
  // Observation 1 finishes while no driver runs; 2 is still running when the driver resumes.
  write("gate_1", "");
  ASSERT_TRUE(wait_until([&] { return exists("s/slurm/1/exit_code"); }));
  const pid_t resumed = spawn({"run", "--resume", "--study", "s", "--quiet"});
  // Observation 3 runs once the resumed driver has collected 1 and followed 2 again.
  ASSERT_TRUE(wait_until([&] { return exists("calls/3"); })) << slurp(dir_ / "bg_err.txt");
  EXPECT_EQ(squeue_state(job2), "RUNNING");
  write("gate_2", "");
  ASSERT_EQ(arbo::test::wait_exit_code(resumed), 0) << slurp(dir_ / "bg_err.txt");
  const auto obs = observations();
  ASSERT_EQ(obs.size(), 4u);
  for (const auto& [id, o] : obs) {
    EXPECT_EQ(o["status"], "complete") << o.dump();
    EXPECT_EQ(calls(static_cast<int>(id)).size(), 1u) << "observation " << id;
  }
  EXPECT_EQ(job_id(1), job1);
  EXPECT_EQ(job_id(2), job2);
  EXPECT_EQ(calls(1), std::vector<std::string>{job1});
  EXPECT_EQ(calls(2), std::vector<std::string>{job2});
}

TEST_F(Slurm, ADriverKilledRightAfterSbatchFindsItsJobByNameOnResume) {
  // The job is submitted held, so it cannot have started (and written its id) when the driver
  // dies between sbatch's answer and the job_id file: only squeue knows it.
  write_pipeline(1, 2, 600.0, "sbatch_args = [\"--hold\"]\n");
  write("barrier", "0");
  const pid_t driver =
      spawn({"run", "p.toml", "--study", "s"}, "export ARBO_TEST_SIGNAL_AT=slurm:submitted;");
  EXPECT_EQ(arbo::test::wait_exit_code(driver), 128 + SIGKILL) << slurp(dir_ / "bg_err.txt");
  ASSERT_TRUE(exists("s/slurm/1/job.sh"));
  ASSERT_FALSE(exists("s/slurm/1/job_id"));
  const pid_t resumed = spawn({"run", "--resume", "--study", "s", "--quiet"});
  const bool found = wait_until([&] { return exists("s/slurm/1/job_id"); });
  const std::string job = job_id(1);
  if (found) {
    EXPECT_EQ(squeue_state(job), "PENDING");
    EXPECT_EQ(std::system(("scontrol release " + job).c_str()), 0);
  }
  // The second observation is held too: release it once submitted.
  const bool second = wait_until([&] { return exists("s/slurm/2/job_id"); });
  if (second) {
    EXPECT_EQ(std::system(("scontrol release " + job_id(2)).c_str()), 0);
  }
  const int code = arbo::test::wait_exit_code(resumed);
  ASSERT_TRUE(found && second) << slurp(dir_ / "bg_err.txt");
  ASSERT_EQ(code, 0) << slurp(dir_ / "bg_err.txt");
  EXPECT_EQ(calls(1), std::vector<std::string>{job});
  EXPECT_EQ(calls(2).size(), 1u);
  for (const auto& [id, o] : observations()) EXPECT_EQ(o["status"], "complete") << o.dump();
}

TEST_F(Slurm, InterruptWithCancelOnExitCancelsTheJobsAndResumeSubmitsThemAgain) {
  write_pipeline(2, 3);
  write("hold_1", "");
  write("hold_2", "");
  const pid_t driver = spawn({"run", "p.toml", "--study", "s", "--cancel-on-exit"});
  const bool both = wait_until([&] { return exists("running/1") && exists("running/2"); });
  ASSERT_EQ(kill(driver, SIGINT), 0);
  EXPECT_EQ(arbo::test::wait_exit_code(driver), 130) << slurp(dir_ / "bg_err.txt");
  ASSERT_TRUE(both) << slurp(dir_ / "bg_err.txt");
  const std::string job1 = job_id(1), job2 = job_id(2);
  EXPECT_TRUE(exists("s/slurm/1/cancelled"));
  EXPECT_TRUE(exists("s/slurm/2/cancelled"));
  // Cancelled jobs pass through COMPLETING while their processes are killed.
  EXPECT_TRUE(wait_until([&] { return squeue_state(job1) == "CANCELLED"; }, 30))
      << squeue_state(job1);
  EXPECT_TRUE(wait_until([&] { return squeue_state(job2) == "CANCELLED"; }, 30))
      << squeue_state(job2);
  for (const auto& [id, o] : observations()) EXPECT_EQ(o["status"], "pending") << o.dump();
  fs::remove(dir_ / "hold_1");
  fs::remove(dir_ / "hold_2");
  fs::remove_all(dir_ / "running");
  const CliResult r = arbo("run --resume --study s --quiet");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  for (const auto& [id, o] : observations()) EXPECT_EQ(o["status"], "complete") << o.dump();
  // The cancelled jobs ran again as new jobs.
  EXPECT_EQ(calls(1).size(), 2u);
  EXPECT_NE(job_id(1), job1);
  EXPECT_NE(job_id(2), job2);
}

}  // namespace
