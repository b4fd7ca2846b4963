// SPDX-License-Identifier: MIT
// The BO loop through the kernel's C++ API (the CLI is a thin client of it), with the stock
// problem and random-search plugins loaded from their .so files.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <set>

#include "arbo/kernel/errors.hpp"
#include "arbo/kernel/study.hpp"

namespace arbo::kernel {
namespace {

namespace fs = std::filesystem;

class StudyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("arbo_study_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    registry_.load_directory(ARBO_PLUGIN_DIR);
  }
  void TearDown() override { fs::remove_all(dir_); }

  Pipeline pipeline(const std::string& problem, std::int64_t budget, bool maximize = false) {
    const std::string toml =
        "[study]\nseed = 3\nbudget = " + std::to_string(budget) + "\ndirection = \"" +
        (maximize ? "maximize" : "minimize") + "\"\n[problem]\nplugin = \"" + problem +
        "\"\n[initial_design]\nsize = 4\n[inner_solver]\nplugin = \"random\"\n";
    return parse_pipeline(toml, "test.toml", {}, lookup_from(registry_));
  }

  fs::path dir_;
  PluginRegistry registry_;
};

TEST_F(StudyTest, RunFillsTheDatasetInMinimizationSense) {
  auto study = Study::create(dir_, pipeline("branin_constrained", 20, true), "", registry_);
  std::vector<std::int64_t> seen;
  RunOptions options;
  options.on_progress = [&](const ProgressEvent& ev) {
    seen.push_back(ev.observation->id);
    EXPECT_EQ(ev.budget, 20);
  };
  const RunSummary s = study->run(options);
  EXPECT_EQ(s.termination, Termination::BudgetReached);
  EXPECT_EQ(s.evaluations, 20);
  EXPECT_EQ(seen.size(), 20u);
  const sdk::Dataset& d = study->dataset();
  ASSERT_EQ(d.size(), 20u);
  ASSERT_EQ(d.num_constraints(), 1u);
  const auto obs = study->store().observations();
  std::optional<double> best;
  for (std::size_t i = 0; i < obs.size(); ++i) {
    // Maximized study: the dataset holds -objective; constraints are normalized to c <= 0.
    EXPECT_EQ(d.y[static_cast<Eigen::Index>(i)], -obs[i].objective);
    EXPECT_EQ(d.feasible[i] != 0, obs[i].feasible);
    EXPECT_EQ(d.C(static_cast<Eigen::Index>(i), 0) <= 0, obs[i].feasible);
    EXPECT_EQ(obs[i].origin, i < 4 ? "design" : "model");
    if (obs[i].feasible && (!best || obs[i].objective > *best)) best = obs[i].objective;
  }
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(*s.best, *best);
  EXPECT_EQ(study->best()->objective, *best);
  EXPECT_GE(s.wall_seconds, s.plugin_seconds);
}

TEST_F(StudyTest, PendingObservationsAreReRunAndResultsAreReproducible) {
  {
    auto a = Study::create(dir_ / "a", pipeline("hartmann6", 12), "", registry_);
    a->run({});
  }
  // A run that "crashed" after recording two pending points: the next run evaluates them first
  // and then proposes exactly what the uninterrupted study proposed.
  {
    auto b = Study::create(dir_ / "b", pipeline("hartmann6", 12), "", registry_);
    b->ask();
    b->ask();
  }
  auto b = Study::open(dir_ / "b", registry_);
  EXPECT_EQ(b->store().count(ObsStatus::Pending), 2);
  const RunSummary s = b->run({});
  EXPECT_EQ(s.evaluations, 12);
  EXPECT_EQ(b->store().count(ObsStatus::Pending), 0);
  const auto a_obs = Study::open(dir_ / "a", registry_)->store().observations();
  const auto b_obs = b->store().observations();
  ASSERT_EQ(b_obs.size(), 12u);
  for (std::size_t i = 0; i < a_obs.size(); ++i) {
    EXPECT_EQ(a_obs[i].params_json, b_obs[i].params_json) << i;
    EXPECT_EQ(a_obs[i].objective, b_obs[i].objective) << i;
  }
}

TEST_F(StudyTest, AskTellAndLimits) {
  auto study = Study::create(dir_, pipeline("branin", 4), "", registry_);
  const Observation o = study->ask();
  EXPECT_EQ(o.id, 1);
  EXPECT_EQ(o.status, ObsStatus::Pending);
  study->tell(o.id, study->outcome_from_json("{\"objective\": 1.5}"));
  EXPECT_EQ(study->dataset().size(), 1u);
  EXPECT_THROW(study->tell(o.id, study->outcome_from_json("2")), StudyError);
  EXPECT_THROW(study->tell(99, study->outcome_from_json("2")), StudyError);
  const EvalOutcome failed = study->outcome_from_json("{\"error\": \"diverged\"}");
  EXPECT_FALSE(failed.ok);
  const Observation o2 = study->ask();
  study->tell(o2.id, failed);
  EXPECT_EQ(study->dataset().X_failed.rows(), 1);
  EXPECT_THROW(study->set_limits(1, 0), ConfigError);  // below the 2 observations made
  study->set_limits(6, 0);
  // A study object holds the study lock for its lifetime: no second driver, in this process or
  // another.
  EXPECT_THROW(Study::open(dir_, registry_), StudyError);
  EXPECT_EQ(study->run({}).evaluations, 4);
  EXPECT_THROW(Study::create(dir_, pipeline("branin", 4), "", registry_), StudyError);
  study.reset();
  EXPECT_EQ(Study::open(dir_, registry_)->pipeline().budget, 6);
  EXPECT_THROW(Study::create(dir_, pipeline("branin", 4), "", registry_), StudyError);
}

TEST_F(StudyTest, InterruptStopsTheLoopAfterTheCurrentEvaluation) {
  auto study = Study::create(dir_, pipeline("branin", 1000), "", registry_);
  std::atomic<bool> stop{false};
  RunOptions options;
  options.interrupt = &stop;
  options.on_progress = [&](const ProgressEvent& ev) {
    if (ev.done == 7) stop = true;
  };
  const RunSummary s = study->run(options);
  EXPECT_EQ(s.termination, Termination::Interrupted);
  EXPECT_EQ(s.total, 7);
  EXPECT_EQ(study->store().count(ObsStatus::Pending), 0);
}

// The points asked and not told are the proposal's pending points, kept in memory across ask,
// tell and reopening: on a space of three points, three asks take all of them.
TEST_F(StudyTest, AskNeverRepeatsAPendingPointAcrossTellAndReopen) {
  const std::string toml =
      "[study]\nseed = 1\nbudget = 10\n[problem]\ncommand = [\"false\"]\n"
      "[[problem.parameters]]\nname = \"k\"\ntype = \"integer\"\nlow = 0\nhigh = 2\n"
      "[initial_design]\nsize = 0\n[inner_solver]\nplugin = \"random\"\n";
  const auto pipeline = [&] { return parse_pipeline(toml, "t.toml", {}, lookup_from(registry_)); };
  std::vector<std::int64_t> ids;
  {
    auto study = Study::create(dir_, pipeline(), "", registry_);
    std::set<std::string> points;
    for (int i = 0; i < 3; ++i) {
      const Observation o = study->ask();
      ids.push_back(o.id);
      points.insert(o.params_json);
    }
    EXPECT_EQ(points.size(), 3u);
    EXPECT_THROW(study->ask(), InfeasibleError);
  }
  auto study = Study::open(dir_, registry_);
  EXPECT_THROW(study->ask(), InfeasibleError);  // the pending points come from the store
  study->tell(ids[1], study->outcome_from_json("1.0"));
  const Observation o = study->ask();  // the told point is free again
  const auto told = study->store().observation(ids[1]);
  EXPECT_EQ(o.params_json, told->params_json);
  EXPECT_THROW(study->ask(), InfeasibleError);
}

// An external-function study over x in [0, 1] and a categorical k, with the given method tables.
std::string external_toml(const std::string& method, bool maximize) {
  return std::string("[study]\nseed = 5\nbudget = 30\ndirection = \"") +
         (maximize ? "maximize" : "minimize") +
         "\"\n[problem]\ncommand = [\"false\"]\n"
         "[[problem.parameters]]\nname = \"x\"\ntype = \"real\"\nlow = 0.0\nhigh = 1.0\n"
         "[[problem.parameters]]\nname = \"k\"\ntype = \"categorical\"\nchoices = [\"a\", \"b\"]\n"
         "[initial_design]\nsize = 4\n" +
         method;
}

const char* kGp =
    "[surrogate]\nplugin = \"gp\"\nrestarts = 1\n[acquisition]\nplugin = \"ei\"\n"
    "[inner_solver]\nplugin = \"nelder_mead\"\nsamples = 200\nstarts = 2\n";

// The objective the predict tests tell: linear in x, 1 higher for k = "b".
double linear_objective(const Observation& o) {
  const auto values = nlohmann::json::parse(o.params_json);
  return 10.0 + 5.0 * values["x"].get<double>() + (values["k"] == "b" ? 1.0 : 0.0);
}

TEST_F(StudyTest, PredictGivesTheObjectiveSurrogateInUserUnitsAndDirection) {
  for (const bool maximize : {false, true}) {
    SCOPED_TRACE(maximize ? "maximize" : "minimize");
    const fs::path dir = dir_ / (maximize ? "max" : "min");
    auto study = Study::create(
        dir, parse_pipeline(external_toml(kGp, maximize), "t.toml", {}, lookup_from(registry_)), "",
        registry_);
    std::vector<std::vector<sdk::Value>> points;
    std::vector<double> told;
    for (int i = 0; i < 10; ++i) {
      const Observation o = study->ask();
      told.push_back(linear_objective(o));
      study->tell(o.id, study->outcome_from_json(std::to_string(told.back())));
      const auto values = nlohmann::json::parse(o.params_json);
      points.push_back({values["x"].get<double>(), values["k"].get<std::string>()});
    }
    // Between and beside the observations, in both categories.
    points.push_back({0.5, std::string("a")});
    points.push_back({0.25, std::string("b")});
    told.push_back(12.5);
    told.push_back(12.25);
    const Prediction p = study->predict(points);
    ASSERT_EQ(p.mean.size(), points.size());
    ASSERT_EQ(p.stddev.size(), points.size());
    for (std::size_t i = 0; i < points.size(); ++i) {
      // A GP fits a linear function closely: the mean is the told value, not its negation
      // (the kernel's minimization-sense target) nor a standardized one.
      EXPECT_NEAR(p.mean[i], told[i], 0.3) << i;
      EXPECT_GE(p.stddev[i], 0.0) << i;
      EXPECT_LT(p.stddev[i], 1.0) << i;
    }
  }
}

TEST_F(StudyTest, PredictLeavesTheProposalsUnchanged) {
  const auto make = [&](const char* name) {
    return Study::create(
        dir_ / name,
        parse_pipeline(external_toml(kGp, false), "t.toml", {}, lookup_from(registry_)), "",
        registry_);
  };
  auto a = make("a");
  auto b = make("b");
  for (int i = 0; i < 8; ++i) {
    if (i > 0) {
      const Prediction p = b->predict({{0.3, std::string("a")}});
      ASSERT_EQ(p.mean.size(), 1u);
    }
    const Observation oa = a->ask();
    const Observation ob = b->ask();
    ASSERT_EQ(oa.params_json, ob.params_json) << i;
    a->tell(oa.id, a->outcome_from_json(std::to_string(linear_objective(oa))));
    b->tell(ob.id, b->outcome_from_json(std::to_string(linear_objective(ob))));
  }
}

// The message and exit code of the KernelError `f` throws contain each of `parts`.
template <class F>
void expect_message(const F& f, std::initializer_list<const char*> parts) {
  std::string text = "no error";
  try {
    f();
  } catch (const KernelError& e) {
    text = std::string(e.what()) + " [exit " + std::to_string(e.exit_code()) + "]";
  }
  for (const char* part : parts) EXPECT_NE(text.find(part), std::string::npos) << text;
}

TEST_F(StudyTest, PredictRefusesWhatItCannotAnswer) {
  const auto study_with = [&](const char* name, const std::string& method) {
    return Study::create(
        dir_ / name,
        parse_pipeline(external_toml(method, false), "t.toml", {}, lookup_from(registry_)), "",
        registry_);
  };
  auto gp = study_with("gp", kGp);
  const std::vector<std::vector<sdk::Value>> one{{0.5, std::string("a")}};
  expect_message([&] { gp->predict(one); }, {"no completed observation", "[exit 5]"});
  const Observation o = gp->ask();
  gp->tell(o.id, gp->outcome_from_json("1.0"));
  EXPECT_EQ(gp->predict(one).mean.size(), 1u);
  EXPECT_EQ(gp->predict({}).mean.size(), 0u);
  expect_message(
      [&] {
        gp->predict({{2.0, std::string("a")}});
      },
      {"point 1: parameter 'x'", "outside", "[exit 3]"});
  expect_message(
      [&] {
        gp->predict({{0.5, std::string("a")}, {0.5, std::monostate{}}});
      },
      {"point 2: parameter 'k' is missing", "[exit 3]"});
  expect_message([&] { gp->predict({{0.5}}); }, {"point 1", "[exit 3]"});

  auto random = study_with("random", "[inner_solver]\nplugin = \"random\"\n");
  expect_message([&] { random->predict(one); },
                 {"has no [surrogate]", "inner_solver/random", "[exit 3]"});
  auto tpe = study_with("tpe",
                        "[surrogate]\nplugin = \"tpe\"\n[acquisition]\nplugin = \"ctpe\"\n"
                        "[inner_solver]\nplugin = \"candidate_pool\"\n");
  expect_message([&] { tpe->predict(one); }, {"surrogate/tpe is a density model", "[exit 3]"});
}

// Study::tell_point: a point the study did not propose, recorded as a finished observation
// with origin "tell", in the data the next proposal sees, counted in the budget, kept on reopen.
TEST_F(StudyTest, TellPointRecordsAPointTheStudyDidNotPropose) {
  auto study =
      Study::create(dir_,
                    parse_pipeline(external_toml("[inner_solver]\nplugin = \"random\"\n", false),
                                   "test.toml", {}, lookup_from(registry_)),
                    "", registry_);
  study->set_limits(3, 0);
  const Observation told = study->tell_point({sdk::Value(0.25), sdk::Value(std::string("b"))},
                                             study->outcome_from_json("{\"objective\": 4.5}"));
  EXPECT_EQ(told.id, 1);
  EXPECT_EQ(told.origin, "tell");
  EXPECT_EQ(told.status, ObsStatus::Complete);
  EXPECT_TRUE(told.feasible);
  EXPECT_EQ(nlohmann::json::parse(told.params_json),
            nlohmann::json::parse(R"({"x": 0.25, "k": "b"})"));
  ASSERT_EQ(study->dataset().size(), 1u);
  EXPECT_EQ(study->dataset().y[0], 4.5);
  ASSERT_TRUE(study->best());
  EXPECT_EQ(study->best()->id, 1);
  // A failure is told the same way; the next proposal takes the next number.
  EvalOutcome failed;
  failed.reason = "the furnace broke";
  const Observation f = study->tell_point({sdk::Value(0.5), sdk::Value(std::string("a"))}, failed);
  EXPECT_EQ(f.status, ObsStatus::Failed);
  EXPECT_EQ(study->dataset().X_failed.rows(), 1);
  EXPECT_EQ(study->ask().id, 3);
  // Bad values are refused and record nothing; so is a point beyond the budget.
  EXPECT_THROW(study->tell_point({sdk::Value(2.0), sdk::Value(std::string("a"))}, failed),
               StudyError);  // the budget (3) is spent
  study->set_limits(5, 0);
  EXPECT_THROW(study->tell_point({sdk::Value(2.0), sdk::Value(std::string("a"))}, failed),
               ConfigError);  // x out of bounds
  EXPECT_THROW(study->tell_point({sdk::Value(0.5), sdk::Value(std::string("c"))}, failed),
               ConfigError);  // no such choice
  EXPECT_THROW(study->tell_point({sdk::Value(0.5), sdk::Value()}, failed),
               ConfigError);  // k missing
  EXPECT_EQ(study->observation_count(), 3);
  study.reset();
  auto reopened = Study::open(dir_, registry_);
  EXPECT_EQ(reopened->observation_count(), 3);
  EXPECT_EQ(reopened->dataset().size(), 1u);
  EXPECT_EQ(reopened->store().observation(1)->origin, "tell");
}

TEST_F(StudyTest, AProposalRepeatingAnEvaluatedPointIsSaidOnceAsAWarningThenLogged) {
  // Two points in all: from the third proposal on, every one repeats an evaluated point.
  auto study = Study::create(
      dir_,
      parse_pipeline("[study]\nseed = 5\nbudget = 6\n[problem]\ncommand = [\"false\"]\n"
                     "[[problem.parameters]]\nname = \"k\"\ntype = \"categorical\"\n"
                     "choices = [\"a\", \"b\"]\n[initial_design]\nsize = 2\n"
                     "[inner_solver]\nplugin = \"random\"\n",
                     "t.toml", {}, lookup_from(registry_)),
      "", registry_);
  std::set<std::string> seen;
  int repeats = 0;
  for (int i = 0; i < 6; ++i) {
    const Observation o = study->ask();
    repeats += seen.insert(o.params_json).second ? 0 : 1;
    study->tell(o.id, study->outcome_from_json("1.0"));
  }
  ASSERT_GE(repeats, 4);
  study.reset();
  std::ifstream in(dir_ / "arbo.log");
  int warnings = 0, infos = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.find("repeats a point already evaluated") == std::string::npos) continue;
    if (line.find(" warning ") != std::string::npos) {
      ++warnings;
      EXPECT_NE(line.find("exclude_evaluated = true"), std::string::npos) << line;
      EXPECT_NE(line.find("resample_duplicates = true"), std::string::npos) << line;
    } else {
      ++infos;
    }
  }
  EXPECT_EQ(warnings, 1);
  EXPECT_EQ(warnings + infos, repeats);
}

