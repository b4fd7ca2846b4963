// SPDX-License-Identifier: MIT
// Tests of the study store (SQLite) and the study lock.
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "arbo/kernel/errors.hpp"
#include "arbo/kernel/study_store.hpp"
#include "common/vectors.hpp"

namespace arbo::kernel {
namespace {

namespace fs = std::filesystem;

// A unique directory under the system temp dir, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = fs::temp_directory_path() / fmt::format("arbo_store_test_{}_{}_{}", ::getpid(),
                                                    info ? info->name() : "none", counter++);
    fs::remove_all(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }
  // The study directory itself, not created yet.
  fs::path study() const { return path_ / "study"; }

 private:
  fs::path path_;
};

// Runs `f` and returns the StudyError message; fails the test if it does not throw one.
template <class F>
std::string study_error(F&& f) {
  try {
    f();
  } catch (const StudyError& e) {
    EXPECT_EQ(e.exit_code(), kExitStudy);
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected StudyError, got: " << e.what();
    return {};
  }
  ADD_FAILURE() << "expected StudyError, nothing was thrown";
  return {};
}

using arbo::test::vec;

Observation pending_obs(double seed) {
  Observation o;
  o.origin = "model";
  o.x = vec({seed, -seed / 3.0, 1e-300, 12345.678});
  o.params_json = fmt::format(R"({{"a": {}, "b": "adam"}})", seed);
  o.proposed_by_json = R"({"inner_solver/random": "1.0.0"})";
  o.propose_seconds = 0.125 * seed;
  o.created_at = 1'700'000'000.5 + seed;
  return o;
}

// Unix time from the clock the store uses (time() may read a coarser clock).
double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

void raw_exec(const fs::path& db, const std::string& sql) {
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  char* err = nullptr;
  const int rc = sqlite3_exec(h, sql.c_str(), nullptr, nullptr, &err);
  EXPECT_EQ(rc, SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(h);
}

TEST(StudyStore, StatusToString) {
  EXPECT_STREQ(to_string(ObsStatus::Pending), "pending");
  EXPECT_STREQ(to_string(ObsStatus::Complete), "complete");
  EXPECT_STREQ(to_string(ObsStatus::Failed), "failed");
}

TEST(StudyStore, CreateMakesDirectoryAndDatabase) {
  TempDir tmp;
  const fs::path dir = tmp.path() / "a" / "b";
  EXPECT_FALSE(StudyStore::exists(dir));
  auto store = StudyStore::create(dir);
  EXPECT_TRUE(fs::exists(dir / "study.db"));
  EXPECT_TRUE(StudyStore::exists(dir));
  EXPECT_EQ(store.directory(), dir);
  EXPECT_TRUE(store.observations().empty());
  EXPECT_EQ(store.meta("schema_version"), std::optional<std::string>("1"));
}

TEST(StudyStore, RoundTripsEveryField) {
  TempDir tmp;
  const fs::path dir = tmp.study();
  Observation p1 = pending_obs(1.5);
  Observation p2 = pending_obs(2.5);
  p2.origin = "design";
  Observation told;  // finished without ask, empty constraint vector
  told.status = ObsStatus::Complete;
  told.origin = "tell";
  told.x = vec({0.0, 1.0});
  told.params_json = R"({"x": 0, "y": true})";
  told.objective = -7.25;
  told.feasible = true;
  told.proposed_by_json = "";
  told.eval_seconds = 3.5;
  told.created_at = 1'600'000'000.0;
  told.finished_at = 1'600'000'010.0;
  Observation told_failed = told;
  told_failed.status = ObsStatus::Failed;
  told_failed.reason = "evaluator crashed";
  told_failed.x = Eigen::VectorXd();  // dimension-0 space

  double before = 0, after = 0;
  {
    auto store = StudyStore::create(dir);
    EXPECT_EQ(store.add_pending(p1), 1);
    EXPECT_EQ(store.add_pending(p2), 2);
    before = unix_now() - 1;
    store.complete(1, 42.5, vec({-1.0, 0.25, 3e10}), false, 9.75);
    store.fail(2, "timeout after 10 s", 10.5);
    after = unix_now() + 1;
    EXPECT_EQ(store.add_finished(told), 3);
    EXPECT_EQ(store.add_finished(told_failed), 4);
    Observation p5 = pending_obs(5);
    EXPECT_EQ(store.add_pending(p5), 5);
    store.complete(5, 0.0, Eigen::VectorXd(), true, 0.0);
  }
  auto store = StudyStore::open(dir);
  const auto all = store.observations();
  ASSERT_EQ(all.size(), 5u);

  const Observation& a = all[0];
  EXPECT_EQ(a.id, 1);
  EXPECT_EQ(a.status, ObsStatus::Complete);
  EXPECT_EQ(a.origin, "model");
  EXPECT_EQ(a.x, p1.x);
  EXPECT_EQ(a.params_json, p1.params_json);
  EXPECT_EQ(a.objective, 42.5);
  EXPECT_EQ(a.constraints, vec({-1.0, 0.25, 3e10}));
  EXPECT_FALSE(a.feasible);
  EXPECT_EQ(a.reason, "");
  EXPECT_EQ(a.proposed_by_json, p1.proposed_by_json);
  EXPECT_EQ(a.propose_seconds, p1.propose_seconds);
  EXPECT_EQ(a.eval_seconds, 9.75);
  EXPECT_EQ(a.created_at, p1.created_at);
  EXPECT_GE(a.finished_at, before);
  EXPECT_LE(a.finished_at, after);

  const Observation& b = all[1];
  EXPECT_EQ(b.id, 2);
  EXPECT_EQ(b.status, ObsStatus::Failed);
  EXPECT_EQ(b.origin, "design");
  EXPECT_EQ(b.x, p2.x);
  EXPECT_EQ(b.reason, "timeout after 10 s");
  EXPECT_EQ(b.eval_seconds, 10.5);
  EXPECT_EQ(b.objective, 0.0);
  EXPECT_EQ(b.constraints.size(), 0);
  EXPECT_GE(b.finished_at, before);

  const Observation& c = all[2];
  EXPECT_EQ(c.id, 3);
  EXPECT_EQ(c.status, ObsStatus::Complete);
  EXPECT_EQ(c.origin, "tell");
  EXPECT_EQ(c.x, told.x);
  EXPECT_EQ(c.params_json, told.params_json);
  EXPECT_EQ(c.objective, -7.25);
  EXPECT_EQ(c.constraints.size(), 0);
  EXPECT_TRUE(c.feasible);
  EXPECT_EQ(c.proposed_by_json, "");
  EXPECT_EQ(c.eval_seconds, 3.5);
  EXPECT_EQ(c.created_at, told.created_at);
  EXPECT_EQ(c.finished_at, told.finished_at);

  const Observation& d = all[3];
  EXPECT_EQ(d.status, ObsStatus::Failed);
  EXPECT_EQ(d.reason, "evaluator crashed");
  EXPECT_EQ(d.x.size(), 0);
  EXPECT_EQ(d.objective, 0.0);  // a failed row keeps no objective

  const Observation& e = all[4];
  EXPECT_EQ(e.status, ObsStatus::Complete);
  EXPECT_EQ(e.constraints.size(), 0);
  EXPECT_TRUE(e.feasible);

  // observation(id) agrees with observations().
  for (const auto& o : all) {
    const auto one = store.observation(o.id);
    ASSERT_TRUE(one.has_value());
    EXPECT_EQ(one->x, o.x);
    EXPECT_EQ(one->status, o.status);
    EXPECT_EQ(one->params_json, o.params_json);
    EXPECT_EQ(one->finished_at, o.finished_at);
  }
  EXPECT_FALSE(store.observation(6).has_value());
  EXPECT_FALSE(store.observation(0).has_value());
  EXPECT_EQ(store.count(ObsStatus::Complete), 3);
  EXPECT_EQ(store.count(ObsStatus::Failed), 2);
  EXPECT_EQ(store.count(ObsStatus::Pending), 0);
}

TEST(StudyStore, PendingRowHasNoResultsAndCreatedAtDefaultsToNow) {
  TempDir tmp;
  auto store = StudyStore::create(tmp.study());
  Observation o = pending_obs(3);
  o.created_at = 0;
  const double before = unix_now() - 1;
  const auto id = store.add_pending(o);
  const double after = unix_now() + 1;
  const auto got = store.observation(id);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->status, ObsStatus::Pending);
  EXPECT_EQ(got->objective, 0.0);
  EXPECT_EQ(got->constraints.size(), 0);
  EXPECT_FALSE(got->feasible);
  EXPECT_EQ(got->eval_seconds, 0.0);
  EXPECT_EQ(got->finished_at, 0.0);
  EXPECT_GE(got->created_at, before) << fmt::format("{:.6f} {:.6f}", got->created_at, before);
  EXPECT_LE(got->created_at, after) << fmt::format("{:.6f} {:.6f}", got->created_at, after);
  EXPECT_EQ(store.count(ObsStatus::Pending), 1);
}

