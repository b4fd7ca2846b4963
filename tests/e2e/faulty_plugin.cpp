// SPDX-License-Identifier: MIT
// Test plugin: an inner solver that works for a while and then throws, one that works until it
// is cancelled, and a problem whose objective throws or returns NaN at chosen observations. Used
// to check that the kernel reports the plugin, method and message, exits non-zero and leaves
// the study intact, and that an interrupt reaches Context::cancelled().
#include <chrono>
#include <stdexcept>
#include <thread>

#include <arbo/sdk/plugin.hpp>

namespace arbo::plugins {
namespace {

class ThrowingSolver final : public sdk::InnerSolver {
 public:
  explicit ThrowingSolver(const sdk::CreateArgs& args)
      : ctx_(args.context), throw_on_call_(args.params.get_int("throw_on_call")) {}
  static const sdk::ParamSpecList& params() {
    static const sdk::ParamSpecList specs{sdk::ParamSpec::integer(
        "throw_on_call", "1-based number of the maximize() call that throws", 3, 1)};
    return specs;
  }
  sdk::Proposal maximize(const sdk::SolveRequest& req) override {
    if (++calls_ == throw_on_call_) throw std::runtime_error("simulated solver failure");
    sdk::Proposal p;
    Eigen::VectorXd u(static_cast<Eigen::Index>(req.space.size()));
    std::uniform_real_distribution<double> unif(0.0, 1.0);
    for (Eigen::Index i = 0; i < u.size(); ++i) u[i] = unif(ctx_.rng());
    p.x = req.space.from_unit(u);
    p.found = true;
    return p;
  }

 private:
  sdk::Context& ctx_;
  std::int64_t throw_on_call_;
  std::int64_t calls_ = 0;
};

// An inner solver whose every solve runs until its context is cancelled (a long branch and
// bound, in short): it says so in the log, then returns the centre of the space. It gives up
// after ten minutes, so that a kernel that never cancels fails a test instead of hanging it.
class UntilCancelledSolver final : public sdk::InnerSolver {
 public:
  explicit UntilCancelledSolver(const sdk::CreateArgs& args) : ctx_(args.context) {}
  static const sdk::ParamSpecList& params() {
    static const sdk::ParamSpecList specs;
    return specs;
  }
  sdk::Proposal maximize(const sdk::SolveRequest& req) override {
    ctx_.log(sdk::LogLevel::Warn, "solving until cancelled");
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(10);
    while (!ctx_.cancelled() && std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    sdk::Proposal p;
    Eigen::VectorXd u = Eigen::VectorXd::Constant(static_cast<Eigen::Index>(req.space.size()), 0.5);
    p.x = req.space.from_unit(u);
    p.found = true;
    return p;
  }

 private:
  sdk::Context& ctx_;
};

class FaultyProblem final : public sdk::Problem {
 public:
  explicit FaultyProblem(const sdk::CreateArgs& args)
      : space_({sdk::Parameter::real("x", 0.0, 1.0)}),
        throw_every_(args.params.get_int("throw_every")),
        nan_every_(args.params.get_int("nan_every")) {}
  static const sdk::ParamSpecList& params() {
    static const sdk::ParamSpecList specs{
        sdk::ParamSpec::integer("throw_every", "every n-th evaluation throws (0: never)", 0, 0),
        sdk::ParamSpec::integer("nan_every", "every n-th evaluation returns NaN (0: never)", 0, 0)};
    return specs;
  }
  const sdk::Space& space() const override { return space_; }
  sdk::ProblemInfo info() const override { return {}; }
  void evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) override {
    ++n_;
    if (throw_every_ > 0 && n_ % throw_every_ == 0)
      throw std::runtime_error("simulated objective crash");
    out.objective = nan_every_ > 0 && n_ % nan_every_ == 0 ? std::nan("") : x[0] * x[0];
    out.constraints.resize(0);
  }

 private:
  sdk::Space space_;
  std::int64_t throw_every_, nan_every_;
  std::int64_t n_ = 0;
};

// An inner solver that is also a model solver but solves nothing: enough for the kernel to
// treat it as model-based and check the pipeline's formulation capabilities.
class ModelOnly final : public sdk::InnerSolver, public sdk::ModelSolver {
 public:
  explicit ModelOnly(const sdk::CreateArgs&) {}
  static const sdk::ParamSpecList& params() {
    static const sdk::ParamSpecList specs;
    return specs;
  }
  sdk::Proposal maximize(const sdk::SolveRequest&) override { return {}; }
  sdk::SolveResult solve(const sdk::Model&, const sdk::SolveOptions&) override {
    sdk::SolveResult r;
    r.message = "model_only solves nothing";
    return r;
  }
};

class NeverSatisfied final : public sdk::Constraint {
 public:
  explicit NeverSatisfied(const sdk::CreateArgs&) {}
  static const sdk::ParamSpecList& params() {
    static const sdk::ParamSpecList specs;
    return specs;
  }
  double violation(const Eigen::VectorXd&) const override { return 1.0; }
};

}  // namespace
}  // namespace arbo::plugins

ARBO_PLUGIN_BEGIN("arbo-test-faulty", "0.1.0", "Plugins that fail on purpose, for tests")
ARBO_COMPONENT(InnerSolver, "throwing", arbo::plugins::ThrowingSolver, "Throws on its n-th call")
ARBO_COMPONENT(InnerSolver, "until_cancelled", arbo::plugins::UntilCancelledSolver,
               "Solves until its context is cancelled")
ARBO_COMPONENT(Problem, "faulty", arbo::plugins::FaultyProblem, "Throws or returns NaN at times")
ARBO_COMPONENT(InnerSolver, "model_only", arbo::plugins::ModelOnly,
               "A model solver that solves nothing")
ARBO_COMPONENT(Constraint, "never", arbo::plugins::NeverSatisfied,
               "A known constraint no point meets")
ARBO_PLUGIN_END()