TEST_F(StudyTest, AReadOnlyOpenReadsAStudyThatIsBeingDrivenAndWritesNothing) {
  auto driver =
      Study::create(dir_,
                    parse_pipeline(external_toml("[inner_solver]\nplugin = \"random\"\n", false),
                                   "test.toml", {}, lookup_from(registry_)),
                    "", registry_);
  const Observation asked = driver->ask();
  driver->tell(asked.id, driver->outcome_from_json("{\"objective\": 2.0}"));
  const Observation pending = driver->ask();
  // The driver holds the lock: a second writer is refused, a reader is not.
  EXPECT_THROW(Study::open(dir_, registry_), StudyError);
  const auto log_size = fs::file_size(dir_ / "arbo.log");
  auto reader = Study::open_read_only(dir_, registry_);
  EXPECT_EQ(reader->observation_count(), 2);
  EXPECT_EQ(reader->dataset().size(), 1u);
  ASSERT_TRUE(reader->best());
  EXPECT_EQ(reader->best()->objective, 2.0);
  const std::vector<sdk::Value> point{sdk::Value(0.5), sdk::Value(std::string("a"))};
  EvalOutcome failed;
  failed.reason = "x";
  for (const auto& [what, call] : std::vector<std::pair<std::string, std::function<void()>>>{
           {"run", [&] { reader->run(RunOptions{}); }},
           {"ask", [&] { reader->ask(); }},
           {"tell", [&] { reader->tell(pending.id, failed); }},
           {"tell_point", [&] { reader->tell_point(point, failed); }},
           {"set_limits", [&] { reader->set_limits(50, 0); }}}) {
    try {
      call();
      ADD_FAILURE() << what << " wrote through a read-only study";
    } catch (const StudyError& e) {
      EXPECT_NE(std::string(e.what()).find(what + " needs the study opened for writing"),
                std::string::npos)
          << e.what();
    }
  }
  reader.reset();
  EXPECT_EQ(fs::file_size(dir_ / "arbo.log"), log_size);
  // The driver goes on as if no one had read.
  driver->tell(pending.id, driver->outcome_from_json("{\"objective\": 1.0}"));
  EXPECT_EQ(driver->best()->objective, 1.0);
}

}  // namespace
}  // namespace arbo::kernel