TEST(StudyStore, StoresPointsAsRawLittleEndianDoubles) {
  TempDir tmp;
  const Eigen::VectorXd x = vec({1.0, -2.5, 0.1});
  {
    auto store = StudyStore::create(tmp.study());
    Observation o = pending_obs(1);
    o.x = x;
    store.add_pending(o);
  }
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open((tmp.study() / "study.db").c_str(), &h), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(h, "SELECT x, typeof(x), params FROM observations", -1, &s, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
  ASSERT_EQ(sqlite3_column_bytes(s, 0), 24);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(s, 1)), "blob");
  const auto* bytes = static_cast<const unsigned char*>(sqlite3_column_blob(s, 0));
  for (int i = 0; i < 3; ++i) {
    std::uint64_t bits = 0;
    for (int b = 0; b < 8; ++b) bits |= static_cast<std::uint64_t>(bytes[i * 8 + b]) << (8 * b);
    double v;
    std::memcpy(&v, &bits, 8);
    EXPECT_EQ(v, x[i]);
  }
  sqlite3_finalize(s);
  // The database is in WAL mode (the mode is persistent, so a fresh connection sees it).
  ASSERT_EQ(sqlite3_prepare_v2(h, "PRAGMA journal_mode", -1, &s, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)), "wal");
  sqlite3_finalize(s);
  sqlite3_close(h);
}

TEST(StudyStore, IdsAreSequential) {
  TempDir tmp;
  {
    auto store = StudyStore::create(tmp.study());
    for (int i = 1; i <= 5; ++i) EXPECT_EQ(store.add_pending(pending_obs(i)), i);
    store.fail(3, "x", 0);
    Observation f = pending_obs(6);
    f.status = ObsStatus::Complete;
    EXPECT_EQ(store.add_finished(f), 6);
  }
  auto store = StudyStore::open(tmp.study());
  EXPECT_EQ(store.add_pending(pending_obs(7)), 7);
  const auto all = store.observations();
  ASSERT_EQ(all.size(), 7u);
  for (std::size_t i = 0; i < all.size(); ++i) EXPECT_EQ(all[i].id, static_cast<int>(i) + 1);
}

