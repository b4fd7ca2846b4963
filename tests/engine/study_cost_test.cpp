// SPDX-License-Identifier: MIT
// The loop's per-evaluation cost must not grow with the number of observations, checked
// without timing: every SQL statement the kernel runs is counted through SQLite's trace hook
// (installed on every connection by an auto-extension), with the virtual-machine steps it
// took, the rows it returned and the steps it spent scanning a whole table. An insert or an
// update by id takes the same steps in a table of 100 rows as in one of 1,000 (the B-tree
// descent is one step); a COUNT or a SELECT over the observations takes one step per row.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdint>
#include <vector>

#include "arbo/kernel/study.hpp"
#include "common/temp_dir.hpp"

namespace arbo::kernel {
namespace {

struct SqlWork {
  std::int64_t statements = 0;
  std::int64_t vm_steps = 0;
  std::int64_t full_scan_steps = 0;
  std::int64_t rows = 0;

  SqlWork operator-(const SqlWork& o) const {
    return {statements - o.statements, vm_steps - o.vm_steps, full_scan_steps - o.full_scan_steps,
            rows - o.rows};
  }
};

SqlWork g_work;  // of every connection opened while a SqlCounter lives

int on_trace(unsigned type, void*, void* p, void*) {
  if (type == SQLITE_TRACE_ROW) {
    ++g_work.rows;
  } else if (type == SQLITE_TRACE_PROFILE) {
    // Fired once per execution, when the statement finishes or is reset; the counters are
    // reset here so that a kept statement's next execution starts from zero.
    auto* s = static_cast<sqlite3_stmt*>(p);
    ++g_work.statements;
    g_work.vm_steps += sqlite3_stmt_status(s, SQLITE_STMTSTATUS_VM_STEP, 1);
    g_work.full_scan_steps += sqlite3_stmt_status(s, SQLITE_STMTSTATUS_FULLSCAN_STEP, 1);
  }
  return 0;
}

int install_trace(sqlite3* db, const char**, const sqlite3_api_routines*) {
  sqlite3_trace_v2(db, SQLITE_TRACE_PROFILE | SQLITE_TRACE_ROW, on_trace, nullptr);
  return SQLITE_OK;
}

// Traces the connections opened during its lifetime.
class SqlCounter {
 public:
  SqlCounter() {
    g_work = {};
    sqlite3_auto_extension(reinterpret_cast<void (*)()>(install_trace));
  }
  ~SqlCounter() { sqlite3_cancel_auto_extension(reinterpret_cast<void (*)()>(install_trace)); }
  SqlCounter(const SqlCounter&) = delete;
  SqlCounter& operator=(const SqlCounter&) = delete;
  SqlWork now() const { return g_work; }
};

class StudyCostTest : public test::TempDirTest {
 protected:
  StudyCostTest() : TempDirTest("arbo_study_cost_test_") {}
  void SetUp() override {
    TempDirTest::SetUp();
    registry_.load_directory(ARBO_PLUGIN_DIR);
  }

  Pipeline pipeline(std::int64_t budget) {
    const std::string toml = "[study]\nseed = 5\nbudget = " + std::to_string(budget) +
                             "\n[problem]\nplugin = \"branin_constrained\"\n"
                             "[initial_design]\nsize = 4\n[inner_solver]\nplugin = \"random\"\n";
    return parse_pipeline(toml, "test.toml", {}, lookup_from(registry_));
  }

  PluginRegistry registry_;
};

// The SQL work of each evaluation of a random search, with progress reporting on (the CLI's
// default): the same at the 1,000th evaluation as at the 100th, and no full-table scan at all.
// Counting the pending observations for the progress line once scanned the whole table per
// evaluation.
TEST_F(StudyCostTest, SqlWorkPerEvaluationDoesNotGrowWithTheStudy) {
  constexpr std::int64_t kBudget = 1100;
  SqlCounter counter;
  auto study = Study::create(dir_ / "s", pipeline(kBudget), "", registry_);
  std::vector<SqlWork> after;  // counters after each evaluation
  RunOptions options;
  options.on_progress = [&](const ProgressEvent&) { after.push_back(counter.now()); };
  EXPECT_EQ(study->run(options).evaluations, kBudget);
  ASSERT_EQ(after.size(), static_cast<std::size_t>(kBudget));
  const auto per_evaluation = [&](std::size_t i) { return after[i] - after[i - 1]; };
  const SqlWork early = per_evaluation(100);
  EXPECT_GT(early.statements, 0);
  EXPECT_GT(early.vm_steps, 0);
  for (std::size_t i = 10; i < after.size(); ++i) {
    const SqlWork w = per_evaluation(i);
    ASSERT_EQ(w.full_scan_steps, 0) << "evaluation " << i + 1 << " scanned a table";
    ASSERT_EQ(w.statements, early.statements) << "evaluation " << i + 1;
    ASSERT_LE(w.vm_steps, early.vm_steps) << "evaluation " << i + 1;
    ASSERT_LE(w.rows, early.rows) << "evaluation " << i + 1;
  }
}

// Resuming a complete study reads each observation once (to rebuild the dataset), not once
// more to find the pending ones; extending it by a few evaluations adds only their own work.
TEST_F(StudyCostTest, ResumeReadsEachObservationOnce) {
  constexpr std::int64_t kObservations = 600;
  {
    auto study = Study::create(dir_ / "s", pipeline(kObservations), "", registry_);
    study->run({});
  }
  SqlCounter counter;
  auto study = Study::open(dir_ / "s", registry_);
  EXPECT_EQ(study->observation_count(), kObservations);
  study->set_limits(kObservations + 5, 0);
  const RunSummary s = study->run({});
  EXPECT_EQ(s.evaluations, 5);
  EXPECT_EQ(s.total, kObservations + 5);
  const SqlWork w = counter.now();
  EXPECT_GE(w.rows, kObservations);
  // The slack covers the metadata, the schema checks and the side tables (a second read of
  // the observations would add 600).
  EXPECT_LE(w.rows, kObservations + 40) << "observations were read more than once";
}

}  // namespace
}  // namespace arbo::kernel
