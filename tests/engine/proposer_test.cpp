// SPDX-License-Identifier: MIT
// The engine's model-based path (fit, bind, solve, fallback, knowledge augmentation, origin
// and statistics, errors naming the component that threw) with tiny components defined here
// and wired into `Components` in-process, without plugins or a study directory's loop.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <limits>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "arbo/kernel/context.hpp"
#include "arbo/kernel/errors.hpp"
#include "arbo/kernel/problem_loader.hpp"
#include "arbo/kernel/study_store.hpp"
#include "arbo/sdk/capabilities.hpp"
#include "common/temp_dir.hpp"
#include "engine/augmentation.hpp"
#include "engine/components.hpp"
#include "engine/dataset_buffer.hpp"
#include "engine/guarded_components.hpp"
#include "engine/proposer.hpp"

namespace arbo::kernel {
namespace {

namespace fs = std::filesystem;

// What the tiny components saw.
struct Log {
  int fits = 0;
  int partial_fits = 0;
  Eigen::Index partial_rows = 0;
  int binds = 0;
  const sdk::Surrogate* bound_objective = nullptr;
  int solves = 0;
  bool solver_saw_acquisition = false;
  std::size_t solver_rows = 0;  // rows of the dataset the solver was given, last call
  std::size_t solver_dim = 0;
  std::size_t solver_constraints = 0;
  sdk::Dataset fitted;             // the data of the last fit (a copy)
  std::size_t solver_pending = 0;  // rows of X_pending the solver was given, last call
};

// Mean = sum of the coordinates, variance 1. Optionally throws from predict().
class TinySurrogate : public sdk::Surrogate {
 public:
  TinySurrogate(Log& log, bool throw_in_predict) : log_(log), throw_(throw_in_predict) {}
  void fit(const sdk::Dataset& data, const sdk::Metric&) override {
    ++log_.fits;
    log_.fitted = data;
  }
  void predict(const Eigen::MatrixXd& X, Eigen::VectorXd& mean,
               Eigen::VectorXd& variance) const override {
    if (throw_) throw std::runtime_error("surrogate exploded");
    mean = X.rowwise().sum();
    variance = Eigen::VectorXd::Ones(X.rows());
  }

 protected:
  Log& log_;
  bool throw_;
};

// A surrogate that also learns from partial observations (knowledge augmentation).
class PartialSurrogate final : public TinySurrogate, public sdk::FitsPartialObservations {
 public:
  using TinySurrogate::TinySurrogate;
  void fit_partial(const sdk::Dataset&, const sdk::Metric&, const Eigen::MatrixXd& X_partial,
                   const Eigen::VectorXd& partial) override {
    ++log_.partial_fits;
    log_.partial_rows = X_partial.rows();
    EXPECT_EQ(partial.size(), X_partial.rows());
  }
};

// Value = -(predicted mean): prefers small coordinates. Optionally throws from value().
class TinyAcquisition final : public sdk::Acquisition {
 public:
  TinyAcquisition(Log& log, bool throw_in_value) : log_(log), throw_(throw_in_value) {}
  void bind(const sdk::AcquisitionInputs& in) override {
    ++log_.binds;
    objective_ = in.objective;
    log_.bound_objective = in.objective;
  }
  double value(const Eigen::VectorXd& x) const override {
    if (throw_) throw std::runtime_error("acquisition exploded");
    Eigen::MatrixXd X = x.transpose();
    Eigen::VectorXd mean, variance;
    objective_->predict(X, mean, variance);
    return -mean[0];
  }