TEST(StudyStore, Meta) {
  TempDir tmp;
  {
    auto store = StudyStore::create(tmp.study());
    EXPECT_FALSE(store.meta("pipeline").has_value());
    store.set_meta("pipeline", "[problem]\nname = \"branin\"\n");
    store.set_meta("empty", "");
    store.set_meta("arbo_version", "0.0.1");
    store.set_meta("arbo_version", "0.1.0");  // overwrite
    EXPECT_EQ(store.meta("arbo_version"), std::optional<std::string>("0.1.0"));
  }
  auto store = StudyStore::open(tmp.study());
  EXPECT_EQ(store.meta("pipeline"), std::optional<std::string>("[problem]\nname = \"branin\"\n"));
  EXPECT_EQ(store.meta("empty"), std::optional<std::string>(""));
  EXPECT_EQ(store.meta("arbo_version"), std::optional<std::string>("0.1.0"));
  EXPECT_EQ(store.meta("schema_version"), std::optional<std::string>("1"));
  EXPECT_FALSE(store.meta("nope").has_value());
}

TEST(StudyStore, MoveKeepsTheConnection) {
  TempDir tmp;
  auto a = StudyStore::create(tmp.study());
  a.add_pending(pending_obs(1));
  StudyStore b = std::move(a);
  EXPECT_EQ(b.add_pending(pending_obs(2)), 2);
  auto c = StudyStore::create(tmp.path() / "other");
  c = std::move(b);
  EXPECT_EQ(c.count(ObsStatus::Pending), 2);
  EXPECT_EQ(c.directory(), tmp.study());
}

