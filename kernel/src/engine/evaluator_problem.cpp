// SPDX-License-Identifier: MIT
#include <cmath>
#include <random>

#include <fmt/format.h>

#include "arbo/kernel/context.hpp"
#include "arbo/kernel/evaluator.hpp"
#include "arbo/kernel/guarded_call.hpp"
#include "arbo/kernel/random_streams.hpp"
#include "arbo/sdk/problem.hpp"

namespace arbo::kernel {

Evaluator::~Evaluator() = default;

namespace {

class ProblemEvaluator final : public Evaluator {
 public:
  ProblemEvaluator(std::shared_ptr<sdk::Problem> problem, std::string id, KernelContext& context,
                   std::uint64_t seed, double noise)
      : problem_(std::move(problem)),
        id_(std::move(id)),
        context_(context),
        seed_(seed),
        noise_(noise) {}

  EvalOutcome evaluate(std::int64_t obs_id, const Eigen::VectorXd& x, const std::string&) override {
    EvalOutcome out;
    // Noise is a function of (seed, observation id), so a re-run after a crash gives the same
    // value as the lost run would have.
    context_.reseed(seed_, static_cast<std::uint64_t>(obs_id), kSaltProblem);
    try {
      guarded_call(id_, "evaluate", [&] { problem_->evaluate(x, eval_); });
    } catch (const PluginError& e) {
      // A throwing objective is a failed evaluation, like a crashing external command.
      out.reason = e.what();
      return out;
    }
    if (!std::isfinite(eval_.objective)) {
      out.reason = component_error(
          id_, "evaluate", fmt::format("returned a non-finite objective ({})", eval_.objective));
      return out;
    }
    if (!eval_.constraints.allFinite()) {
      out.reason = component_error(id_, "evaluate", "returned a non-finite constraint value");
      return out;
    }
    out.ok = true;
    out.objective = eval_.objective;
    if (noise_ > 0) out.objective += std::normal_distribution<double>(0.0, noise_)(context_.rng());
    out.constraints = eval_.constraints;
    return out;
  }

 private:
  std::shared_ptr<sdk::Problem> problem_;
  std::string id_;
  KernelContext& context_;
  std::uint64_t seed_;
  double noise_;
  sdk::Evaluation eval_;  // reused: no per-evaluation allocation once sized
};

}  // namespace

std::unique_ptr<Evaluator> make_problem_evaluator(std::shared_ptr<sdk::Problem> problem,
                                                  std::string component_id, KernelContext& context,
                                                  std::uint64_t seed, double noise) {
  return std::make_unique<ProblemEvaluator>(std::move(problem), std::move(component_id), context,
                                            seed, noise);
}

}  // namespace arbo::kernel