 private:
  Log& log_;
  bool throw_;
  const sdk::Surrogate* objective_ = nullptr;
};

enum class SolverMode { Search, GiveUp, Throw, WrapErrors };

// A black-box solver: the best of 16 uniform draws from its context's stream that satisfy
// the known constraints. With an acquisition it reports a certificate and a model size, so
// the statistics path is exercised.
class TinySolver : public sdk::InnerSolver {
 public:
  TinySolver(sdk::Context& ctx, Log& log, SolverMode mode) : ctx_(ctx), log_(log), mode_(mode) {}
  sdk::Proposal maximize(const sdk::SolveRequest& r) override {
    ++log_.solves;
    log_.solver_saw_acquisition = r.acquisition != nullptr;
    log_.solver_rows = r.data.size();
    log_.solver_pending = static_cast<std::size_t>(r.data.X_pending.rows());
    log_.solver_dim = r.data.dim();
    log_.solver_constraints = r.data.num_constraints();
    if (mode_ == SolverMode::Throw) throw std::runtime_error("solver exploded");
    sdk::Proposal p;
    if (mode_ == SolverMode::GiveUp) {
      p.note = "tiny gave up";
      return p;
    }
    std::uniform_real_distribution<double> u(0.0, 1.0);
    double best = -std::numeric_limits<double>::infinity();
    for (int i = 0; i < 16; ++i) {
      Eigen::VectorXd x(static_cast<Eigen::Index>(r.space.size()));
      for (Eigen::Index d = 0; d < x.size(); ++d) x[d] = u(ctx_.rng());
      bool ok = true;
      for (const auto* c : r.constraints) ok = ok && c->violation(x) <= 0.0;
      if (!ok) continue;
      double v = 0.0;
      if (r.acquisition != nullptr) {
        if (mode_ == SolverMode::WrapErrors) {
          try {
            v = r.acquisition->value(x);
          } catch (const std::exception& e) {
            throw std::runtime_error(std::string("tiny solver stopped: ") + e.what());
          }
        } else {
          v = r.acquisition->value(x);
        }
      }
      if (v > best) {
        best = v;
        p.x = x;
      }
    }
    p.found = p.x.size() > 0;
    p.value = best;
    if (r.acquisition != nullptr) {
      sdk::SolveResult cert;
      cert.status = sdk::SolveStatus::Optimal;
      cert.nodes = 3;
      cert.lp_iterations = 9;
      cert.gap = 0.0;
      cert.objective = best;
      cert.best_bound = best;
      cert.seconds = 0.5;
      p.certificate = cert;
      p.model_size = sdk::Proposal::ModelSize{4, 1, 0, 2, 0};
    }
    return p;
  }

 private:
  sdk::Context& ctx_;
  Log& log_;
  SolverMode mode_;
};

// The same solver, declaring that it reads no data without an acquisition (it reads none).
class BlindTinySolver final : public TinySolver, public sdk::IgnoresDataWithoutModel {
 public:
  using TinySolver::TinySolver;
};

// Feasible iff x0 <= 0.5.
class HalfSpace final : public sdk::Constraint {
 public:
  double violation(const Eigen::VectorXd& x) const override { return x[0] - 0.5; }
};

// Objective = sum of x; one black-box constraint, x1 - 0.3.
class TinyEvaluator final : public Evaluator {
 public:
  EvalOutcome evaluate(std::int64_t, const Eigen::VectorXd& x, const std::string&) override {
    ++calls;
    EvalOutcome out;
    out.ok = true;
    out.objective = x.sum();
    out.constraints = Eigen::VectorXd::Constant(1, x[1] - 0.3);
    return out;
  }
  int calls = 0;
};

struct RigOptions {
  bool model = true;  // surrogate + acquisition
  bool known = false;
  bool partial = false;  // the surrogate learns from partial rows; constraint 0 is cheap
  bool surrogate_throws = false;
  bool acquisition_throws = false;
  SolverMode solver = SolverMode::Search;
  bool solver_ignores_data = false;  // BlindTinySolver
  ProposalOptions::Pending pending = ProposalOptions::Pending::ConstantLiarWorst;
};

// A study's components wired by hand, as `assemble` wires the plugins'.
class Rig {
 public:
  explicit Rig(const RigOptions& o, const fs::path& dir) {
    logger_ = make_logger("engine_test", "", false);
    pipeline_.seed = 11;
    pipeline_.design = DesignMethod::Random;
    pipeline_.design_size = 3;
    pipeline_.augmentation.points = 5;
    pipeline_.proposal.pending = o.pending;
    pipeline_.inner_solver = ComponentSpec{sdk::Kind::InnerSolver, "tiny", {}, {}};
    c_ = std::make_unique<Components>();
    c_->space = sdk::Space({sdk::Parameter::real("x0", 0, 1), sdk::Parameter::real("x1", 0, 1)});
    c_->constraints.push_back(BlackBoxConstraint{"c0", 0.0, true});
    c_->evaluator = std::make_unique<TinyEvaluator>();
    if (o.known) c_->add_known("constraint/half", std::make_shared<HalfSpace>(), nullptr);
    if (o.model) {
      pipeline_.surrogate = ComponentSpec{sdk::Kind::Surrogate, "tiny", {}, {}};
      pipeline_.acquisition = ComponentSpec{sdk::Kind::Acquisition, "tiny", {}, {}};
      for (int m = 0; m < 2; ++m) {
        KernelContext& ctx = c_->add_context("surrogate/tiny", logger_, &never_);
        std::shared_ptr<sdk::Surrogate> s;
        if (o.partial) {
          s = std::make_shared<PartialSurrogate>(log, o.surrogate_throws);
        } else {
          s = std::make_shared<TinySurrogate>(log, o.surrogate_throws);
        }
        c_->add_surrogate(std::move(s), "surrogate/tiny", ctx);
      }
      KernelContext& ctx = c_->add_context("acquisition/tiny", logger_, &never_);
      c_->set_acquisition(std::make_shared<TinyAcquisition>(log, o.acquisition_throws),
                          "acquisition/tiny", ctx);
    }
    if (o.partial) {
      pipeline_.augmentation.cheap_constraints = {"c0"};
      c_->cheap = {0};
    }
    KernelContext& sctx = c_->add_context("inner_solver/tiny", logger_, &never_);
    c_->solver_context = &sctx;
    if (o.solver_ignores_data) {
      c_->solver = std::make_shared<BlindTinySolver>(sctx, log, o.solver);
    } else {
      c_->solver = std::make_shared<TinySolver>(sctx, log, o.solver);
    }
    data.reset(2, {"c0"}, false);
    store_ = std::make_unique<StudyStore>(StudyStore::create(dir));
    augmentation = std::make_unique<KnowledgeAugmentation>(pipeline_, *c_, *store_, *logger_);
    proposer = std::make_unique<Proposer>(pipeline_, *c_, *augmentation, data, *logger_);
  }

