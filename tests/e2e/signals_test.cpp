// SPDX-License-Identifier: MIT
// End-to-end tests of what happens around an external command and the driver's own process:
// signals to the driver, its death, the command's descriptors and descendants, the size of its
// output, and output that arbo cannot write. They wait for conditions with generous deadlines
// and assert no durations.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "common/cli_harness.hpp"

namespace {

namespace fs = std::filesystem;
using arbo::test::alive;
using arbo::test::CliResult;
using arbo::test::slurp;
using arbo::test::wait_until;
using nlohmann::json;

// A pipeline; `problem` is the body of its [problem] table.
std::string pipeline(const std::string& problem, int budget, int design = 2,
                     const std::string& solver = "random") {
  return "[study]\nseed = 3\nbudget = " + std::to_string(budget) + "\n[problem]\n" + problem +
         "[initial_design]\nsize = " + std::to_string(design) + "\n[inner_solver]\nplugin = \"" +
         solver + "\"\n";
}

// The [problem] body of an external command (`argv`, a TOML array) of one real parameter.
std::string command(const std::string& argv, double timeout = 120.0) {
  return "command = " + argv + "\ntimeout = " + std::to_string(timeout) +
         "\n[[problem.parameters]]\nname = \"x\"\ntype = \"real\"\nlow = 0.0\nhigh = 1.0\n";
}

// A command that records its pid and a child's, then waits long; with a file `fast` it answers
// at once. With `trap`, SIGTERM writes `got_term` (and ends it), or is ignored (`trap '' TERM`).
std::string long_command(const std::string& trap) {
  return command(R"(["sh", "-c", "if [ -e fast ]; then echo 1; exit 0; fi; )" + trap +
                 R"( sleep 300 & echo $! > child.pid; echo $$ > cmd.pid; wait"])");
}

class Signals : public arbo::test::CliTest {
 protected:
  Signals()
      : CliTest("arbo_signals_",
                std::string("ARBO_PLUGIN_PATH='") + ARBO_FAULTY_PLUGIN_DIR + "' ") {}

  // The wait status of `pid` once it ends, or nothing (and it is killed) after `seconds`.
  static std::optional<int> wait_exit(pid_t pid, double seconds = 60.0) {
    int status = 0;
    if (wait_until([&] { return waitpid(pid, &status, WNOHANG) == pid; }, seconds)) return status;
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return std::nullopt;
  }

  // The pid written to `file`, once it is there.
  std::optional<pid_t> pid_in(const std::string& file) {
    std::optional<pid_t> pid;
    wait_until([&] {
      std::istringstream in(slurp(dir_ / file));
      pid_t p = 0;
      if (in >> p && p > 0) pid = p;
      return pid.has_value();
    });
    return pid;
  }

  // Whether the study's lock is free (no driver, and no supervisor of a command left).
  bool lock_free(const std::string& study) {
    const int fd = ::open((dir_ / study / "lock").c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) return true;
    const bool free = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
    ::close(fd);
    return free;
  }

  // `arbo run` of study s on long_command(trap), once the command and its child run.
  struct Started {
    pid_t driver = 0, cmd = 0, child = 0;
  };
  std::optional<Started> start_long(const std::string& trap, const std::string& before = "") {
    write("p.toml", pipeline(long_command(trap), 3));
    Started s;
    s.driver = spawn({"run", "p.toml", "--study", "s"}, before);
    const auto cmd = pid_in("cmd.pid"), child = pid_in("child.pid");
    if (!cmd || !child) {
      kill(s.driver, SIGKILL);
      waitpid(s.driver, nullptr, 0);
      return std::nullopt;
    }
    s.cmd = *cmd;
    s.child = *child;
    return s;
  }

  // Whether the command and its child are gone (waiting for it).
  static bool gone(const Started& s) {
    return wait_until([&] { return !alive(s.cmd) && !alive(s.child); });
  }
};

