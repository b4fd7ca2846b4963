// SPDX-License-Identifier: MIT
// End-to-end tests of a study's integrity through the real `arbo` binary: a creation that is
// interrupted leaves no study, one driver per study, `export --output` never writes into the
// study, and damaged or unusual content gives the documented exit codes.
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/cli_harness.hpp"

namespace {

namespace fs = std::filesystem;
using arbo::test::CliResult;
using arbo::test::slurp;
using nlohmann::json;

const std::string kPipeline = arbo::test::random_search_pipeline(7, 12);

void sql(const fs::path& db, const std::string& statements) {
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  char* err = nullptr;
  const int rc = sqlite3_exec(h, statements.c_str(), nullptr, nullptr, &err);
  EXPECT_EQ(rc, SQLITE_OK) << (err ? err : "") << "\n" << statements;
  sqlite3_free(err);
  sqlite3_close(h);
}

class StudyIntegrity : public arbo::test::CliTest {
 protected:
  StudyIntegrity() : CliTest("arbo_integrity_") {}

  // Starts `arbo <args>` in dir_ with ARBO_TEST_SIGNAL_AT = `hook` (none when empty); output
  // goes to <name>.out / <name>.err.
  pid_t spawn(const std::vector<std::string>& args, const std::string& hook,
              const std::string& name) {
    return arbo::test::spawn_arbo(dir_, args, {"ARBO_TEST_SIGNAL_AT=" + hook},
                                  dir_ / (name + ".out"), dir_ / (name + ".err"));
  }