  // Adds a completed observation at `x` (feasible black-box constraint).
  void observe(double x0, double x1) {
    Eigen::VectorXd x(2);
    x << x0, x1;
    data.append(x, x0 + x1, Eigen::VectorXd::Constant(1, -1.0));
  }

  Log log;
  DatasetBuffer data;
  std::unique_ptr<KnowledgeAugmentation> augmentation;
  std::unique_ptr<Proposer> proposer;
  Components& components() { return *c_; }
  StudyStore& store() { return *store_; }
  TinyEvaluator& evaluator() { return static_cast<TinyEvaluator&>(*c_->evaluator); }

 private:
  std::atomic<bool> never_{false};
  std::shared_ptr<spdlog::logger> logger_;
  Pipeline pipeline_;
  std::unique_ptr<Components> c_;
  std::unique_ptr<StudyStore> store_;
};

class ProposerTest : public test::TempDirTest {
 protected:
  ProposerTest() : TempDirTest("arbo_proposer_test_") {}
};

// The message of the PluginError thrown by f, or a test failure.
template <class F>
std::string plugin_error(F&& f) {
  try {
    f();
  } catch (const PluginError& e) {
    EXPECT_EQ(e.exit_code(), kExitPlugin);
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected PluginError, got: " << e.what();
    return {};
  }
  ADD_FAILURE() << "expected PluginError, nothing was thrown";
  return {};
}

TEST_F(ProposerTest, DesignPointsFirstThenTheModelWithStatistics) {
  Rig rig({}, dir_ / "s");
  for (std::int64_t k = 0; k < 3; ++k) {
    const ProposedPoint p = rig.proposer->propose(k);
    EXPECT_EQ(p.origin, Origin::Design) << k;
    EXPECT_EQ(p.stage, Origin::Design) << k;
    EXPECT_FALSE(p.stats.has_value()) << k;
    rig.observe(p.x[0], p.x[1]);
  }
  EXPECT_EQ(rig.log.solves, 0) << "design points need no solver";
  const ProposedPoint p = rig.proposer->propose(3);
  EXPECT_EQ(p.origin, Origin::Model);
  EXPECT_EQ(p.stage, Origin::Model);
  EXPECT_EQ(rig.log.fits, 2) << "one fit per metric";
  EXPECT_EQ(rig.log.binds, 1);
  EXPECT_TRUE(rig.log.solver_saw_acquisition);
  // The acquisition is bound to the surrogate's proxy, not the plugin's object.
  EXPECT_EQ(rig.log.bound_objective, rig.components().surrogates[0].guarded.get());
  ASSERT_TRUE(p.stats.has_value());
  ASSERT_TRUE(p.stats->certificate.has_value());
  EXPECT_EQ(p.stats->certificate->nodes, 3);
  ASSERT_TRUE(p.stats->model_size.has_value());
  EXPECT_EQ(p.stats->model_size->variables, 4);
  EXPECT_TRUE(p.stats->fallback.empty());
  EXPECT_GE(p.plugin_seconds, p.stats->solve_seconds);
  const auto j = nlohmann::json::parse(p.stats->to_json());
  EXPECT_EQ(j.at("status"), "optimal");
  EXPECT_EQ(j.at("variables"), 4);
  EXPECT_FALSE(j.contains("fallback"));
}

TEST_F(ProposerTest, TheSameStateGivesTheSamePoint) {
  Rig a({}, dir_ / "a");
  Rig b({}, dir_ / "b");
  for (std::int64_t k = 0; k < 6; ++k) {
    const ProposedPoint pa = a.proposer->propose(k);
    const ProposedPoint pb = b.proposer->propose(k);
    ASSERT_EQ(pa.x, pb.x) << k;
    a.observe(pa.x[0], pa.x[1]);
    b.observe(pb.x[0], pb.x[1]);
  }
}

// A model-free study must not copy its observations into the dataset at every proposal
// (sdk::Dataset grows by copy: O(n) per proposal, quadratic over a study) for a solver that
// declares it reads none of them; it gets an empty dataset of the right shape and proposes
// the same points.
TEST_F(ProposerTest, ASolverThatIgnoresDataWithoutAModelGetsNoneAndProposesTheSamePoints) {
  Rig blind(RigOptions{.model = false, .solver_ignores_data = true}, dir_ / "blind");
  Rig plain(RigOptions{.model = false}, dir_ / "plain");
  constexpr std::int64_t kProposals = 40;
  for (std::int64_t k = 0; k < kProposals; ++k) {
    const ProposedPoint pb = blind.proposer->propose(k);
    const ProposedPoint pp = plain.proposer->propose(k);
    ASSERT_EQ(pb.x, pp.x) << k;
    if (k >= 3) {
      EXPECT_EQ(blind.log.solver_rows, 0u) << k;
      EXPECT_EQ(blind.log.solver_dim, 2u) << k;
      EXPECT_EQ(blind.log.solver_constraints, 1u) << k;
      EXPECT_EQ(plain.log.solver_rows, static_cast<std::size_t>(k)) << k;
    }
    blind.observe(pb.x[0], pb.x[1]);
    plain.observe(pp.x[0], pp.x[1]);
  }
  EXPECT_EQ(blind.data.rows_copied(), 0);
  // The plain solver's dataset was brought up to date before each of its calls.
  EXPECT_GE(plain.data.rows_copied(), (kProposals - 4) * (kProposals - 3) / 2);
  EXPECT_EQ(blind.data.size(), static_cast<std::size_t>(kProposals));
  EXPECT_EQ(blind.data.view().size(), static_cast<std::size_t>(kProposals));
}

// With a model the same solver gets every observation: the marker is about model-free calls.
TEST_F(ProposerTest, ASolverThatIgnoresDataWithoutAModelGetsItWithOne) {
  Rig rig(RigOptions{.solver_ignores_data = true}, dir_ / "s");
  for (std::int64_t k = 0; k < 6; ++k) {
    const ProposedPoint p = rig.proposer->propose(k);
    if (k >= 3) {
      EXPECT_TRUE(rig.log.solver_saw_acquisition) << k;
      EXPECT_EQ(rig.log.solver_rows, static_cast<std::size_t>(k)) << k;
    }
    rig.observe(p.x[0], p.x[1]);
  }
}

TEST_F(ProposerTest, WithoutDataTheSolverCompletesTheDesignWithoutTheModel) {
  Rig rig({}, dir_ / "s");
  // Past the design but no data yet (every design point failed): model-free, design stage.
  const ProposedPoint p = rig.proposer->propose(3);
  EXPECT_EQ(p.origin, Origin::Design);
  EXPECT_EQ(p.stage, Origin::Design);
  EXPECT_FALSE(rig.log.solver_saw_acquisition);
  EXPECT_EQ(rig.log.fits, 0);
  EXPECT_FALSE(p.stats.has_value());
}

TEST_F(ProposerTest, AModelFreePipelineProposesInTheModelStage) {
  RigOptions o;
  o.model = false;
  Rig rig(o, dir_ / "s");
  const ProposedPoint p = rig.proposer->propose(3);
  EXPECT_EQ(p.origin, Origin::Model);
  EXPECT_EQ(p.stage, Origin::Model);
  EXPECT_FALSE(p.stats.has_value()) << "no model, no statistics";
}

TEST_F(ProposerTest, FallbackWhenTheSolverFindsNothingButAnObservationIsFeasible) {
  RigOptions o;
  o.known = true;
  o.solver = SolverMode::GiveUp;
  Rig rig(o, dir_ / "s");
  rig.observe(0.2, 0.7);  // satisfies x0 <= 0.5
  const ProposedPoint p = rig.proposer->propose(3);
  EXPECT_EQ(p.origin, Origin::Fallback);
  EXPECT_EQ(p.stage, Origin::Model) << "stored as the stage it stood in for";
  EXPECT_LE(p.x[0], 0.5);
  ASSERT_TRUE(p.stats.has_value());
  EXPECT_NE(p.stats->fallback.find("inner_solver/tiny found no point satisfying the known "
                                   "constraints (constraint/half): tiny gave up, though 1 of the "
                                   "1 completed observations satisfy them"),
            std::string::npos)
      << p.stats->fallback;
  EXPECT_EQ(nlohmann::json::parse(p.stats->to_json()).at("fallback"), p.stats->fallback);
  // The fallback draws come from a derived seed: the same proposal again is the same point.
  Rig again(o, dir_ / "t");
  again.observe(0.2, 0.7);
  EXPECT_EQ(again.proposer->propose(3).x, p.x);
}

TEST_F(ProposerTest, NoFeasibleObservationMeansInfeasible) {
  RigOptions o;
  o.known = true;
  o.solver = SolverMode::GiveUp;
  Rig rig(o, dir_ / "s");
  rig.observe(0.9, 0.7);  // violates x0 <= 0.5
  try {
    rig.proposer->propose(3);
    FAIL() << "expected InfeasibleError";
  } catch (const InfeasibleError& e) {
    EXPECT_EQ(std::string(e.what()),
              "inner_solver/tiny found no point satisfying the known constraints "
              "(constraint/half): tiny gave up");
  }
}

TEST_F(ProposerTest, AugmentationFitsTheCheapConstraintOnPartialRowsAndIsStoredOnce) {
  RigOptions o;
  o.partial = true;
  Rig rig(o, dir_ / "s");
  for (std::int64_t k = 0; k < 3; ++k) {
    const ProposedPoint p = rig.proposer->propose(k);
    rig.observe(p.x[0], p.x[1]);
  }
  EXPECT_EQ(rig.evaluator().calls, 0) << "augmentation waits for the first model proposal";
  rig.proposer->propose(3);
  EXPECT_EQ(rig.evaluator().calls, 5);
  EXPECT_EQ(rig.log.fits, 1) << "the objective is fitted as usual";
  EXPECT_EQ(rig.log.partial_fits, 1) << "the cheap constraint learns from the partial rows";
  EXPECT_EQ(rig.log.partial_rows, 5);
  ASSERT_TRUE(rig.store().meta("augmentation").has_value());
  const Eigen::MatrixXd points = rig.augmentation->points();
  const Eigen::MatrixXd values = rig.augmentation->values();
  ASSERT_EQ(values.rows(), 5);
  for (Eigen::Index i = 0; i < 5; ++i) EXPECT_DOUBLE_EQ(values(i, 0), points(i, 1) - 0.3);
  EXPECT_EQ(rig.augmentation->column(1), 0);
  EXPECT_EQ(rig.augmentation->column(0), -1);
  // A second proposal reuses the points; a resumed study reads them back from the store.
  rig.proposer->propose(4);
  EXPECT_EQ(rig.evaluator().calls, 5);
  Pipeline pipeline;
  pipeline.augmentation.cheap_constraints = {"c0"};
  auto logger = make_logger("engine_test", "", false);
  KnowledgeAugmentation resumed(pipeline, rig.components(), rig.store(), *logger);
  resumed.ensure();
  EXPECT_EQ(rig.evaluator().calls, 5);
  EXPECT_EQ(resumed.points(), points);
  EXPECT_EQ(resumed.values(), values);
}

TEST_F(ProposerTest, AnAcquisitionThatThrowsInsideTheSolverIsNamed) {
  RigOptions o;
  o.acquisition_throws = true;
  Rig rig(o, dir_ / "s");
  rig.observe(0.1, 0.1);
  EXPECT_EQ(plugin_error([&] { rig.proposer->propose(3); }),
            "acquisition/tiny: value(): acquisition exploded");
}

TEST_F(ProposerTest, ASurrogateThatThrowsInsideTheAcquisitionIsNamed) {
  RigOptions o;
  o.surrogate_throws = true;
  Rig rig(o, dir_ / "s");
  rig.observe(0.1, 0.1);
  EXPECT_EQ(plugin_error([&] { rig.proposer->propose(3); }),
            "surrogate/tiny: predict(): surrogate exploded");
}

TEST_F(ProposerTest, AWrappedErrorIsStillTracedToItsComponent) {
  RigOptions o;
  o.surrogate_throws = true;
  o.solver = SolverMode::WrapErrors;
  Rig rig(o, dir_ / "s");
  rig.observe(0.1, 0.1);
  EXPECT_EQ(plugin_error([&] { rig.proposer->propose(3); }),
            "surrogate/tiny: predict(): surrogate exploded");
}

TEST_F(ProposerTest, TheSolversOwnErrorNamesTheSolver) {
  RigOptions o;
  o.solver = SolverMode::Throw;
  Rig rig(o, dir_ / "s");
  rig.observe(0.1, 0.1);
  EXPECT_EQ(plugin_error([&] { rig.proposer->propose(3); }),
            "inner_solver/tiny: maximize(): solver exploded");
}

// [proposal] pending (issue 27): the surrogates are fitted to the pending points with the
// rule's lie per column; the solver gets the true data with X_pending; the incumbent stays the
// best completed value.
TEST_F(ProposerTest, PendingPointsEnterTheFitWithTheRulesLie) {
  using Rule = ProposalOptions::Pending;
  const std::pair<Rule, double> rules[] = {
      {Rule::ConstantLiarWorst, 1.5}, {Rule::ConstantLiarBest, 0.5}, {Rule::ConstantLiarMean, 1.0}};
  for (const auto& [rule, lie] : rules) {
    RigOptions o;
    o.pending = rule;
    Rig rig(o, dir_ / ("s" + std::to_string(static_cast<int>(rule))));
    rig.observe(0.2, 0.3);  // y 0.5
    rig.observe(0.5, 0.5);  // y 1.0
    rig.observe(0.7, 0.8);  // y 1.5
    Eigen::VectorXd a(2), b(2);
    a << 0.1, 0.9;
    b << 0.9, 0.1;
    rig.data.set_pending({a, b});
    rig.proposer->propose(3);
    const sdk::Dataset& fitted = rig.log.fitted;
    ASSERT_EQ(fitted.X.rows(), 5) << static_cast<int>(rule);
    EXPECT_EQ(fitted.X.row(3), a.transpose());
    EXPECT_EQ(fitted.X.row(4), b.transpose());
    EXPECT_DOUBLE_EQ(fitted.y[3], lie);
    EXPECT_DOUBLE_EQ(fitted.y[4], lie);
    EXPECT_DOUBLE_EQ(fitted.C(3, 0), -1.0);  // every completed c is -1
    EXPECT_EQ(fitted.feasible.size(), 5u);
    EXPECT_EQ(rig.log.solver_rows, 3u) << "the solver gets the true data";
    EXPECT_EQ(rig.log.solver_pending, 2u);
  }
  Rig ignore(RigOptions{.pending = Rule::Ignore}, dir_ / "ignore");
  ignore.observe(0.2, 0.3);
  Eigen::VectorXd a(2);
  a << 0.1, 0.9;
  ignore.data.set_pending({a});
  ignore.proposer->propose(3);
  EXPECT_EQ(ignore.log.fitted.X.rows(), 1);
  EXPECT_EQ(ignore.log.solver_pending, 1u);
}

// A proposal that repeats a pending point is replaced by a random point that is not pending.
TEST_F(ProposerTest, AProposalNeverRepeatsAPendingPoint) {
  Rig a({}, dir_ / "a");
  Rig b({}, dir_ / "b");
  for (Rig* r : {&a, &b}) {
    r->observe(0.2, 0.3);
    r->observe(0.5, 0.5);
    r->observe(0.7, 0.8);
  }
  const ProposedPoint first = a.proposer->propose(3);
  b.data.set_pending({first.x});
  const ProposedPoint second = b.proposer->propose(3);
  EXPECT_GT((second.x - first.x).cwiseAbs().maxCoeff(), 1e-9);
  EXPECT_EQ(second.origin, Origin::Fallback);
  EXPECT_EQ(second.stage, Origin::Model);
  EXPECT_FALSE(second.repeats_pending);
}

TEST(ProposalStats, SerializesToTheStoredJson) {
  ProposalStats st;
  st.fit_seconds = 0.25;
  st.solve_seconds = 1.5;
  EXPECT_EQ(st.to_json(), R"({"fit_seconds":0.25,"solve_seconds":1.5})");
  st.certificate = SolveCertificate{sdk::SolveStatus::LimitReached,
                                    7,
                                    42,
                                    std::numeric_limits<double>::infinity(),
                                    -1.5,
                                    -2.0,
                                    1.25};
  st.model_size = sdk::Proposal::ModelSize{10, 2, 1, 5, 0};
  st.fallback = "why";
  EXPECT_EQ(st.to_json(),
            R"({"best_bound":-2.0,"binaries":2,"fallback":"why","fit_seconds":0.25,"gap":null,)"
            R"("integers":1,"linear_rows":5,"lp_iterations":42,"nodes":7,"objective":-1.5,)"
            R"("quadratic_rows":0,"solve_seconds":1.5,"solver_seconds":1.25,)"
            R"("status":"limit reached","variables":10})");
}

// Surrogates with every capability combination a test can cheaply make: the proxy has exactly
// the capabilities of the object it wraps, and forwards values unchanged.
class DensitySurrogate final : public TinySurrogate,
                               public sdk::DensityModel,
                               public sdk::ReportsGoodFraction {
 public:
  using TinySurrogate::TinySurrogate;
  double log_l(const Eigen::VectorXd& x) const override { return x.sum(); }
  double log_g(const Eigen::VectorXd&) const override { throw std::runtime_error("no g today"); }
  void sample_l(std::size_t n, std::mt19937_64&, Eigen::MatrixXd& out) const override {
    out = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(n), 2);
  }
  double good_fraction() const override { return 0.25; }
};

// A surrogate whose regions are the unit cells of the integer grid; its representative is the
// cell's centre. Optionally throws.
class GridSurrogate final : public TinySurrogate, public sdk::RepresentsRegions {
 public:
  using TinySurrogate::TinySurrogate;
  Eigen::VectorXd representative(const Eigen::VectorXd& x) const override {
    if (throw_) throw std::runtime_error("no regions today");
    return (x.array().floor() + 0.5).matrix();
  }
};

TEST(GuardedComponents, ProxiesHaveExactlyTheWrappedCapabilities) {
  Log log;
  FaultRecorder faults;
  const auto plain =
      make_guarded_surrogate(std::make_shared<TinySurrogate>(log, false), "surrogate/a", faults);
  EXPECT_EQ(dynamic_cast<const sdk::DensityModel*>(plain.get()), nullptr);
  EXPECT_EQ(dynamic_cast<const sdk::FitsPartialObservations*>(plain.get()), nullptr);
  EXPECT_EQ(dynamic_cast<const sdk::FormulatesSurrogate*>(plain.get()), nullptr);

  EXPECT_EQ(dynamic_cast<const sdk::RepresentsRegions*>(plain.get()), nullptr);
  const auto grid =
      make_guarded_surrogate(std::make_shared<GridSurrogate>(log, false), "surrogate/g", faults);
  const auto* rr = dynamic_cast<const sdk::RepresentsRegions*>(grid.get());
  ASSERT_NE(rr, nullptr);
  EXPECT_EQ(rr->representative(Eigen::Vector2d(1.2, -0.7)), Eigen::Vector2d(1.5, -0.5));
  const auto broken =
      make_guarded_surrogate(std::make_shared<GridSurrogate>(log, true), "surrogate/h", faults);
  faults.clear();
  try {
    dynamic_cast<const sdk::RepresentsRegions&>(*broken).representative(Eigen::Vector2d(0, 0));
    FAIL() << "expected the original exception";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(faults.blame(&e, e.what()).value_or(""),
              "surrogate/h: representative(): no regions today");
  }

  const auto partial =
      make_guarded_surrogate(std::make_shared<PartialSurrogate>(log, false), "surrogate/b", faults);
  EXPECT_NE(dynamic_cast<const sdk::FitsPartialObservations*>(partial.get()), nullptr);
  EXPECT_EQ(dynamic_cast<const sdk::DensityModel*>(partial.get()), nullptr);

  const auto density =
      make_guarded_surrogate(std::make_shared<DensitySurrogate>(log, false), "surrogate/c", faults);
  const auto* dm = dynamic_cast<const sdk::DensityModel*>(density.get());
  const auto* gf = dynamic_cast<const sdk::ReportsGoodFraction*>(density.get());
  ASSERT_NE(dm, nullptr);
  ASSERT_NE(gf, nullptr);
  EXPECT_EQ(dynamic_cast<const sdk::PosteriorSampler*>(density.get()), nullptr);
  EXPECT_EQ(dynamic_cast<const sdk::DecodesSolution*>(density.get()), nullptr);
  EXPECT_EQ(gf->good_fraction(), 0.25);
  EXPECT_EQ(dm->log_l(Eigen::Vector2d(0.5, 0.25)), 0.75);
  Eigen::MatrixXd X(2, 2);
  X << 0.1, 0.2, 0.3, 0.4;
  Eigen::VectorXd mean, variance;
  density->predict(X, mean, variance);
  EXPECT_EQ(mean, X.rowwise().sum());

  // A throw passes through unchanged, and the recorder names the component and the method.
  faults.clear();
  try {
    dm->log_g(Eigen::Vector2d(0.5, 0.25));
    FAIL() << "expected the original exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "no g today");
    EXPECT_EQ(faults.blame(&e, e.what()).value_or(""), "surrogate/c: log_g(): no g today");
  }
  const std::runtime_error unrelated("something else");
  EXPECT_FALSE(faults.blame(&unrelated, unrelated.what()).has_value());

  ValueRange range;
  const auto acquisition = make_guarded_acquisition(std::make_shared<TinyAcquisition>(log, false),
                                                    "acquisition/a", faults, range);
  EXPECT_EQ(dynamic_cast<const sdk::ProposesCandidates*>(acquisition.get()), nullptr);
  EXPECT_EQ(dynamic_cast<const sdk::FormulatesAcquisition*>(acquisition.get()), nullptr);
  EXPECT_EQ(dynamic_cast<const sdk::RespectsBlackBoxConstraints*>(acquisition.get()), nullptr);
}

// What the kernel's warning about a constant acquisition rests on.
TEST(ValueRange, CountsPointsAndKeepsTheRangeOfNonNaNValues) {
  ValueRange r;
  r.reset();
  EXPECT_EQ(r.count(), 0);
  EXPECT_FALSE(r.constant());
  r.add(0.5);
  EXPECT_FALSE(r.constant()) << "one point is not a constant";
  r.add(0.5);
  r.add(std::nan(""));
  EXPECT_EQ(r.count(), 3);
  EXPECT_TRUE(r.constant());
  EXPECT_EQ(r.lowest(), 0.5);
  r.add(0.25);
  EXPECT_FALSE(r.constant());
  EXPECT_EQ(r.lowest(), 0.25);
  EXPECT_EQ(r.highest(), 0.5);
  r.reset();
  r.add(-std::numeric_limits<double>::infinity());
  r.add(-std::numeric_limits<double>::infinity());
  EXPECT_TRUE(r.constant()) << "-inf everywhere: nothing was admitted";
  r.reset();
  r.add(std::nan(""));
  r.add(std::nan(""));
  EXPECT_FALSE(r.constant()) << "no value at all";
  // Several threads at once lose no point and no extreme.
  r.reset();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&r, t] {
      for (int i = 0; i < 10000; ++i) r.add(static_cast<double>(t * 10000 + i));
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(r.count(), 40000);
  EXPECT_EQ(r.lowest(), 0.0);
  EXPECT_EQ(r.highest(), 39999.0);
}

TEST(ComponentError, OneShapeAndNoDoublePrefix) {
  EXPECT_EQ(component_error("surrogate/tree_gp", "fit", "matrix not positive definite"),
            "surrogate/tree_gp: fit(): matrix not positive definite");
  // A plugin that names itself (the SDK templates' style, or the common shape) keeps one name.
  EXPECT_EQ(component_error("acquisition/lcb", "formulate",
                            "[acquisition/lcb] formulate(): called before bind()"),
            "acquisition/lcb: formulate(): called before bind()");
  EXPECT_EQ(component_error("surrogate/x", "fit", "surrogate/x: fit(): empty"),
            "surrogate/x: fit(): empty");
  EXPECT_EQ(component_error("surrogate/x", "fit", "[surrogate/x] the dataset is empty"),
            "surrogate/x: fit(): the dataset is empty");
  // Another component's name is kept: it is part of what happened.
  EXPECT_EQ(component_error("inner_solver/a", "maximize", "[surrogate/x] fit(): empty"),
            "inner_solver/a: maximize(): [surrogate/x] fit(): empty");
}

TEST(KnownExcess, EqualitiesCountBothWaysAndNaNIsInfeasible) {
  const sdk::KnownConstraintSpec le{"a", "x <= 1"};
  const sdk::KnownConstraintSpec eq{"b", "x == 1"};
  EXPECT_EQ(known_excess(le, -2.0), -2.0);
  EXPECT_EQ(known_excess(eq, -2.0), 2.0);
  EXPECT_TRUE(std::isinf(known_excess(le, std::nan(""))));
  EXPECT_LE(known_excess(eq, 1e-7), kKnownTolerance);
}

}  // namespace
}  // namespace arbo::kernel