TEST_F(Signals, SigtermDuringAnEvaluationEndsItsGroupAndLeavesItPending) {
  const auto run = start_long("trap 'echo > got_term; exit 1' TERM;");
  ASSERT_TRUE(run) << slurp(dir_ / "bg_err.txt");
  ASSERT_EQ(kill(run->driver, SIGTERM), 0);
  const auto status = wait_exit(run->driver);
  ASSERT_TRUE(status) << "arbo waited for the command instead of ending it";
  ASSERT_TRUE(WIFEXITED(*status)) << *status;
  EXPECT_EQ(WEXITSTATUS(*status), 130) << slurp(dir_ / "bg_err.txt");
  EXPECT_NE(slurp(dir_ / "bg_out.txt").find("arbo run --resume --study s"), std::string::npos);
  EXPECT_TRUE(fs::exists(dir_ / "got_term")) << "the command did not get SIGTERM first";
  EXPECT_TRUE(gone(*run));
  const json obs = export_json("s");
  ASSERT_EQ(obs.size(), 1u);
  EXPECT_EQ(obs[0]["status"], "pending") << obs.dump();
  // The study resumes where it stopped.
  write("fast", "");
  const CliResult r = arbo("run --resume --study s");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  for (const auto& o : export_json("s")) EXPECT_EQ(o["status"], "complete") << o.dump();
}

// Whether the signal mask `field` (SigIgn, SigCgt) in /proc/PID/status has `signal`.
bool signal_in(pid_t pid, const std::string& field, int signal) {
  std::istringstream in(slurp("/proc/" + std::to_string(pid) + "/status"));
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(field + ":", 0) == 0) {
      return (std::stoull(line.substr(field.size() + 1), nullptr, 16) >> (signal - 1)) & 1;
    }
  }
  return false;
}

TEST_F(Signals, NohupKeepsAHangupIgnoredAndAnIgnoredSigintStillStops) {
  // `nohup` ignores SIGHUP; a shell script's `arbo run &` ignores SIGINT.
  const auto run = start_long("trap 'echo > got_term; exit 1' TERM;", "trap '' INT HUP;");
  ASSERT_TRUE(run) << slurp(dir_ / "bg_err.txt");
  EXPECT_TRUE(signal_in(run->driver, "SigIgn", SIGHUP));
  EXPECT_TRUE(signal_in(run->driver, "SigCgt", SIGINT));
  EXPECT_TRUE(signal_in(run->driver, "SigCgt", SIGTERM));
  ASSERT_EQ(kill(run->driver, SIGINT), 0);
  const auto status = wait_exit(run->driver);
  ASSERT_TRUE(status && WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 130) << slurp(dir_ / "bg_err.txt");
  EXPECT_TRUE(gone(*run));
}

