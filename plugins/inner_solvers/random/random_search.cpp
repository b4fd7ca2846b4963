// SPDX-License-Identifier: MIT
#include "random_search.hpp"

#include <cmath>
#include <random>

#include <fmt/format.h>
#include <arbo/sdk/projection.hpp>

namespace arbo::plugins {

namespace {
// Cancellation is polled every this many draws: often enough to stop within milliseconds,
// rarely enough to cost nothing next to a constraint check.
constexpr std::int64_t kPollEvery = 256;
}  // namespace

sdk::ParamSpecList RandomSearch::make_params(std::int64_t samples, std::int64_t max_tries) {
  return {sdk::ParamSpec::integer(
              "samples",
              "Feasible candidates scored by the acquisition per call; the best one is proposed. "
              "Unused without an acquisition (the first feasible draw is proposed).",
              samples, 1, 1e8),
          sdk::ParamSpec::integer(
              "max_tries",
              "Most uniform draws per call, feasible or not. When none satisfies the known "
              "constraints the solver reports that no point was found.",
              max_tries, 1, 1e12),
          sdk::ParamSpec::integer(
              "projections",
              "When rejection sampling finds fewer feasible candidates than wanted (tiny feasible "
              "sets), up to this many uniform draws are projected onto the known constraints with "
              "the pipeline's model solver (nearest feasible point, one model solve each); 0 "
              "disables. Needs constraints that can formulate themselves and a model solver.",
              20, 0, 1e6)};
}

const sdk::ParamSpecList& RandomSearch::params() {
  static const sdk::ParamSpecList specs = make_params(1000, 100000);
  return specs;
}

RandomSearch::RandomSearch(const sdk::CreateArgs& args)
    : ctx_(args.context),
      samples_(args.params.get_int("samples")),
      max_tries_(args.params.get_int("max_tries")),
      projections_(args.params.get_int("projections")) {}

bool RandomSearch::draw_projected(const sdk::SolveRequest& request) {
  sdk::ModelSolver* solver = ctx_.model_solver();
  if (solver == nullptr || request.constraints.empty()) return false;
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (Eigen::Index j = 0; j < u_.size(); ++j) u_[j] = unit(ctx_.rng());
  request.space.from_unit(u_, x_);
  if (!sdk::project_onto_constraints(request.space, request.constraints, *solver, x_)) return false;
  // The projection is feasible up to the solver's tolerance; accept it on the same terms.
  for (const sdk::Constraint* c : request.constraints) {
    if (!(c->violation(x_) <= 1e-6)) return false;
  }
  return true;
}

bool RandomSearch::draw_feasible(const sdk::SolveRequest& request) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (Eigen::Index j = 0; j < u_.size(); ++j) u_[j] = unit(ctx_.rng());
  request.space.from_unit(u_, x_);
  for (const sdk::Constraint* c : request.constraints) {
    if (!(c->violation(x_) <= 0.0)) return false;  // NaN counts as violated
  }
  return true;
}

sdk::Proposal RandomSearch::maximize(const sdk::SolveRequest& request) {
  const auto d = static_cast<Eigen::Index>(request.space.size());
  u_.resize(d);
  x_.resize(d);
  sdk::Proposal result;
  std::int64_t tries = 0;

  if (request.acquisition == nullptr) {
    while (tries < max_tries_) {
      if (tries % kPollEvery == 0 && tries > 0 && ctx_.cancelled()) break;
      ++tries;
      if (draw_feasible(request)) {
        result.found = true;
        result.x = x_;
        result.note = fmt::format("first feasible point after {} draws", tries);
        return result;
      }
    }
    for (std::int64_t k = 0; k < projections_ && sdk::can_formulate(request.constraints); ++k) {
      if (draw_projected(request)) {
        result.found = true;
        result.x = x_;
        result.note = fmt::format(
            "no feasible point in {} draws; projected a uniform draw onto the known constraints",
            tries);
        return result;
      }
    }
    result.note =
        fmt::format("no point satisfies the known constraints in {} uniform draws", tries);
    return result;
  }

  candidates_.resize(samples_, d);
  Eigen::Index filled = 0;
  while (filled < samples_ && tries < max_tries_) {
    if (tries % kPollEvery == 0 && tries > 0 && ctx_.cancelled()) break;
    ++tries;
    if (draw_feasible(request)) candidates_.row(filled++) = x_.transpose();
  }
  // Tiny feasible sets: top the pool up with projections of uniform draws.
  std::int64_t projected = 0;
  if (filled < samples_ && sdk::can_formulate(request.constraints)) {
    for (std::int64_t k = 0; k < projections_ && filled < samples_; ++k) {
      if (draw_projected(request)) {
        candidates_.row(filled++) = x_.transpose();
        ++projected;
      }
    }
  }
  if (filled == 0) {
    result.note =
        fmt::format("no point satisfies the known constraints in {} uniform draws", tries);
    return result;
  }
  // A short pool (tight constraints, cancellation) is trimmed once, outside the loop.
  if (filled < candidates_.rows()) candidates_.conservativeResize(filled, d);
  request.acquisition->values(candidates_, values_);

  Eigen::Index best = -1;
  for (Eigen::Index i = 0; i < filled; ++i) {
    if (std::isnan(values_[i])) continue;
    if (best < 0 || values_[i] > values_[best]) best = i;
  }
  result.found = true;
  if (best < 0) {
    // The acquisition broke its finiteness contract everywhere; any feasible point will do.
    best = 0;
    result.note = "acquisition returned NaN at every candidate; proposing the first one";
  } else {
    result.note = fmt::format("best of {} feasible candidates ({} draws, {} projected)", filled,
                              tries, projected);
  }
  result.x = candidates_.row(best).transpose();
  result.value = values_[best];
  return result;
}

}  // namespace arbo::plugins