  static int wait_code(pid_t pid) { return arbo::test::wait_exit_code(pid); }
};

// Killed after the pipeline was written but before the creation committed: the directory holds
// no study; --resume says so and what to do, a new run or init starts again.
TEST_F(StudyIntegrity, AnInterruptedCreationIsNoStudyAndANewRunStartsAgain) {
  write("p.toml", kPipeline);
  ASSERT_EQ(arbo("run p.toml --study ref -q").code, 0);
  const json ref = export_json("ref");
  ASSERT_EQ(ref.size(), 12u);

  for (const std::string command : {"run", "init"}) {
    SCOPED_TRACE(command);
    const std::string s = "s_" + command;
    const pid_t pid = spawn({command, "p.toml", "--study", s}, "create:meta:KILL", s);
    ASSERT_EQ(wait_code(pid), 128 + SIGKILL) << slurp(dir_ / (s + ".err"));
    ASSERT_TRUE(fs::exists(dir_ / s / "study.db"));

    CliResult r = arbo("run --resume --study " + s + " -q");
    EXPECT_EQ(r.code, 5);
    EXPECT_NE(r.err.find(s + " holds no study: its creation did not complete"), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("without --resume"), std::string::npos) << r.err;
    for (const std::string reader : {"show ", "export ", "ask "}) {
      r = arbo(reader + s);
      EXPECT_EQ(r.code, 5) << reader;
      EXPECT_NE(r.err.find("its creation did not complete"), std::string::npos) << r.err;
    }
    r = arbo(command == "run" ? "run p.toml -q --study " + s : "init p.toml --study " + s);
    ASSERT_EQ(r.code, 0) << r.err;
    if (command == "init") {
      ASSERT_EQ(arbo("run --resume --study " + s + " -q").code, 0);
    }
    const json obs = export_json(s);
    ASSERT_EQ(obs.size(), ref.size());
    for (std::size_t i = 0; i < obs.size(); ++i) {
      EXPECT_EQ(obs[i]["params"], ref[i]["params"]) << i;
      EXPECT_EQ(obs[i]["objective"], ref[i]["objective"]) << i;
    }
  }
}

// What older builds left when killed between committing the schema and the pipeline: a bare
// schema, a lock and a log. Both --resume (exit 5, saying what to do) and a new run cope.
TEST_F(StudyIntegrity, AnOlderBuildsInterruptedCreationIsClearedByANewRun) {
  write("p.toml", kPipeline);
  ASSERT_EQ(arbo("init p.toml --study s").code, 0);
  sql(dir_ / "s" / "study.db", "DELETE FROM meta WHERE key <> 'schema_version'");
  CliResult r = arbo("run --resume --study s -q");
  EXPECT_EQ(r.code, 5);
  EXPECT_NE(r.err.find("its creation did not complete"), std::string::npos) << r.err;
  r = arbo("run p.toml --study s -q");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(export_json("s").size(), 12u);
  // A study with its pipeline is never cleared.
  r = arbo("run p.toml --study s -q");
  EXPECT_EQ(r.code, 5);
  EXPECT_NE(r.err.find("already holds a study"), std::string::npos) << r.err;
  EXPECT_EQ(export_json("s").size(), 12u);
}

TEST_F(StudyIntegrity, ExportRefusesAnOutputInsideTheStudy) {
  write("p.toml", kPipeline);
  ASSERT_EQ(arbo("run p.toml --study s -q").code, 0);
  const json before = export_json("s");
  ASSERT_EQ(before.size(), 12u);
  fs::create_symlink(dir_ / "s" / "study.db", dir_ / "link.csv");
  fs::create_symlink(dir_ / "s" / "new.csv", dir_ / "dangling.csv");
  fs::create_symlink(dir_ / "s", dir_ / "s_link");
  fs::create_hard_link(dir_ / "s" / "study.db", dir_ / "hard.db");
  for (const std::string& output :
       std::vector<std::string>{"s/study.db", "s/study.db-wal", "s/lock", "s/arbo.log", "s/new.csv",
                                "s", "s/", "./s/../s/study.db", "link.csv", "dangling.csv",
                                "s_link/study.db", "hard.db", (dir_ / "s" / "study.db").string()}) {
    for (const std::string format : {"csv", "json"}) {
      const CliResult r = arbo("export s --format " + format + " --output '" + output + "'");
      EXPECT_EQ(r.code, 2) << output;
      EXPECT_NE(r.err.find("--output " + output + " is inside the study directory s"),
                std::string::npos)
          << r.err;
    }
  }
  EXPECT_FALSE(fs::exists(dir_ / "s" / "new.csv"));
  EXPECT_EQ(export_json("s"), before);
  EXPECT_EQ(arbo("run --resume --study s -q").code, 0);
  // Beside the study is fine.
  const CliResult r = arbo("export s --format csv --output s.csv");
  EXPECT_EQ(r.code, 0) << r.err;
  const std::string csv = slurp(dir_ / "s.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 13);
}

TEST_F(StudyIntegrity, AStudyPathThatIsAFileExitsFive) {
  write("p.toml", kPipeline);
  write("afile", "not a directory\n");
  for (const std::string args :
       {"run p.toml --study afile", "init p.toml --study afile", "run p.toml --study afile/sub",
        "init p.toml --study afile/sub", "run --resume --study afile", "show afile", "export afile",
        "ask afile", "tell afile 1 --objective 1"}) {
    const CliResult r = arbo(args);
    EXPECT_EQ(r.code, 5) << args << "\n" << r.err;
    EXPECT_NE(r.err.find("afile"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
  }
  const CliResult r = arbo("run p.toml --study afile");
  EXPECT_NE(r.err.find("cannot create study directory afile: it exists and is not a directory"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(slurp(dir_ / "afile"), "not a directory\n");
}

// A log that cannot be opened is a study error, not an internal one, and a creation that
// fails on it leaves no study.
TEST_F(StudyIntegrity, AStudyLogThatCannotBeOpenedExitsFive) {
  write("p.toml", kPipeline);
  fs::create_directories(dir_ / "new" / "arbo.log");
  CliResult r = arbo("run p.toml --study new -q");
  EXPECT_EQ(r.code, 5) << r.err;
  EXPECT_NE(r.err.find("study new: cannot open its log"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "new" / "study.db"));
  ASSERT_EQ(arbo("init p.toml --study s").code, 0);
  fs::remove(dir_ / "s" / "arbo.log");
  fs::create_directories(dir_ / "s" / "arbo.log");
  r = arbo("run --resume --study s -q");
  EXPECT_EQ(r.code, 5) << r.err;
  EXPECT_NE(r.err.find("study s: cannot open its log"), std::string::npos) << r.err;
}

// Each damage of a row's point or values: every reader and --resume exit 5 and name the
// observation (before, a wrong length was read out of bounds: a crash or garbage).
TEST_F(StudyIntegrity, DamagedObservationsExitFiveNamingThem) {
  write("p.toml", kPipeline);
  ASSERT_EQ(arbo("run p.toml --study s -q").code, 0);
  const std::vector<std::pair<std::string, std::string>> damages{
      {"UPDATE observations SET x = substr(x, 1, 8) WHERE id = 5",
       "its point has 1 coordinates, the study has 2 parameters"},
      {"UPDATE observations SET x = zeroblob(32) WHERE id = 5",
       "its point has 4 coordinates, the study has 2 parameters"},
      {"UPDATE observations SET constraints = zeroblob(0) WHERE id = 5",
       "it has 0 constraint values, the study has 1 constraints"},
      {"UPDATE observations SET constraints = zeroblob(12) WHERE id = 5",
       "its constraint vector has 12 bytes"},
  };
  int n = 0;
  for (const auto& [damage, says] : damages) {
    const std::string copy = "d" + std::to_string(n++);
    fs::copy(dir_ / "s", dir_ / copy);
    sql(dir_ / copy / "study.db", damage);
    for (const std::string& args : std::vector<std::string>{
             "export " + copy + " --format json", "export " + copy + " --format csv",
             "show " + copy, "run --resume --study " + copy + " --set study.budget=14 -q",
             "ask " + copy}) {
      const CliResult r = arbo(args);
      EXPECT_EQ(r.code, 5) << args << "\n" << r.err;
      EXPECT_NE(r.err.find("observation 5 is damaged: " + says), std::string::npos) << args << "\n"
                                                                                    << r.err;
    }
  }
  // Damaged params of a finished observation: the readers that print them name it; a resumed
  // run never reads them (it works on the stored point) and goes on.
  const json obs = export_json("s");
  std::int64_t best = 0;
  double best_value = 1e300;
  for (const auto& o : obs) {
    if (o["feasible"] && o["objective"].get<double>() < best_value) {
      best = o["id"];
      best_value = o["objective"];
    }
  }
  ASSERT_GT(best, 0);
  fs::copy(dir_ / "s", dir_ / "p");
  sql(dir_ / "p" / "study.db",
      fmt::format("UPDATE observations SET params = '{{\"x1\": 3' WHERE id = {}", best));
  for (const std::string& args :
       std::vector<std::string>{"export p --format json", "export p --format csv", "show p"}) {
    const CliResult r = arbo(args);
    EXPECT_EQ(r.code, 5) << args << "\n" << r.err;
    EXPECT_NE(
        r.err.find(fmt::format("observation {} is damaged: its params are not valid JSON", best)),
        std::string::npos)
        << args << "\n"
        << r.err;
  }
  EXPECT_EQ(arbo("run --resume --study p --set study.budget=13 -q").code, 0);
  // Those of a pending observation are sent to its evaluation again: resume refuses them.
  ASSERT_EQ(arbo("init p.toml --study q").code, 0);
  ASSERT_EQ(arbo("ask q").code, 0);
  sql(dir_ / "q" / "study.db", "UPDATE observations SET params = '[1]' WHERE id = 1");
  for (const std::string& args : std::vector<std::string>{"run --resume --study q -q", "export q",
                                                          "show q", "tell q 1 --objective 1"}) {
    const CliResult r = arbo(args);
    EXPECT_EQ(r.code, 5) << args << "\n" << r.err;
    EXPECT_NE(r.err.find("observation 1 is damaged: its params are not a JSON object"),
              std::string::npos)
        << args << "\n"
        << r.err;
  }

  // Damaged statistics or proposer versions: the export names the observation too.
  fs::copy(dir_ / "s", dir_ / "v");
  sql(dir_ / "v" / "study.db", "UPDATE observations SET proposed_by = '{' WHERE id = 3");
  CliResult r = arbo("export v --format json");
  EXPECT_EQ(r.code, 5);
  EXPECT_NE(r.err.find("observation 3 is damaged: its proposer versions are not valid JSON"),
            std::string::npos)
      << r.err;
  fs::copy(dir_ / "s", dir_ / "w");
  sql(dir_ / "w" / "study.db", "INSERT INTO proposal_stats (id, stats) VALUES (6, 'nope')");
  for (const std::string format : {"csv", "json"}) {
    r = arbo("export w --format " + format);
    EXPECT_EQ(r.code, 5);
    EXPECT_NE(r.err.find("observation 6 is damaged: its solver statistics are not valid JSON"),
              std::string::npos)
        << r.err;
  }
}

// A failure reason quotes whatever a command printed: bytes that are not UTF-8 are exported as
// U+FFFD, in JSON and CSV alike, never an error.
TEST_F(StudyIntegrity, AFailureReasonThatIsNotUtf8IsExported) {
  write("p.toml", kPipeline);
  ASSERT_EQ(arbo("init p.toml --study s").code, 0);
  ASSERT_EQ(arbo("ask s").code, 0);
  ASSERT_EQ(arbo("ask s").code, 0);
  CliResult r = arbo("tell s 1 --failed \"$(printf 'bad \\377\\376 bytes \\303')\"");
  ASSERT_EQ(r.code, 0) << r.err;
  r = arbo("tell s 2 --failed \"$(printf 'caf\\303\\251, \"quoted\"')\"");
  ASSERT_EQ(r.code, 0) << r.err;
  const json obs = export_json("s");
  ASSERT_EQ(obs.size(), 2u);
  EXPECT_EQ(obs[0]["reason"], "bad \xEF\xBF\xBD\xEF\xBF\xBD bytes \xEF\xBF\xBD");
  EXPECT_EQ(obs[1]["reason"], "caf\xC3\xA9, \"quoted\"");
  r = arbo("export s --format csv");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find(",bad \xEF\xBF\xBD\xEF\xBF\xBD bytes \xEF\xBF\xBD\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(",\"caf\xC3\xA9, \"\"quoted\"\"\"\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find('\xFF'), std::string::npos);
}

// A driver holds the lock from before it reads the study to its end: held still just after
// loading, it keeps a second resume and an ask out (exit 5, in use), while show and export
// read; let go, it finishes the study exactly as an uninterrupted run.
TEST_F(StudyIntegrity, OneDriverPerStudyFromBeforeItReads) {
  write("p.toml", kPipeline);
  ASSERT_EQ(arbo("run p.toml --study ref -q").code, 0);
  ASSERT_EQ(arbo("init p.toml --study s").code, 0);
  // arbo show says whether anything drives the study, and what is left.
  CliResult shown = arbo("show s");
  EXPECT_NE(shown.out.find("state: not running; 12 evaluations left (arbo run --resume --study s)"),
            std::string::npos)
      << shown.out;
  EXPECT_EQ(shown.out.find("last result:"), std::string::npos) << shown.out;
  const pid_t pid = spawn({"run", "--resume", "--study", "s", "-q"}, "open:loaded:STOP", "held");
  ASSERT_GT(pid, 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, WUNTRACED), pid);
  ASSERT_TRUE(WIFSTOPPED(status)) << "the driver ended instead of stopping: " << status << "\n"
                                  << slurp(dir_ / "held.err");
  for (const std::string args :
       {"run --resume --study s -q", "ask s", "init p.toml --study s", "run p.toml --study s -q"}) {
    const CliResult r = arbo(args);
    EXPECT_EQ(r.code, 5) << args;
    EXPECT_TRUE(r.err.find("study s is in use by another arbo process") != std::string::npos ||
                r.err.find("already holds a study") != std::string::npos)
        << args << "\n"
        << r.err;
  }
  shown = arbo("show s");
  EXPECT_EQ(shown.code, 0);
  EXPECT_NE(shown.out.find("state: running (an arbo process holds the study's lock"),
            std::string::npos)
      << shown.out;
  EXPECT_EQ(export_json("s").size(), 0u);
  ASSERT_EQ(kill(pid, SIGCONT), 0);
  EXPECT_EQ(wait_code(pid), 0) << slurp(dir_ / "held.err");
  shown = arbo("show s");
  EXPECT_NE(shown.out.find("state: the budget is reached\nlast result: observation 12 at "),
            std::string::npos)
      << shown.out;
  const json a = export_json("s"), b = export_json("ref");
  ASSERT_EQ(a.size(), 12u);
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i]["id"], i + 1);
    EXPECT_EQ(a[i]["params"], b[i]["params"]) << i;
  }
}

// Issue 23: two resumes of a 20,000-observation study both ran (ids duplicated) because the
// lock was taken after the slow load. Many resumes, some together and some staggered: the
// budget is met exactly, every id once, and the 100 new evaluations were made by one process.
TEST_F(StudyIntegrity, ConcurrentResumesOfALargeStudyRunOnce) {
  constexpr int kStored = 20000, kBudget = 20100, kDrivers = 6;
  write("p.toml", kPipeline);
  ASSERT_EQ(arbo("init p.toml --study s --set study.budget=" + std::to_string(kBudget)).code, 0);
  {
    // Written directly, in one transaction: a quick stand-in for a long random search.
    sqlite3* h = nullptr;
    ASSERT_EQ(sqlite3_open(fs::path(dir_ / "s" / "study.db").c_str(), &h), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(h, "BEGIN", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(
                  h,
                  "INSERT INTO observations (status, origin, x, params, objective, constraints, "
                  "feasible, proposed_by, propose_seconds, eval_seconds, created_at, "
                  "finished_at) VALUES ('complete', 'model', ?1, ?2, ?3, ?4, ?5, '{}', 0, 0, "
                  "1700000000, 1700000001)",
                  -1, &st, nullptr),
              SQLITE_OK);
    for (int i = 0; i < kStored; ++i) {
      const double x[2] = {-5.0 + 15.0 * (i % 997) / 997.0, 15.0 * (i % 991) / 991.0};
      const double c = (i % 7) - 3.0;
      unsigned char xb[16], cb[8];  // little-endian IEEE doubles, as the store writes them
      for (int k = 0; k < 2; ++k) {
        std::uint64_t bits;
        std::memcpy(&bits, &x[k], 8);
        for (int b = 0; b < 8; ++b) xb[8 * k + b] = static_cast<unsigned char>(bits >> (8 * b));
      }
      std::uint64_t cbits;
      std::memcpy(&cbits, &c, 8);
      for (int b = 0; b < 8; ++b) cb[b] = static_cast<unsigned char>(cbits >> (8 * b));
      const std::string params = json{{"x1", x[0]}, {"x2", x[1]}}.dump();
      sqlite3_bind_blob(st, 1, xb, 16, SQLITE_TRANSIENT);
      sqlite3_bind_text(st, 2, params.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_double(st, 3, x[0] * x[0] + x[1]);
      sqlite3_bind_blob(st, 4, cb, 8, SQLITE_TRANSIENT);
      sqlite3_bind_int(st, 5, c <= 0 ? 1 : 0);
      ASSERT_EQ(sqlite3_step(st), SQLITE_DONE);
      sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    ASSERT_EQ(sqlite3_exec(h, "COMMIT", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(h);
  }
  std::vector<pid_t> pids;
  for (int d = 0; d < kDrivers; ++d) {
    pids.push_back(spawn({"run", "--resume", "--study", "s", "-q"}, "", "d" + std::to_string(d)));
    // Half start together, the others one after another, while the first ones load or run
    // (a start is not a moment: no timing is asserted, only the outcome).
    if (d + 1 >= kDrivers / 2) std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  int drove = 0, evaluations = 0;
  const std::regex made(R"((\d+) evaluations in this run)");
  for (int d = 0; d < kDrivers; ++d) {
    const int code = wait_code(pids[static_cast<std::size_t>(d)]);
    const std::string out = slurp(dir_ / ("d" + std::to_string(d) + ".out"));
    const std::string err = slurp(dir_ / ("d" + std::to_string(d) + ".err"));
    if (code == 5) {
      EXPECT_NE(err.find("in use by another arbo process"), std::string::npos) << err;
      continue;
    }
    ASSERT_EQ(code, 0) << err;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(out, m, made)) << out;
    const int n = std::stoi(m[1]);
    evaluations += n;
    drove += n > 0;
  }
  EXPECT_EQ(evaluations, kBudget - kStored);
  EXPECT_EQ(drove, 1);
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(fs::path(dir_ / "s" / "study.db").c_str(), &h), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(h,
                               "SELECT COUNT(*), COUNT(DISTINCT id), MIN(id), MAX(id), "
                               "COUNT(DISTINCT params) FROM observations WHERE id > 20000",
                               -1, &st, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(st, 0), kBudget - kStored);
  EXPECT_EQ(sqlite3_column_int(st, 1), kBudget - kStored);
  EXPECT_EQ(sqlite3_column_int(st, 2), kStored + 1);
  EXPECT_EQ(sqlite3_column_int(st, 3), kBudget);
  EXPECT_EQ(sqlite3_column_int(st, 4), kBudget - kStored);  // no proposal made twice
  sqlite3_finalize(st);
  sqlite3_close(h);
}

}  // namespace
