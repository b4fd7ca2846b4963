// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include <filesystem>
#include <fstream>

#include "arbo/kernel/evaluator.hpp"
#include "common/temp_dir.hpp"

namespace arbo::kernel {
namespace {

namespace fs = std::filesystem;

const std::vector<BlackBoxConstraint> kTwo{{"mem", 16.0, true}, {"acc", 0.9, false}};

TEST(ParseCommandOutput, AcceptsNumbersObjectsAndArrays) {
  auto o = parse_command_output("  1.5\n", {});
  ASSERT_TRUE(o.ok) << o.reason;
  EXPECT_EQ(o.objective, 1.5);
  o = parse_command_output(R"({"objective": -2, "constraints": {"acc": 0.95, "mem": 3}})", kTwo);
  ASSERT_TRUE(o.ok) << o.reason;
  EXPECT_EQ(o.objective, -2);
  EXPECT_EQ(o.constraints[0], 3);
  EXPECT_EQ(o.constraints[1], 0.95);
  o = parse_command_output(R"({"objective": 4, "constraints": [1, 2]})", kTwo);
  ASSERT_TRUE(o.ok) << o.reason;
  EXPECT_EQ(o.constraints[1], 2);
  // Logging before the result line is tolerated.
  o = parse_command_output("epoch 1 loss 3\nepoch 2 loss 2\n{\"objective\": 2}\n", {});
  ASSERT_TRUE(o.ok) << o.reason;
  EXPECT_EQ(o.objective, 2);
}

TEST(ParseCommandOutput, RejectsGarbageNaNAndMissingValues) {
  struct Case {
    std::string text;
    std::vector<BlackBoxConstraint> cons;
    std::string reason_part;
  };
  const std::vector<Case> cases{
      {"", {}, "command output is empty"},
      {"hello world", {}, "not valid JSON"},
      {"NaN", {}, "NaN or infinite"},
      {R"({"objective": NaN})", {}, "NaN or infinite"},
      {R"({"objective": -Infinity})", {}, "NaN or infinite"},
      {R"({"objective": "high"})", {}, "not a number"},
      {R"({"value": 3})", {}, "no \"objective\""},
      {R"({"error": "diverged"})", {}, "diverged"},
      {R"([1, 2])", {}, "neither a number nor an object"},
      {"3.0", kTwo, "bare number"},
      {R"({"objective": 1})", kTwo, "no \"constraints\""},
      {R"({"objective": 1, "constraints": {"mem": 1}})", kTwo, "'acc' is missing"},
      {R"({"objective": 1, "constraints": {"mem": 1, "acc": NaN}})", kTwo, "'acc' is not a finite"},
      {R"({"objective": 1, "constraints": [1]})", kTwo, "array of 2"},
  };
  for (const auto& c : cases) {
    const auto o = parse_command_output(c.text, c.cons);
    EXPECT_FALSE(o.ok) << c.text;
    EXPECT_NE(o.reason.find(c.reason_part), std::string::npos)
        << "output '" << c.text << "' gave reason '" << o.reason << "'";
  }
}

class CommandEvaluatorTest : public arbo::test::TempDirTest {
 protected:
  CommandEvaluatorTest() : TempDirTest("arbo_eval_test_") {}