TEST(StudyStore, CreateTwiceFails) {
  TempDir tmp;
  { auto store = StudyStore::create(tmp.study()); }
  const std::string msg = study_error([&] { StudyStore::create(tmp.study()); });
  EXPECT_NE(msg.find("already holds a study; use --resume or another --study directory"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find(tmp.study().string()), std::string::npos) << msg;
  // The existing study is untouched.
  auto store = StudyStore::open(tmp.study());
  EXPECT_EQ(store.meta("schema_version"), std::optional<std::string>("1"));
}

TEST(StudyStore, CreateTwiceWhileOpenFails) {
  TempDir tmp;
  auto store = StudyStore::create(tmp.study());
  EXPECT_NE(study_error([&] { StudyStore::create(tmp.study()); }).find("already holds a study"),
            std::string::npos);
}

TEST(StudyStore, OpenMissingFails) {
  TempDir tmp;
  const std::string msg = study_error([&] { StudyStore::open(tmp.study()); });
  EXPECT_NE(msg.find(tmp.study().string()), std::string::npos) << msg;
  EXPECT_FALSE(fs::exists(tmp.study() / "study.db"));  // open never creates
}

TEST(StudyStore, OpenForeignSqliteFails) {
  TempDir tmp;
  fs::create_directories(tmp.study());
  const fs::path db = tmp.study() / "study.db";
  raw_exec(db, "CREATE TABLE foo (a INTEGER); INSERT INTO foo VALUES (1);");
  const std::string msg = study_error([&] { StudyStore::open(tmp.study()); });
  EXPECT_NE(msg.find("not an arbo study"), std::string::npos) << msg;
  EXPECT_NE(msg.find(db.string()), std::string::npos) << msg;
}

TEST(StudyStore, OpenArboLookalikeWithoutVersionFails) {
  TempDir tmp;
  fs::create_directories(tmp.study());
  raw_exec(tmp.study() / "study.db",
           "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
           "CREATE TABLE observations (id INTEGER PRIMARY KEY);");
  const std::string msg = study_error([&] { StudyStore::open(tmp.study()); });
  EXPECT_NE(msg.find("not an arbo study"), std::string::npos) << msg;
}

TEST(StudyStore, OpenNonDatabaseFileFails) {
  TempDir tmp;
  fs::create_directories(tmp.study());
  const fs::path db = tmp.study() / "study.db";
  {
    std::ofstream out(db);
    out << std::string(8192, 'z');
  }
  const std::string msg = study_error([&] { StudyStore::open(tmp.study()); });
  EXPECT_NE(msg.find("not an arbo study"), std::string::npos) << msg;
  EXPECT_NE(msg.find(db.string()), std::string::npos) << msg;
}

TEST(StudyStore, OpenNewerSchemaFails) {
  TempDir tmp;
  { auto store = StudyStore::create(tmp.study()); }
  raw_exec(tmp.study() / "study.db", "UPDATE meta SET value = '2' WHERE key = 'schema_version'");
  const std::string msg = study_error([&] { StudyStore::open(tmp.study()); });
  EXPECT_NE(msg.find("schema version 2"), std::string::npos) << msg;
  EXPECT_NE(msg.find(tmp.study().string()), std::string::npos) << msg;
}

TEST(StudyStore, CompleteOrFailNotPendingFails) {
  TempDir tmp;
  auto store = StudyStore::create(tmp.study());
  const auto id1 = store.add_pending(pending_obs(1));
  const auto id2 = store.add_pending(pending_obs(2));
  store.complete(id1, 1.0, vec({0.5}), true, 2.0);
  store.fail(id2, "boom", 1.0);

  std::string msg = study_error([&] { store.complete(id1, 5.0, vec({9.0}), false, 3.0); });
  EXPECT_NE(msg.find("observation 1 is not pending (status complete)"), std::string::npos) << msg;
  msg = study_error([&] { store.fail(id1, "late", 3.0); });
  EXPECT_NE(msg.find("observation 1 is not pending (status complete)"), std::string::npos) << msg;
  msg = study_error([&] { store.complete(id2, 5.0, vec({9.0}), false, 3.0); });
  EXPECT_NE(msg.find("observation 2 is not pending (status failed)"), std::string::npos) << msg;
  msg = study_error([&] { store.complete(99, 5.0, vec({9.0}), false, 3.0); });
  EXPECT_NE(msg.find("observation 99 does not exist"), std::string::npos) << msg;
  msg = study_error([&] { store.fail(99, "x", 0.0); });
  EXPECT_NE(msg.find("observation 99 does not exist"), std::string::npos) << msg;

  // Nothing was overwritten.
  const auto a = store.observation(id1);
  EXPECT_EQ(a->objective, 1.0);
  EXPECT_EQ(a->constraints, vec({0.5}));
  EXPECT_TRUE(a->feasible);
  EXPECT_EQ(a->eval_seconds, 2.0);
  const auto b = store.observation(id2);
  EXPECT_EQ(b->status, ObsStatus::Failed);
  EXPECT_EQ(b->reason, "boom");
  // The kept statements still work after the errors.
  EXPECT_EQ(store.add_pending(pending_obs(3)), 3);
  store.complete(3, 2.0, vec({1.0}), false, 0.0);
  EXPECT_EQ(store.count(ObsStatus::Complete), 2);
}

TEST(StudyStore, RejectsNanObjectiveAndInvalidParams) {
  TempDir tmp;
  auto store = StudyStore::create(tmp.study());
  const auto id = store.add_pending(pending_obs(1));
  EXPECT_NE(study_error([&] { store.complete(id, std::nan(""), vec({}), true, 0); }).find("NaN"),
            std::string::npos);
  EXPECT_EQ(store.observation(id)->status, ObsStatus::Pending);
  Observation bad = pending_obs(2);
  bad.params_json = "{not json";
  EXPECT_NE(study_error([&] { store.add_pending(bad); }).find("JSON"), std::string::npos);
  Observation pending = pending_obs(3);
  EXPECT_NE(study_error([&] { store.add_finished(pending); }).find("pending"), std::string::npos);
  EXPECT_EQ(store.observations().size(), 1u);
}

TEST(StudyStore, ProposalStatsAreWrittenWithTheirObservation) {
  TempDir tmp;
  StudyStore store = StudyStore::create(tmp.study());
  EXPECT_TRUE(store.proposal_stats().empty());
  Observation design = pending_obs(1.0);
  design.origin = "design";
  EXPECT_EQ(store.add_pending(design), 1);
  Observation model = pending_obs(2.0);
  model.stats_json = R"({"fit_seconds":0.5,"solve_seconds":1.0})";
  EXPECT_EQ(store.add_pending(model), 2);
  const auto stats = store.proposal_stats();
  ASSERT_EQ(stats.size(), 1u) << "a design point has no statistics";
  EXPECT_EQ(stats.at(2), model.stats_json);
  EXPECT_EQ(StudyStore::open(tmp.study()).proposal_stats(), stats);
}

TEST(StudyStore, AFailedStatisticsWriteLeavesNoObservation) {
  TempDir tmp;
  StudyStore store = StudyStore::create(tmp.study());
  // Make the statistics insert fail inside the transaction.
  raw_exec(tmp.study() / "study.db",
           "CREATE TRIGGER no_stats BEFORE INSERT ON proposal_stats "
           "BEGIN SELECT RAISE(ABORT, 'no statistics today'); END;");
  Observation model = pending_obs(2.0);
  model.stats_json = R"({"fit_seconds":0.5})";
  const std::string msg = study_error([&] { store.add_pending(model); });
  EXPECT_NE(msg.find("no statistics today"), std::string::npos) << msg;
  EXPECT_TRUE(store.observations().empty()) << "the observation was rolled back with it";
  EXPECT_TRUE(store.proposal_stats().empty());
  Observation design = pending_obs(1.0);
  EXPECT_EQ(store.add_pending(design), 1) << "the store stays usable";
}

// Surrogate states (sdk::SavesState) travel with their proposal: the latest per metric is
// kept, binary bytes intact, and a failed write takes the observation with it.
TEST(StudyStore, SurrogateStatesAreWrittenWithTheirProposalAndTheLatestIsKept) {
  TempDir tmp;
  StudyStore store = StudyStore::create(tmp.study());
  EXPECT_TRUE(store.surrogate_states().empty());
  const std::string binary("\0\x01\xffstate", 8);
  Observation first = pending_obs(1.0);
  first.surrogate_states = {{0, binary}, {2, "constraint 1"}};
  EXPECT_EQ(store.add_pending(first), 1);
  Observation second = pending_obs(2.0);
  second.surrogate_states = {{0, "objective, later"}};
  EXPECT_EQ(store.add_pending(second), 2);
  const std::map<int, std::string> expected{{0, "objective, later"}, {2, "constraint 1"}};
  EXPECT_EQ(store.surrogate_states(), expected);
  EXPECT_EQ(StudyStore::open(tmp.study()).surrogate_states(), expected);
  EXPECT_EQ(StudyStore::open_read_only(tmp.study()).surrogate_states(), expected);

  raw_exec(tmp.study() / "study.db",
           "CREATE TRIGGER no_states BEFORE INSERT ON surrogate_states "
           "BEGIN SELECT RAISE(ABORT, 'no states today'); END;");
  Observation third = pending_obs(3.0);
  third.surrogate_states = {{0, binary}};
  const std::string msg = study_error([&] { store.add_pending(third); });
  EXPECT_NE(msg.find("no states today"), std::string::npos) << msg;
  EXPECT_EQ(store.observations().size(), 2u) << "the observation was rolled back with it";
  EXPECT_EQ(store.surrogate_states(), expected);
}

TEST(StudyStore, OldStudiesWithoutTheSurrogateStatesTableOpenAndGainIt) {
  TempDir tmp;
  {
    StudyStore store = StudyStore::create(tmp.study());
    store.add_pending(pending_obs(1.0));
  }
  raw_exec(tmp.study() / "study.db", "DROP TABLE surrogate_states;");
  EXPECT_TRUE(StudyStore::open_read_only(tmp.study()).surrogate_states().empty());
  StudyStore store = StudyStore::open(tmp.study());
  EXPECT_TRUE(store.surrogate_states().empty());
  Observation model = pending_obs(2.0);
  model.surrogate_states = {{0, "s"}};
  EXPECT_EQ(store.add_pending(model), 2);
  EXPECT_EQ(store.surrogate_states().at(0), "s");
}

// Studies written before the statistics table was part of the schema: without it (no
// model-based proposal yet), or with it as that build created it on first use.
TEST(StudyStore, OldStudiesWithoutTheStatisticsTableOpenAndGainIt) {
  TempDir tmp;
  {
    StudyStore store = StudyStore::create(tmp.study());
    store.add_pending(pending_obs(1.0));
  }
  raw_exec(tmp.study() / "study.db", "DROP TABLE proposal_stats;");
  StudyStore store = StudyStore::open(tmp.study());
  EXPECT_TRUE(store.proposal_stats().empty());
  ASSERT_EQ(store.observations().size(), 1u);
  Observation model = pending_obs(2.0);
  model.stats_json = R"({"fit_seconds":0.5})";
  EXPECT_EQ(store.add_pending(model), 2);
  EXPECT_EQ(store.proposal_stats().at(2), model.stats_json);
}

TEST(StudyStore, OldStudiesWithTheStatisticsTableKeepTheirStatistics) {
  TempDir tmp;
  {
    StudyStore store = StudyStore::create(tmp.study());
    store.add_pending(pending_obs(1.0));
  }
  raw_exec(tmp.study() / "study.db",
           "DROP TABLE proposal_stats;"
           "CREATE TABLE IF NOT EXISTS proposal_stats (id INTEGER PRIMARY KEY, stats TEXT NOT "
           "NULL);"
           "INSERT INTO proposal_stats VALUES (1, '{\"fit_seconds\":0.25}');");
  StudyStore store = StudyStore::open(tmp.study());
  ASSERT_EQ(store.proposal_stats().size(), 1u);
  EXPECT_EQ(store.proposal_stats().at(1), R"({"fit_seconds":0.25})");
  Observation model = pending_obs(2.0);
  model.stats_json = R"({"fit_seconds":0.5})";
  EXPECT_EQ(store.add_pending(model), 2);
  EXPECT_EQ(store.proposal_stats().size(), 2u);
}

// --- interrupted creation --------------------------------------------------------------

// A process creating a study is killed (no destructor runs) after writing its metadata but
// before the commit.
void create_and_die_before_commit(const fs::path& dir) {
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    try {
      auto store = StudyStore::create_uncommitted(dir);
      store.set_meta("pipeline", "[problem]\n");
      ::_exit(0);
    } catch (...) {
      ::_exit(2);
    }
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

TEST(StudyStore, AnInterruptedCreationIsNoStudyAndTheNextCreationClearsIt) {
  TempDir tmp;
  const fs::path dir = tmp.study();
  create_and_die_before_commit(dir);
  if (HasFatalFailure()) return;
  ASSERT_TRUE(StudyStore::exists(dir));
  EXPECT_EQ(StudyStore::inspect(dir), StudyDirState::Interrupted);
  for (const auto& msg : {study_error([&] { StudyStore::open(dir); }),
                          study_error([&] { StudyStore::open_read_only(dir); })}) {
    EXPECT_NE(msg.find(dir.string() + " holds no study: its creation did not complete"),
              std::string::npos)
        << msg;
    EXPECT_NE(msg.find("without --resume"), std::string::npos) << msg;
  }
  auto store = StudyStore::create(dir);
  EXPECT_EQ(StudyStore::inspect(dir), StudyDirState::Study);
  EXPECT_FALSE(store.meta("pipeline").has_value());
  EXPECT_EQ(store.meta("schema_version"), std::optional<std::string>("1"));
  EXPECT_TRUE(store.meta("created_at").has_value());
}

TEST(StudyStore, AStoreDestroyedBeforeItsCreationCommitsRemovesItsFiles) {
  TempDir tmp;
  {
    auto store = StudyStore::create_uncommitted(tmp.study());
    store.set_meta("pipeline", "[problem]\n");
    EXPECT_EQ(store.meta("pipeline"), std::optional<std::string>("[problem]\n"));
  }
  EXPECT_EQ(StudyStore::inspect(tmp.study()), StudyDirState::Missing);
  for (const char* f : {"study.db", "study.db-wal", "study.db-shm", "study.db-journal"}) {
    EXPECT_FALSE(fs::exists(tmp.study() / f)) << f;
  }
  // A committed creation keeps everything written before the commit.
  {
    auto store = StudyStore::create_uncommitted(tmp.study());
    store.set_meta("pipeline", "[problem]\n");
    store.commit_creation();
  }
  EXPECT_EQ(StudyStore::open(tmp.study()).meta("pipeline"),
            std::optional<std::string>("[problem]\n"));
}

// Older builds committed the bare schema first and the pipeline later: killed in between, they
// left a schema_version and nothing else. That holds no observation and is cleared; anything
// more is a study, never removed.
TEST(StudyStore, AnOlderBuildsInterruptedCreationIsRecognizedAndNothingElse) {
  TempDir tmp;
  const fs::path dir = tmp.study();
  { auto store = StudyStore::create(dir); }
  raw_exec(dir / "study.db", "DELETE FROM meta WHERE key <> 'schema_version'");
  EXPECT_EQ(StudyStore::inspect(dir), StudyDirState::Interrupted);
  EXPECT_NE(study_error([&] { StudyStore::open(dir); }).find("creation did not complete"),
            std::string::npos);
  { auto store = StudyStore::create(dir); }
  EXPECT_EQ(StudyStore::inspect(dir), StudyDirState::Study);

  // The same with one observation is a study.
  raw_exec(dir / "study.db",
           "DELETE FROM meta WHERE key <> 'schema_version'; INSERT INTO observations (status, "
           "origin, x, params, created_at) VALUES ('pending', 'ask', zeroblob(0), '{}', 1)");
  EXPECT_EQ(StudyStore::inspect(dir), StudyDirState::Study);
  EXPECT_NE(study_error([&] { StudyStore::create(dir); }).find("already holds a study"),
            std::string::npos);
  EXPECT_EQ(StudyStore::open(dir).observations().size(), 1u);

  // A database that is not ours is never taken for leftovers.
  const fs::path foreign = tmp.path() / "foreign";
  fs::create_directories(foreign);
  raw_exec(foreign / "study.db", "CREATE TABLE foo (a INTEGER)");
  EXPECT_EQ(StudyStore::inspect(foreign), StudyDirState::Study);
  EXPECT_NE(study_error([&] { StudyStore::create(foreign); }).find("already holds a study"),
            std::string::npos);
  EXPECT_TRUE(fs::exists(foreign / "study.db"));
}

TEST(StudyStore, AStudyPathThatIsNotADirectoryIsAStudyError) {
  TempDir tmp;
  fs::create_directories(tmp.path());
  const fs::path file = tmp.path() / "file";
  std::ofstream(file) << "not a directory\n";
  for (const fs::path& dir : {file, file / "sub"}) {
    const std::string msg = study_error([&] { StudyStore::create(dir); });
    EXPECT_NE(msg.find("cannot create study directory " + dir.string()), std::string::npos) << msg;
    EXPECT_NE(msg.find("ot a directory"), std::string::npos) << msg;  // ENOTDIR: "Not a ..."
    EXPECT_NE(study_error([&] { StudyStore::open(dir); }).find("no study in"), std::string::npos);
    EXPECT_EQ(StudyStore::inspect(dir), StudyDirState::Missing);
  }
  EXPECT_NE(study_error([&] { StudyStore::open(file); }).find("it is not a directory"),
            std::string::npos);
  EXPECT_NE(study_error([&] { StudyLock lock(file); }).find("Not a directory"), std::string::npos);
}

// --- damaged rows ---------------------------------------------------------------------------

// A study of two parameters and one constraint with three observations, complete, failed and
// pending; `damage` is then applied to its database.
std::string damaged_study_error(const TempDir& tmp, const std::string& damage,
                                std::int64_t read_id) {
  {
    auto store = StudyStore::create(tmp.study());
    store.set_meta("parameter_names", R"(["a", "b"])");
    store.set_meta("constraint_names", R"(["c"])");
    for (int i = 1; i <= 3; ++i) {
      Observation o = pending_obs(i);
      o.x = vec({0.5 * i, 1.0});
      store.add_pending(o);
    }
    store.complete(1, 2.5, vec({0.25}), true, 1.0);
    store.fail(2, "diverged", 1.0);
  }
  raw_exec(tmp.study() / "study.db", damage);
  auto store = StudyStore::open(tmp.study());
  const std::string all = study_error([&] { store.observations(); });
  EXPECT_EQ(all, study_error([&] { store.observation(read_id); }));
  EXPECT_NE(all.find(fmt::format("observation {} is damaged", read_id)), std::string::npos) << all;
  return all;
}

TEST(StudyStore, DamagedRowsAreStudyErrorsNamingTheObservation) {
  struct Case {
    std::string damage;
    std::int64_t id;
    std::string says;
  };
  const std::vector<Case> cases{
      {"UPDATE observations SET params = '{\"a\": 3' WHERE id = 3", 3,
       "its params are not a JSON object"},
      {"UPDATE observations SET params = '[1, 2]' WHERE id = 3", 3,
       "its params are not a JSON object"},
      {"UPDATE observations SET x = substr(x, 1, 8) WHERE id = 3", 3,
       "its point has 1 coordinates, the study has 2 parameters"},
      {"UPDATE observations SET x = zeroblob(32) WHERE id = 2", 2,
       "its point has 4 coordinates, the study has 2 parameters"},
      {"UPDATE observations SET x = substr(x, 1, 12) WHERE id = 1", 1,
       "its point vector has 12 bytes, not a multiple of 8"},
      {"UPDATE observations SET constraints = zeroblob(0) WHERE id = 1", 1,
       "it has 0 constraint values, the study has 1 constraints"},
      {"UPDATE observations SET constraints = zeroblob(5) WHERE id = 1", 1,
       "its constraint vector has 5 bytes"},
      {"UPDATE observations SET objective = NULL WHERE id = 1", 1,
       "it is complete without an objective"},
  };
  for (const Case& c : cases) {
    TempDir tmp;
    const std::string msg = damaged_study_error(tmp, c.damage, c.id);
    EXPECT_NE(msg.find(c.says), std::string::npos) << c.damage << "\n" << msg;
  }
  // A finished observation's params are left to the readers that parse them (export, show):
  // loading a study does not pay a JSON pass per row for text it never uses.
  TempDir tmp;
  damaged_study_error(tmp, "UPDATE observations SET x = zeroblob(24) WHERE id = 3", 3);
  raw_exec(tmp.study() / "study.db",
           "UPDATE observations SET x = zeroblob(16), params = 'oops' WHERE id = 3;"
           "UPDATE observations SET params = 'oops' WHERE id < 3");
  auto store = StudyStore::open(tmp.study());
  const std::string pending_msg = study_error([&] { store.observations(); });
  EXPECT_NE(pending_msg.find("observation 3 is damaged: its params"), std::string::npos)
      << pending_msg;
  raw_exec(tmp.study() / "study.db", "DELETE FROM observations WHERE id = 3");
  EXPECT_EQ(store.observations().at(0).params_json, "oops");
}

TEST(StudyStore, DamagedNamesAreStudyErrors) {
  TempDir tmp;
  {
    auto store = StudyStore::create(tmp.study());
    store.set_meta("parameter_names", "{\"a\"");
  }
  const std::string msg = study_error([&] { StudyStore::open(tmp.study()); });
  EXPECT_NE(msg.find("the metadata 'parameter_names' is damaged"), std::string::npos) << msg;
  raw_exec(tmp.study() / "study.db",
           "UPDATE meta SET value = '[\"a\", 3]' WHERE key = 'parameter_names'");
  EXPECT_NE(study_error([&] { StudyStore::open(tmp.study()); }).find("is damaged"),
            std::string::npos);
  raw_exec(tmp.study() / "study.db",
           "UPDATE meta SET value = '[\"a\", \"b\"]' WHERE key = 'parameter_names'");
  EXPECT_EQ(StudyStore::open(tmp.study()).names("parameter_names"),
            (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(StudyStore::open(tmp.study()).names("constraint_names").empty());
}

// --- reading only ---------------------------------------------------------------------------

TEST(StudyStore, ReadingOnlyNeverWrites) {
  TempDir tmp;
  {
    auto store = StudyStore::create(tmp.study());
    store.add_pending(pending_obs(1));
  }
  // A study from before the statistics table: a reader must not add it.
  raw_exec(tmp.study() / "study.db", "DROP TABLE proposal_stats");
  const auto modified = fs::last_write_time(tmp.study() / "study.db");
  {
    auto store = StudyStore::open_read_only(tmp.study());
    EXPECT_EQ(store.observations().size(), 1u);
    EXPECT_TRUE(store.proposal_stats().empty());
    EXPECT_EQ(store.meta("schema_version"), std::optional<std::string>("1"));
    EXPECT_NE(study_error([&] { store.set_meta("x", "y"); }).find("set_meta('x') failed"),
              std::string::npos);
    EXPECT_NE(study_error([&] { store.add_pending(pending_obs(2)); }).find("add_pending"),
              std::string::npos);
  }
  EXPECT_EQ(fs::last_write_time(tmp.study() / "study.db"), modified);
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(fs::path(tmp.study() / "study.db").c_str(), &h), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(
      sqlite3_prepare_v2(h, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'proposal_stats'", -1,
                         &st, nullptr),
      SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(st, 0), 0);
  sqlite3_finalize(st);
  sqlite3_close(h);
}

// A lock let go while another waits for it is taken: a resume right after a killed driver
// whose supervisor still ends its command, or two parallel `ask` calls.
TEST(StudyLock, WaitsForALockThatIsLetGo) {
  TempDir tmp;
  fs::create_directories(tmp.study());
  auto first = std::make_unique<StudyLock>(tmp.study());
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    first.reset();
  });
  EXPECT_NO_THROW(StudyLock second(tmp.study(), 60.0));
  release.join();
}

TEST(StudyLock, SecondLockOnSameDirectoryFails) {
  TempDir tmp;
  fs::create_directories(tmp.study());
  {
    StudyLock first(tmp.study());
    const std::string msg = study_error([&] { StudyLock second(tmp.study(), 0.0); });
    EXPECT_EQ(msg, fmt::format("study {} is in use by another arbo process", tmp.study().string()));
    const std::string waited = study_error([&] { StudyLock second(tmp.study(), 0.2); });
    EXPECT_EQ(waited, fmt::format("study {} is in use by another arbo process (still after 0.2 s)",
                                  tmp.study().string()));
    // Other directories are independent.
    fs::create_directories(tmp.path() / "other");
    StudyLock other(tmp.path() / "other");
  }
  StudyLock again(tmp.study());  // released by the destructor
}

TEST(StudyLock, MissingDirectoryFails) {
  TempDir tmp;
  const std::string msg = study_error([&] { StudyLock lock(tmp.path() / "missing"); });
  EXPECT_NE(msg.find("missing"), std::string::npos) << msg;
}

// --- crash consistency --------------------------------------------------------------------

// Deterministic content of row i, so the parent can check each row completely.
Observation crash_obs(std::int64_t i) {
  Observation o;
  o.origin = i % 2 ? "model" : "design";
  o.x = vec({static_cast<double>(i), 1.0 / static_cast<double>(i), -3.5});
  o.params_json = fmt::format(R"({{"i": {}}})", i);
  o.proposed_by_json = R"({"inner_solver/random": "1.0.0"})";
  o.propose_seconds = 0.5;
  o.created_at = 1'700'000'000.0 + static_cast<double>(i);
  return o;
}
double crash_objective(std::int64_t i) { return 0.25 * static_cast<double>(i) - 3.0; }
Eigen::VectorXd crash_constraints(std::int64_t i) {
  return vec({static_cast<double>(i), -static_cast<double>(i), 1e-3 * static_cast<double>(i)});
}
bool completes(std::int64_t i) { return i % 3 != 0; }

// Child process body: appends rows (completing two out of three) and reports each finished
// iteration on `notify`. Returns only through _exit, without running destructors.
[[noreturn]] void crash_child(const fs::path& dir, int notify, std::int64_t exit_after) {
  try {
    StudyLock lock(dir);
    auto store = StudyStore::open(dir);
    std::int64_t i = static_cast<std::int64_t>(store.observations().size());
    for (int round = 0; round < 2'000'000; ++round) {
      ++i;
      const auto id = store.add_pending(crash_obs(i));
      if (id != i) ::_exit(3);
      if (i == exit_after) ::_exit(0);  // abrupt: the store is never closed
      if (completes(i)) {
        store.complete(id, crash_objective(i), crash_constraints(i), i % 2 == 0, 0.75);
      }
      const char c = 1;
      if (::write(notify, &c, 1) != 1) ::_exit(4);
    }
  } catch (...) {
    ::_exit(2);
  }
  ::_exit(0);
}

// Checks that every row is pending or complete with full data and ids are 1..n. Rows that are
// pending although their index completes are those a kill interrupted: at most `max_torn`.
void check_consistent(const fs::path& dir, std::int64_t min_rows, int max_torn) {
  auto store = StudyStore::open(dir);
  const auto all = store.observations();
  ASSERT_GE(static_cast<std::int64_t>(all.size()), min_rows);
  int torn = 0;
  for (std::size_t k = 0; k < all.size(); ++k) {
    const Observation& o = all[k];
    const auto i = static_cast<std::int64_t>(k) + 1;
    ASSERT_EQ(o.id, i);
    const Observation want = crash_obs(i);
    EXPECT_EQ(o.origin, want.origin);
    EXPECT_EQ(o.x, want.x);
    EXPECT_EQ(o.params_json, want.params_json);
    EXPECT_EQ(o.proposed_by_json, want.proposed_by_json);
    EXPECT_EQ(o.propose_seconds, want.propose_seconds);
    EXPECT_EQ(o.created_at, want.created_at);
    ASSERT_NE(o.status, ObsStatus::Failed) << "row " << i;
    if (o.status == ObsStatus::Complete) {
      EXPECT_TRUE(completes(i)) << "row " << i;
      EXPECT_EQ(o.objective, crash_objective(i));
      EXPECT_EQ(o.constraints, crash_constraints(i));
      EXPECT_EQ(o.feasible, i % 2 == 0);
      EXPECT_EQ(o.eval_seconds, 0.75);
      EXPECT_GT(o.finished_at, 0.0);
    } else {
      EXPECT_EQ(o.constraints.size(), 0);
      EXPECT_EQ(o.finished_at, 0.0);
      if (completes(i)) ++torn;
    }
  }
  EXPECT_LE(torn, max_torn);
  EXPECT_EQ(store.count(ObsStatus::Pending) + store.count(ObsStatus::Complete),
            static_cast<std::int64_t>(all.size()));
}

TEST(StudyStoreCrash, SigkillAtArbitraryPointsLeavesConsistentStudy) {
  TempDir tmp;
  { auto store = StudyStore::create(tmp.study()); }
  constexpr int kRounds = 4;
  std::int64_t acknowledged = 0;
  for (int round = 0; round < kRounds; ++round) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(fds[0]);
      crash_child(tmp.study(), fds[1], -1);
    }
    ::close(fds[1]);
    // Wait for a different number of acknowledged iterations each round, then kill the child
    // wherever it is (often inside a write).
    const int wanted = 20 + 17 * round;
    int got = 0;
    char buf[64];
    while (got < wanted) {
      const ssize_t n = ::read(fds[0], buf, std::min<std::size_t>(sizeof buf, wanted - got));
      if (n <= 0) break;
      got += static_cast<int>(n);
    }
    ::kill(pid, SIGKILL);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ::close(fds[0]);
    ASSERT_EQ(got, wanted) << "child stopped early, exit status " << status;
    ASSERT_TRUE(WIFSIGNALED(status)) << "status " << status;
    EXPECT_EQ(WTERMSIG(status), SIGKILL);
    acknowledged += wanted;
    // The dead child's lock is gone.
    { StudyLock lock(tmp.study()); }
    check_consistent(tmp.study(), acknowledged, round + 1);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(StudyStoreCrash, AbruptExitAfterAddPendingKeepsThePendingRow) {
  TempDir tmp;
  { auto store = StudyStore::create(tmp.study()); }
  constexpr std::int64_t kExitAfter = 31;  // completes(31): the row is left pending
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(fds[0]);
    crash_child(tmp.study(), fds[1], kExitAfter);
  }
  ::close(fds[1]);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ::close(fds[0]);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);
  check_consistent(tmp.study(), kExitAfter, 1);
  auto store = StudyStore::open(tmp.study());
  EXPECT_EQ(store.observations().size(), static_cast<std::size_t>(kExitAfter));
  EXPECT_EQ(store.observation(kExitAfter)->status, ObsStatus::Pending);
  EXPECT_EQ(store.observation(kExitAfter - 1)->status, ObsStatus::Pending);  // 30 % 3 == 0
  EXPECT_EQ(store.observation(kExitAfter - 2)->status, ObsStatus::Complete);
  // The study resumes: the pending row can still be finished.
  store.complete(kExitAfter, crash_objective(kExitAfter), crash_constraints(kExitAfter), false,
                 0.75);
  EXPECT_EQ(store.count(ObsStatus::Pending), kExitAfter / 3);
}

}  // namespace
}  // namespace arbo::kernel
