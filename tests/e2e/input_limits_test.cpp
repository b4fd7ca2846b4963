// SPDX-License-Identifier: MIT
// End-to-end: hostile or careless input to the real `arbo` binary. Each case crashed, hung,
// was silently accepted or consumed an evaluation before (issue 23); now each is refused with
// a documented exit code and a short message, or read within the parsers' limits.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "common/cli_harness.hpp"

namespace {

using arbo::test::CliResult;
using nlohmann::json;

std::string repeat(std::string_view s, std::size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (std::size_t i = 0; i < n; ++i) out += s;
  return out;
}

// A one-parameter external-command pipeline; `command` prints the result.
std::string command_pipeline(const std::string& command, int budget = 2,
                             const std::string& extra = "") {
  return "[study]\nbudget = " + std::to_string(budget) + "\n[problem]\ncommand = [\"python3\", \"" +
         command +
         "\"]\n[[problem.parameters]]\nname = \"x\"\ntype = \"real\"\nlow = 0.0\nhigh = 1.0\n" +
         extra + "[initial_design]\nsize = 1\n[inner_solver]\nplugin = \"random\"\n";
}

class InputLimits : public arbo::test::CliTest {
 protected:
  InputLimits() : CliTest("arbo_limits_") {}

  // A study `s` of `budget` observations whose command prints nothing useful, with one
  // pending observation (id 1) from `ask`.
  void pending_study(const std::string& extra = "") {
    write("never.py", "print('unused')\n");
    write("p.toml", command_pipeline("never.py", 3, extra));
    ASSERT_EQ(arbo("init p.toml --study s").code, 0);
    ASSERT_EQ(arbo("ask s").code, 0);
  }