  EvalOutcome run(const std::string& script, double timeout = 10.0,
                  std::vector<BlackBoxConstraint> cons = {}) {
    std::ofstream(dir_ / "obj.sh") << script;
    ProblemSpec spec;
    spec.command = {"/bin/sh", "obj.sh"};
    spec.timeout_seconds = timeout;
    auto ev = make_command_evaluator(spec, std::move(cons), dir_);
    return ev->evaluate(7, Eigen::VectorXd::Zero(1), R"({"x": 0.25})");
  }
};

TEST_F(CommandEvaluatorTest, PassesThePointAndReadsTheResult) {
  // The script echoes back what it read so the test sees the exact input protocol.
  const auto o =
      run("read line\n"
          "case \"$line\" in *'\"id\": 7'*'\"x\": 0.25'*) echo 42.5;; *) echo bad;; esac\n");
  ASSERT_TRUE(o.ok) << o.reason;
  EXPECT_EQ(o.objective, 42.5);
}

TEST_F(CommandEvaluatorTest, CrashIsAFailureWithStderr) {
  const auto o = run("echo 'Traceback: boom' >&2\nexit 3\n");
  EXPECT_FALSE(o.ok);
  EXPECT_NE(o.reason.find("exited with status 3"), std::string::npos) << o.reason;
  EXPECT_NE(o.reason.find("Traceback: boom"), std::string::npos) << o.reason;
}

TEST_F(CommandEvaluatorTest, SignalIsAFailure) {
  const auto o = run("kill -SEGV $$\n");
  EXPECT_FALSE(o.ok);
  EXPECT_NE(o.reason.find("signal 11"), std::string::npos) << o.reason;
}

TEST_F(CommandEvaluatorTest, HangIsKilledAtTheTimeoutWithItsChildren) {
  // The background sleep holds stdout open: the whole process group must be killed.
  const auto o = run("sleep 30 &\nsleep 30\n", 0.5);
  EXPECT_FALSE(o.ok);
  EXPECT_NE(o.reason.find("timed out after 0.5 s"), std::string::npos) << o.reason;
}

TEST_F(CommandEvaluatorTest, GarbageAndNaNAreFailures) {
  auto o = run("echo 'segmentation fault (core dumped)'\n");
  EXPECT_FALSE(o.ok);
  EXPECT_NE(o.reason.find("not valid JSON"), std::string::npos) << o.reason;
  o = run("echo '{\"objective\": NaN}'\n");
  EXPECT_FALSE(o.ok);
  EXPECT_NE(o.reason.find("NaN"), std::string::npos) << o.reason;
}

TEST_F(CommandEvaluatorTest, CommandThatIgnoresStdinAndPrintsALot) {
  // 2 MB of output before the result, without reading stdin: no deadlock, no SIGPIPE.
  const auto o = run("head -c 2000000 /dev/zero | tr '\\0' 'x'\necho\necho 1.25\n");
  ASSERT_TRUE(o.ok) << o.reason;
  EXPECT_EQ(o.objective, 1.25);
}

// [study] workers: evaluate() runs on several threads at once, and no command's supervisor holds
// a pipe of another running evaluation. One that did would keep that command's stdin open (it
// would never see EOF) and its life pipe (its supervisor would not see the driver die).
TEST_F(CommandEvaluatorTest, ConcurrentEvaluationsDoNotHoldEachOthersPipes) {
  // Observation 1 waits for the file `go`; the others print how many pipes their supervisor
  // (the command's parent) holds.
  std::ofstream(dir_ / "obj.sh")
      << "read line\n"
         "case \"$line\" in *'\"id\": 1,'*)\n"
         "  touch started; i=0\n"
         "  while [ ! -e go ] && [ $i -lt 3000 ]; do sleep 0.01; i=$((i+1)); done\n"
         "  echo 0; exit 0;;\n"
         "esac\n"
         "ls -l /proc/$PPID/fd | grep -c pipe:\n";
  ProblemSpec spec;
  spec.command = {"/bin/sh", "obj.sh"};
  spec.timeout_seconds = 60.0;
  auto ev = make_command_evaluator(spec, {}, dir_);
  const EvalOutcome alone = ev->evaluate(2, Eigen::VectorXd::Zero(1), "{}");
  ASSERT_TRUE(alone.ok) << alone.reason;
  EvalOutcome first;
  std::thread t([&] { first = ev->evaluate(1, Eigen::VectorXd::Zero(1), "{}"); });
  for (int i = 0; i < 3000 && !fs::exists(dir_ / "started"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const bool started = fs::exists(dir_ / "started");
  const EvalOutcome beside = ev->evaluate(3, Eigen::VectorXd::Zero(1), "{}");
  std::ofstream(dir_ / "go") << "";
  t.join();
  ASSERT_TRUE(started);
  ASSERT_TRUE(first.ok) << first.reason;
  ASSERT_TRUE(beside.ok) << beside.reason;
  EXPECT_EQ(beside.objective, alone.objective)
      << "the supervisor of a command started beside another holds that one's pipes";
}

TEST(CommandEvaluator, MissingExecutableIsAFailureNamingIt) {
  ProblemSpec spec;
  spec.command = {"/nonexistent/arbo-objective"};
  auto ev = make_command_evaluator(spec, {}, fs::temp_directory_path());
  const auto o = ev->evaluate(1, Eigen::VectorXd::Zero(1), "{}");
  EXPECT_FALSE(o.ok);
  EXPECT_NE(o.reason.find("/nonexistent/arbo-objective"), std::string::npos) << o.reason;
}

}  // namespace
}  // namespace arbo::kernel