TEST_F(Signals, ASecondSigtermDoesNotLeaveTheCommandRunning) {
  // The command ignores SIGTERM: arbo waits for the grace period, and the second signal kills
  // arbo in the middle of it. The command's group must still be killed.
  const auto run = start_long("trap '' TERM;");
  ASSERT_TRUE(run) << slurp(dir_ / "bg_err.txt");
  ASSERT_EQ(kill(run->driver, SIGTERM), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  kill(run->driver, SIGTERM);
  ASSERT_TRUE(wait_exit(run->driver));
  EXPECT_TRUE(gone(*run)) << "the command's group outlived arbo";
  EXPECT_TRUE(wait_until([&] { return lock_free("s"); }));
  EXPECT_EQ(export_json("s")[0]["status"], "pending");
}

TEST_F(Signals, KillNineOfTheDriverEndsTheEvaluationBeforeAResumeCanStartIt) {
  const auto run = start_long("trap '' TERM;");
  ASSERT_TRUE(run) << slurp(dir_ / "bg_err.txt");
  ASSERT_EQ(kill(run->driver, SIGKILL), 0);
  ASSERT_TRUE(wait_exit(run->driver));
  write("fast", "");
  // While the old evaluation is being ended (it ignores SIGTERM: 2 s), the study stays
  // locked. A resume that returns while the old command still runs cannot have run.
  const CliResult early = arbo("run --resume --study s");
  if (alive(run->cmd) || alive(run->child)) {
    EXPECT_EQ(early.code, 5) << "a resume ran beside the evaluation it replaces: " << early.err;
  }
  if (early.code != 0) {
    EXPECT_NE(early.err.find("in use"), std::string::npos) << early.err;
  }
  EXPECT_TRUE(gone(*run)) << "the evaluation outlived the driver";
  ASSERT_TRUE(wait_until([&] { return lock_free("s"); }));
  const CliResult r = arbo("run --resume --study s");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const json obs = export_json("s");
  ASSERT_EQ(obs.size(), 3u);
  for (const auto& o : obs) EXPECT_EQ(o["status"], "complete") << o.dump();
}

TEST_F(Signals, CommandsInheritOnlyStdinStdoutAndStderr) {
  write("fds.py", R"(import os
names = []
for fd in sorted(os.listdir("/proc/self/fd"), key=int):
    try:
        names.append(fd + " " + os.readlink("/proc/self/fd/" + fd))
    except OSError:
        pass  # the descriptor listdir() used, closed by now
open("fds.txt", "w").write("\n".join(names) + "\n")
print(0)
)");
  write("p.toml", pipeline(command(R"(["python3", "fds.py"])"), 1, 1));
  const CliResult r = arbo("run p.toml --study s");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  std::istringstream in(slurp(dir_ / "fds.txt"));
  std::set<int> fds;
  std::string line;
  while (std::getline(in, line)) {
    fds.insert(std::stoi(line));
    EXPECT_EQ(line.find("arbo.log"), std::string::npos) << line;
    EXPECT_EQ(line.find("study.db"), std::string::npos) << line;
  }
  EXPECT_EQ(fds, (std::set<int>{0, 1, 2})) << slurp(dir_ / "fds.txt");
}

TEST_F(Signals, TheResultIsReadWhenTheCommandExitsWhateverItLeavesBehind) {
  // Observation 1 leaves a child that holds stdout open; observation 2 closes stdout and leaves
  // a child that holds stderr. Both printed their result and exited.
  write("obj.sh", R"(read -r input
case "$input" in
  *'"id": 1,'*) echo 1; sleep 300 & echo $! > left1.pid ;;
  *) echo 2; exec >&-; sleep 300 & echo $! > left2.pid ;;
esac
)");
  write("p.toml", pipeline(command(R"(["sh", "obj.sh"])", 60.0), 2));
  const CliResult r = arbo("run p.toml --study s");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const json obs = export_json("s");
  ASSERT_EQ(obs.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    ASSERT_EQ(obs[i]["status"], "complete") << obs[i].dump();
    EXPECT_EQ(obs[i]["objective"], static_cast<double>(i + 1));
  }
  // What the command left behind was killed with its group.
  for (const char* file : {"left1.pid", "left2.pid"}) {
    const auto pid = pid_in(file);
    ASSERT_TRUE(pid) << file;
    EXPECT_TRUE(wait_until([&] { return !alive(*pid); })) << file;
  }
}

TEST_F(Signals, TheResultLineIsFoundAfterAnyVolumeOfOutput) {
  // 6 MB of log lines then the result; then a last line longer than the 4 MiB that are kept.
  write("obj.py", R"(import json, sys
i = json.load(sys.stdin)["id"]
line = "a" * 99 + "\n"
if i == 1:
    sys.stdout.write(line * 60000)
    print(json.dumps({"objective": 0.25}))
else:
    sys.stdout.write(line * 1000 + "b" * (5 << 20) + "\n")
)");
  write("p.toml", pipeline(command(R"(["python3", "obj.py"])"), 2));
  const CliResult r = arbo("run p.toml --study s");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const json obs = export_json("s");
  ASSERT_EQ(obs.size(), 2u);
  ASSERT_EQ(obs[0]["status"], "complete") << obs[0].dump().substr(0, 300);
  EXPECT_EQ(obs[0]["objective"], 0.25);
  ASSERT_EQ(obs[1]["status"], "failed");
  EXPECT_NE(obs[1]["reason"].get<std::string>().find("line longer than 4 MiB"), std::string::npos)
      << obs[1]["reason"].get<std::string>().substr(0, 300);
}