  std::string status_of(const std::string& study, int id) {
    const json obs = export_json(study);
    return obs.at(static_cast<std::size_t>(id - 1)).at("status").get<std::string>();
  }
};

// NaN and 30,000 spaces crashed the std::regex that mapped NaN to null; JSON nested 100,000
// deep crashed when its failure reason was written. Both are failed observations now.
TEST_F(InputLimits, CommandOutputThatCrashedTheParserIsAFailedObservation) {
  write("obj.py", R"(import json, sys
i = json.load(sys.stdin)["id"]
if i == 1: print('{"objective": NaN' + ' ' * 30000 + '}')
elif i == 2: print('{"objective": ' + '[' * 100000 + ']' * 100000 + '}')
else: print('{"error": ' + '{"a": ' * 100000 + '1' + '}' * 100000 + '}')
)");
  write("p.toml", command_pipeline("obj.py", 3));
  const CliResult r = arbo("run p.toml --study s -q");
  ASSERT_EQ(r.code, 0) << r.err.substr(0, 2000);
  const json obs = export_json("s");
  ASSERT_EQ(obs.size(), 3u);
  for (const auto& o : obs) EXPECT_EQ(o["status"], "failed") << o.dump().substr(0, 500);
  EXPECT_NE(obs[0]["reason"].get<std::string>().find("NaN or infinite"), std::string::npos);
  EXPECT_NE(obs[1]["reason"].get<std::string>().find("deeper than 64 levels"), std::string::npos);
  EXPECT_NE(obs[2]["reason"].get<std::string>().find("deeper than 64 levels"), std::string::npos);
  EXPECT_LT(r.err.size(), 5000u);
}

// A typo in `tell` must never consume the evaluation: exit 3, the observation stays pending,
// and a correct `tell` afterwards records it.
TEST_F(InputLimits, MalformedTellIsRefusedAndTheObservationStaysPending) {
  pending_study();
  for (const std::string& args :
       {std::string("--json 'not json'"), std::string("--json ''"),
        std::string("--json '{\"objective\": \"1\"}'"),
        std::string("--json '{\"objective\": 1e400}'"), std::string("--json NaN"),
        std::string("--json '{\"objective\": NaN}'"),
        std::string("--json '{\"objective\": NaN" + std::string(30000, ' ') + "}'"),
        std::string("--json '" + repeat("[", 50000) + repeat("]", 50000) + "'"),
        std::string("--json '{\"error\": " + repeat("[", 50000) + repeat("]", 50000) + "}'"),
        std::string("--objective nan"), std::string("--objective 1e400"),
        std::string("--objective 1abc"), std::string("--objective ' 1'")}) {
    const CliResult r = arbo("tell s 1 " + args);
    EXPECT_EQ(r.code, 3) << args.substr(0, 80) << "\n" << r.err.substr(0, 500);
    EXPECT_NE(r.err.find("nothing was recorded for observation 1"), std::string::npos)
        << r.err.substr(0, 500);
    EXPECT_LT(r.err.size(), 2000u) << args.substr(0, 80);
    EXPECT_EQ(status_of("s", 1), "pending") << args.substr(0, 80);
  }
  const CliResult ok = arbo("tell s 1 --json '{\"objective\": 0.5}'");
  ASSERT_EQ(ok.code, 0) << ok.err;
  EXPECT_EQ(status_of("s", 1), "complete");
}

// A failure the user reports on purpose is recorded: --failed, or {"error": ...}.
TEST_F(InputLimits, ReportedFailuresAreRecorded) {
  pending_study();
  CliResult r = arbo("tell s 1 --json '{\"error\": \"diverged\"}'");
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_EQ(arbo("ask s").code, 0);
  r = arbo("tell s 2 --failed 'out of memory'");
  ASSERT_EQ(r.code, 0) << r.err;
  const json obs = export_json("s");
  EXPECT_EQ(obs[0]["status"], "failed");
  EXPECT_NE(obs[0]["reason"].get<std::string>().find("diverged"), std::string::npos);
  EXPECT_EQ(obs[1]["reason"], "out of memory");
}

TEST_F(InputLimits, TellConstraintsAreReadStrictlyAndOnce) {
  pending_study("[[black_box_constraints]]\nname = \"cost\"\nthreshold = 5.0\n");
  for (const char* args :
       {"--objective 1 --constraint cost=1 --constraint cost=2",
        "--objective 1 --constraint cost=1x", "--objective 1 --constraint cost=inf",
        "--objective 1 --constraint cost=", "--objective 1"}) {
    const CliResult r = arbo(std::string("tell s 1 ") + args);
    EXPECT_EQ(r.code, 3) << args << "\n" << r.err;
    EXPECT_EQ(status_of("s", 1), "pending") << args;
  }
  const CliResult twice = arbo("tell s 1 --objective 1 --constraint cost=1 --constraint cost=2");
  EXPECT_NE(twice.err.find("--constraint cost is given twice"), std::string::npos) << twice.err;
  const CliResult r = arbo("tell s 1 --objective 1 --constraint cost=2");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(export_json("s")[0]["constraints"]["cost"], 2.0);
}

// Found by bench/fuzz's problem_eval harness: the error about a line with a byte that is not
// UTF-8 quoted that byte, and writing it as JSON threw (exit 1).
TEST_F(InputLimits, ProblemEvalReportsALineThatIsNotUtf8) {
  const CliResult r = arbo("problem eval branin",
                           "{\"x1\": \xe6"
                           "100, \"x2\": 1}\n{\"x1\": 3, \"x2\": 2}\n");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto nl = r.out.find('\n');
  ASSERT_NE(nl, std::string::npos) << r.out;
  EXPECT_TRUE(json::parse(r.out.substr(0, nl)).contains("error")) << r.out;
  EXPECT_TRUE(json::parse(r.out.substr(nl + 1)).contains("objective")) << r.out;
}

TEST_F(InputLimits, ProblemEvalLinesAreBounded) {
  const std::string deep = "{\"x1\": " + repeat("[", 100000) + repeat("]", 100000) + "}";
  const std::string deep_id = "{\"id\": " + repeat("{\"a\": ", 100000) + "1" + repeat("}", 100000) +
                              ", \"x1\": 1, \"x2\": 2}";
  const std::string huge = "{\"x1\": \"" + std::string(9u << 20, 'x') + "\"}";
  const CliResult r = arbo("problem eval branin",
                           deep + "\n" + deep_id + "\n" + huge + "\n{\"x1\": 3, \"x2\": 2}\n");
  ASSERT_EQ(r.code, 0) << r.err.substr(0, 2000);
  std::vector<json> lines;
  std::size_t start = 0;
  for (std::size_t nl = r.out.find('\n'); nl != std::string::npos; nl = r.out.find('\n', start)) {
    lines.push_back(json::parse(r.out.substr(start, nl - start)));
    start = nl + 1;
  }
  ASSERT_EQ(lines.size(), 4u) << r.out.substr(0, 2000);
  EXPECT_NE(lines[0]["error"].get<std::string>().find("deeper than 64"), std::string::npos);
  EXPECT_NE(lines[1]["error"].get<std::string>().find("deeper than 64"), std::string::npos);
  EXPECT_NE(lines[2]["error"].get<std::string>().find("longer than the limit"), std::string::npos);
  EXPECT_TRUE(lines[3].contains("objective")) << lines[3].dump();
  EXPECT_LT(r.out.size(), 5000u);
}

// toml11 parses recursively: nesting 10,000 deep in a file or a --set value crashed `check`.
TEST_F(InputLimits, DeepTomlIsRefusedNamingFileLineAndKey) {
  const std::string tail =
      "\n[problem]\nplugin = \"branin\"\n[inner_solver]\nplugin = \"random\"\n";
  write("arrays.toml",
        "[study]\nname = \"a\"\nx = " + repeat("[", 10000) + repeat("]", 10000) + tail);
  write("tables.toml",
        "[study]\nname = \"t\"\nx = " + repeat("{a = ", 10000) + "1" + repeat("}", 10000) + tail);
  write("keys.toml", "[study]\nname = \"k\"\n" + repeat("a.", 10000) + "a = 1" + tail);
  write("plain.toml", tail);
  for (const char* file : {"arrays.toml", "tables.toml", "keys.toml"}) {
    const CliResult r = arbo(std::string("check ") + file);
    EXPECT_EQ(r.code, 3) << file << "\n" << r.err.substr(0, 1000);
    EXPECT_NE(r.err.find(std::string(file) + "\n"), std::string::npos) << r.err.substr(0, 1000);
    EXPECT_NE(r.err.find(" 3 | "), std::string::npos) << r.err.substr(0, 1000);
    EXPECT_LT(r.err.size(), 2000u) << file;
  }
  EXPECT_NE(arbo("check arrays.toml").err.find("[error] x: arrays and inline tables nested deeper"),
            std::string::npos);
  const CliResult set =
      arbo("check plain.toml --set 'study.x=" + repeat("[", 10000) + repeat("]", 10000) + "'");
  EXPECT_EQ(set.code, 3) << set.err.substr(0, 1000);
  EXPECT_NE(set.err.find("nested deeper than 64 levels"), std::string::npos)
      << set.err.substr(0, 500);
}

TEST_F(InputLimits, PipelineFilesThatAreNotFilesAreRefused) {
  // /dev/zero never ended; a directory was "no [problem] table" for `run`.
  for (const char* command :
       {"check /dev/zero", "run /dev/zero --study z", "init /dev/zero --study z"}) {
    const CliResult r = arbo(command);
    EXPECT_EQ(r.code, 3) << command << "\n" << r.err.substr(0, 500);
    EXPECT_NE(r.err.find("larger than the limit of 8 MiB"), std::string::npos)
        << r.err.substr(0, 500);
  }
  ASSERT_TRUE(std::filesystem::create_directory(dir_ / "d"));
  for (const char* command : {"check d", "run d", "init d"}) {
    const CliResult r = arbo(command);
    EXPECT_EQ(r.code, 3) << command;
    EXPECT_NE(r.err.find("'d': it is a directory"), std::string::npos) << command << ": " << r.err;
  }
  const CliResult solve = arbo("solve /dev/zero");
  EXPECT_EQ(solve.code, 3) << solve.err.substr(0, 500);
}

// Resuming with --set and no file skipped validation: a NaN time limit was stored and every
// later resume failed. The values now go through the pipeline loader, as with a file.
TEST_F(InputLimits, ResumeSetIsValidatedLikeAFile) {
  write("obj.py", "import json, sys\njson.load(sys.stdin)\nprint(1.0)\n");
  write("p.toml", command_pipeline("obj.py", 2));
  ASSERT_EQ(arbo("run p.toml --study s -q").code, 0);
  for (const char* set : {"study.time_limit=nan", "study.time_limit=inf", "study.time_limit=-1",
                          "study.budget=40abc", "study.budget=60.9", "study.budget=1e3",
                          "study.budget=100000000000000000000", "study.time_limit=1e10"}) {
    const CliResult r = arbo(std::string("run --resume --study s -q --set '") + set + "'");
    EXPECT_EQ(r.code, 3) << set << "\n" << r.err;
    EXPECT_NE(r.err.find("(from --set)"), std::string::npos) << set << "\n" << r.err;
  }
  // Nothing was stored by the refused values: the study resumes, and a valid --set extends it.
  const CliResult r = arbo("run --resume --study s -q --set 'study.budget= 3'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(export_json("s").size(), 3u);
}

TEST_F(InputLimits, NumbersBeyondTheirTypeAreRefusedNamingTheKey) {
  const std::string tail = "[problem]\nplugin = \"branin\"\n[inner_solver]\nplugin = \"random\"\n";
  for (const std::string& study : {std::string("seed = 18446744073709551616"),
                                   std::string("seed = 100000000000000000000000000"),
                                   std::string("budget = 100000000000000000000")}) {
    write("p.toml", "[study]\n" + study + "\n" + tail);
    const CliResult r = arbo("check p.toml");
    EXPECT_EQ(r.code, 3) << study;
    EXPECT_NE(r.err.find("integer out of range"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("[error] study." + study.substr(0, study.find(' '))), std::string::npos)
        << r.err;
  }
  write("p.toml", tail);
  EXPECT_EQ(arbo("check p.toml --set study.seed=18446744073709551616").code, 3);
  EXPECT_EQ(arbo("problem eval branin --seed -1", "").code, 2);
}

TEST_F(InputLimits, LongValuesAreEchoedShort) {
  const std::string name(1 << 20, 'x');
  write("p.toml", "[problem]\nplugin = \"" + name + "\"\n[inner_solver]\nplugin = \"random\"\n");
  CliResult r = arbo("check p.toml");
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("unknown problem plugin 'xxx"), std::string::npos) << r.err.substr(0, 500);
  EXPECT_LT(r.err.size(), 3000u);
  r = arbo("problem eval " + std::string(100000, 'y'), "");
  EXPECT_EQ(r.code, 3);
  EXPECT_LT(r.err.size(), 3000u);
  // A plugin's message quoting the value (the expression's line under a caret) is cut too.
  write("k.toml",
        "[problem]\nplugin = \"branin\"\n[[known_constraints]]\nplugin = "
        "\"polynomial\"\nexpression = \"x1 + " +
            name + " <= 3\"\n[inner_solver]\nplugin = \"random\"\n");
  r = arbo("check k.toml");
  EXPECT_EQ(r.code, 4) << r.err.substr(0, 500);
  EXPECT_NE(r.err.find("constraint/polynomial: create(): invalid expression"), std::string::npos)
      << r.err.substr(0, 500);
  EXPECT_LT(r.err.size(), 10000u);
}

TEST_F(InputLimits, MissingPluginPathEntriesAreWarnedAboutOnce) {
  write("file", "");
  const CliResult r =
      arbo("--plugin-path nowhere --plugin-path nowhere --plugin-path file plugins");
  EXPECT_EQ(r.code, 0) << r.err;
  const std::string missing =
      "arbo: warning: --plugin-path 'nowhere' is ignored: no such directory";
  const auto first = r.err.find(missing);
  EXPECT_NE(first, std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(missing, first + 1), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--plugin-path 'file' is ignored: not a directory"), std::string::npos)
      << r.err;
  const CliResult env = arbo("plugins");  // no user entries: no warning
  EXPECT_EQ(env.err.find("is ignored"), std::string::npos) << env.err;
}

}  // namespace
