// SPDX-License-Identifier: MIT
#include "feasible_sampler.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <utility>

#include <fmt/format.h>
#include <arbo/sdk/projection.hpp>

namespace arbo::plugins {

FeasibleSampler::FeasibleSampler(sdk::Context& ctx, double projection_seconds)
    : ctx_(ctx), projection_options_(sdk::default_projection_options()) {
  projection_options_.time_limit_seconds = projection_seconds;
}

sdk::ParamSpec FeasibleSampler::projection_time_limit_param() {
  return sdk::ParamSpec::real(
      "projection_time_limit",
      "Seconds of model solving per projection; the best point found by then is taken. A "
      "projection only needs a feasible point near its draw, but on nonconvex constraints "
      "(Alkylation) the solver finds one in a second or two and then spends the whole limit "
      "on a proof that rarely closes, so lowering this bounds a call at about projections x "
      "this. Fewer projections succeed with a very low limit.",
      sdk::kDefaultProjectionSeconds, 1e-3);
}

sdk::ParamSpec FeasibleSampler::projections_param() {
  return sdk::ParamSpec::integer(
      "projections",
      "When rejection sampling finds fewer points satisfying the known constraints than wanted "
      "(tiny feasible sets), up to this many uniform draws are projected onto them with the "
      "pipeline's model solver (nearest feasible point, one model solve each); 0 disables. "
      "Needs constraints that can formulate themselves and a model solver.",
      20, 0, 1e6);
}

sdk::ParamSpec FeasibleSampler::max_tries_param(std::int64_t value) {
  return sdk::ParamSpec::integer(
      "max_tries",
      "Most uniform draws per call, feasible or not. When none satisfies the known constraints "
      "(and projection cannot help) the solver reports that no point was found.",
      value, 1, 1e12);
}

double FeasibleSampler::violation(const std::vector<const sdk::Constraint*>& constraints,
                                  const Eigen::VectorXd& x) {
  double total = 0.0;
  for (const sdk::Constraint* c : constraints) {
    const double v = c->violation(x);
    if (std::isnan(v)) return std::numeric_limits<double>::infinity();
    total += std::max(v, 0.0);
  }
  return total;
}

void FeasibleSampler::draw_uniform(const sdk::Space& space) {
  // resize() is a no-op at the same size, so this allocates only when the space changes.
  u_.resize(static_cast<Eigen::Index>(space.size()));
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (Eigen::Index j = 0; j < u_.size(); ++j) u_[j] = unit(ctx_.rng());
  space.from_unit(u_, x_);
  if (!balance_.pairs.empty()) sdk::balance_from_unit(balance_.pairs, u_, x_);
}

double FeasibleSampler::draw(const sdk::SolveRequest& request) {
  draw_uniform(request.space);
  return violation(request.constraints, x_);
}

void FeasibleSampler::prepare(const sdk::SolveRequest& request) {
  excluding_ = request.exclude_evaluated;
  evaluated_ = excluding_ ? sdk::EvaluatedPoints(request.data) : sdk::EvaluatedPoints();
  balance_ = sdk::detect_balance_pairs(request.space, request.constraints);
}

bool FeasibleSampler::draw_feasible(const sdk::SolveRequest& request) {
  draw_uniform(request.space);
  return sdk::satisfies(request.constraints, x_) && !excluded(x_);
}

bool FeasibleSampler::draw_projected(const sdk::SolveRequest& request) {
  sdk::ModelSolver* solver = ctx_.model_solver();
  if (solver == nullptr || request.constraints.empty()) return false;
  draw_uniform(request.space);
  if (!sdk::project_onto_constraints(request.space, request.constraints, *solver, x_,
                                     projection_options_)) {
    return false;
  }
  // The projection is feasible up to the solver's tolerance; accept it on the same terms.
  return sdk::satisfies(request.constraints, x_, kProjectionTolerance) && !excluded(x_);
}

bool FeasibleSampler::can_project(const sdk::SolveRequest& request, std::int64_t projections) {
  return projections > 0 && ctx_.model_solver() != nullptr &&
         sdk::can_formulate(request.constraints);
}

FeasibleSampler::FillCounts FeasibleSampler::fill_pool(const sdk::SolveRequest& request,
                                                       Eigen::Index samples, std::int64_t max_tries,
                                                       std::int64_t projections, Mode mode) {
  const auto d = static_cast<Eigen::Index>(request.space.size());
  const bool penalty = mode == Mode::Penalty;
  prepare(request);
  pool_.resize(samples, d);
  pool_violation_.resize(samples);
  FillCounts counts;
  Eigen::Index filled = 0;
  // Rejection keeps feasible draws only (up to max_tries); a penalty keeps every draw, so
  // max_tries cannot bound it and the pool size does.
  // Excluded draws do not fill the pool, so with exclusion max_tries bounds a penalty pool too
  // (every point may have been evaluated).
  while (filled < samples && ((penalty && !excluding_) || counts.tries < max_tries)) {
    if (counts.tries % kPollEvery == 0 && counts.tries > 0 && ctx_.cancelled()) break;
    ++counts.tries;
    double v = 0.0;
    if (penalty) {
      v = draw(request);
      if (excluded(x_)) continue;
    } else if (!draw_feasible(request)) {
      continue;
    }
    pool_.row(filled) = x_.transpose();
    pool_violation_[filled++] = v;
    counts.feasible += v <= 0.0 ? 1 : 0;
  }
  // Tiny feasible sets: add projections of uniform draws. Rejection tops the pool up to its
  // size; a penalty pool is already full, so projections come as extra rows, and only when
  // no draw is feasible (otherwise the best feasible sample is there already).
  const bool top_up = penalty ? counts.feasible == 0 : filled < samples;
  if (top_up && can_project(request, projections)) {
    const Eigen::Index room = penalty ? filled + projections : samples;
    if (pool_.rows() < room) {
      pool_.conservativeResize(room, d);
      pool_violation_.conservativeResize(room);
    }
    for (std::int64_t k = 0; k < projections && filled < room; ++k) {
      if (draw_projected(request)) {
        pool_.row(filled) = x_.transpose();
        pool_violation_[filled++] = 0.0;  // accepted within kProjectionTolerance: feasible
        ++counts.projected;
      }
    }
  }
  // A short pool (tight constraints, cancellation) is trimmed once, outside the loops; it
  // grows back on the next call.
  if (filled < pool_.rows()) {
    pool_.conservativeResize(filled, d);
    pool_violation_.conservativeResize(filled);
  }
  return counts;
}

FeasibleSampler::FirstFeasible FeasibleSampler::first_feasible(const sdk::SolveRequest& request,
                                                               std::int64_t max_tries,
                                                               std::int64_t projections) {
  FirstFeasible result;
  prepare(request);
  while (result.tries < max_tries) {
    if (result.tries % kPollEvery == 0 && result.tries > 0 && ctx_.cancelled()) break;
    ++result.tries;
    if (draw_feasible(request)) {
      result.found = true;
      return result;
    }
  }
  if (!can_project(request, projections)) return result;
  for (std::int64_t k = 0; k < projections; ++k) {
    if (draw_projected(request)) {
      result.found = result.projected = true;
      return result;
    }
  }
  return result;
}

sdk::Proposal FeasibleSampler::propose_first_feasible(const sdk::SolveRequest& request,
                                                      std::int64_t max_tries,
                                                      std::int64_t projections,
                                                      std::string_view projected_note) {
  sdk::Proposal result;
  const FirstFeasible first = first_feasible(request, max_tries, projections);
  if (!first.found) {
    result.note = no_feasible_point_note(first.tries);
    return result;
  }
  result.found = true;
  result.x = x_;
  // Each solver words the projected case its own way (its log notes are part of its output).
  result.note = first.projected ? fmt::format(fmt::runtime(projected_note), first.tries)
                                : fmt::format("first feasible point after {} draws", first.tries);
  return result;
}

std::string no_feasible_point_note(std::int64_t tries) {
  return fmt::format("no point satisfies the known constraints in {} uniform draws", tries);
}

sdk::Proposal propose_best(const sdk::Acquisition& acquisition, const Eigen::MatrixXd& candidates,
                           Eigen::VectorXd& values, std::string note) {
  acquisition.values(candidates, values);
  Eigen::Index best = -1;
  for (Eigen::Index i = 0; i < candidates.rows(); ++i) {
    if (std::isnan(values[i])) continue;
    if (best < 0 || values[i] > values[best]) best = i;  // first of equal values wins
  }
  sdk::Proposal result;
  result.found = true;
  if (best < 0) {
    // The acquisition broke its finiteness contract everywhere; any feasible point will do.
    best = 0;
    result.note = "acquisition returned NaN at every candidate; proposing the first one";
  } else {
    result.note = std::move(note);
  }
  result.x = candidates.row(best).transpose();
  result.value = values[best];
  return result;
}

}  // namespace arbo::plugins