TEST_F(Signals, SighupStopsLikeSigtermAndEveryProgressLineIsWritten) {
  write("p.toml", pipeline(command(R"(["sh", "-c", "echo 1"])"), 100000));
  const pid_t driver = spawn({"run", "p.toml", "--study", "s"});
  ASSERT_TRUE(wait_until([&] {
    const std::string out = slurp(dir_ / "bg_out.txt");
    return std::count(out.begin(), out.end(), '\n') >= 20;
  }));
  ASSERT_EQ(kill(driver, SIGHUP), 0);
  const auto status = wait_exit(driver);
  ASSERT_TRUE(status);
  ASSERT_TRUE(WIFEXITED(*status)) << "killed by signal " << WTERMSIG(*status);
  EXPECT_EQ(WEXITSTATUS(*status), 130) << slurp(dir_ / "bg_err.txt");
  const std::string out = slurp(dir_ / "bg_out.txt");
  std::size_t finished = 0;
  for (const auto& o : export_json("s")) {
    if (o["status"] == "pending") continue;
    ++finished;
    EXPECT_NE(out.find("obs " + std::to_string(o["id"].get<int>()) + " complete"),
              std::string::npos)
        << "no progress line for observation " << o["id"];
  }
  EXPECT_GE(finished, 20u);
  EXPECT_NE(out.find("resume with: arbo run --resume --study s"), std::string::npos);
}

TEST_F(Signals, CtrlCReachesThePluginsCancelled) {
  // The inner solver works until its context is cancelled: only the interrupt ends the run.
  write("p.toml", pipeline("plugin = \"faulty\"\n", 5, 2, "until_cancelled"));
  const pid_t driver = spawn({"run", "p.toml", "--study", "s"});
  ASSERT_TRUE(wait_until([&] {
    return slurp(dir_ / "s" / "arbo.log").find("solving until cancelled") != std::string::npos;
  })) << slurp(dir_ / "bg_err.txt");
  ASSERT_EQ(kill(driver, SIGINT), 0);
  const auto status = wait_exit(driver, 120.0);
  ASSERT_TRUE(status) << "the solve did not see the interrupt";
  ASSERT_TRUE(WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 130) << slurp(dir_ / "bg_err.txt");
  // The cut-short proposal is not recorded: a resume proposes it afresh.
  const json obs = export_json("s");
  ASSERT_EQ(obs.size(), 2u) << obs.dump();
  for (const auto& o : obs) EXPECT_EQ(o["status"], "complete");
}

TEST_F(Signals, OutputThatCannotBeWrittenIsAnErrorAndTheStudyIsKept) {
  write("p.toml", pipeline(command(R"(["sh", "-c", "echo 1"])"), 6));
  const std::string full = "No space left on device";
  CliResult r = arbo("run p.toml --study s", std::nullopt, "/dev/full");
  EXPECT_EQ(r.code, 7) << r.err;
  EXPECT_NE(r.err.find("cannot write standard output: " + full), std::string::npos) << r.err;
  // Said once while the run went on, once at the end.
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 2) << r.err;
  const json obs = export_json("s");
  ASSERT_EQ(obs.size(), 6u);
  for (const auto& o : obs) EXPECT_EQ(o["status"], "complete");

  for (const std::string args :
       {"show s", "show s --pipeline", "export s --format csv", "export s --format json",
        "check p.toml", "problems", "plugins", "--help"}) {
    r = arbo(args, std::nullopt, "/dev/full");
    EXPECT_EQ(r.code, 7) << args << ": " << r.err;
    EXPECT_EQ(r.err, "arbo: error: cannot write standard output: " + full + "\n") << args;
  }
  for (const std::string format : {"csv", "json"}) {
    r = arbo("export s --format " + format + " --output /dev/full");
    EXPECT_EQ(r.code, 7) << r.err;
    EXPECT_EQ(r.err, "arbo: error: cannot write /dev/full: " + full + "\n");
  }
  r = arbo("export s --format csv --output no/such/dir/x.csv");
  EXPECT_EQ(r.code, 7) << r.err;
  EXPECT_NE(r.err.find("cannot write no/such/dir/x.csv: No such file or directory"),
            std::string::npos)
      << r.err;
  // What can be written still is, with exit 0.
  r = arbo("export s --format csv --output s.csv");
  EXPECT_EQ(r.code, 0) << r.err;
  const std::string csv = slurp(dir_ / "s.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 7);
}

}  // namespace
