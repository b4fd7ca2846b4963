// SPDX-License-Identifier: MIT
#include "nelder_mead_solver.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include <fmt/format.h>
#include <arbo/sdk/projection.hpp>

namespace arbo::plugins {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Cancellation is polled every this many draws, and every this many simplex iterations.
constexpr std::int64_t kPollEvery = 256;
constexpr std::int64_t kPollIterations = 16;

std::optional<std::int64_t> limit(std::int64_t v) {
  return v < 0 ? std::nullopt : std::optional<std::int64_t>(v);
}

}  // namespace

const sdk::ParamSpecList& NelderMeadSolver::params() {
  static const sdk::ParamSpecList specs{
      sdk::ParamSpec::integer(
          "samples",
          "Uniform samples scored by the acquisition per call (feasible ones when "
          "constraint_handling = 'reject'); the simplex runs start from the best of them. The "
          "thesis uses 20,000.",
          20000, 1, 1e8),
      sdk::ParamSpec::integer("starts",
                              "Nelder-Mead runs per call, started from the best, second best, "
                              "... sample (the thesis's 5 restarts).",
                              5, 0, 1e6),
      sdk::ParamSpec::integer(
          "max_tries",
          "Most uniform draws per call when rejecting points that violate a known constraint; "
          "when none satisfies them (and projection cannot help) no point is proposed.",
          200000, 1, 1e12),
      sdk::ParamSpec::integer(
          "projections",
          "When sampling finds too few points satisfying the known constraints, up to this many "
          "uniform draws are projected onto them with the pipeline's model solver; 0 disables. "
          "Needs constraints that can formulate themselves and a model solver.",
          20, 0, 1e6),
      sdk::ParamSpec::choice(
          "constraint_handling",
          "How the samples and the simplex treat known constraints: 'reject' scores only points "
          "that satisfy them (a violating trial point is the worst possible vertex); 'penalty' "
          "scores every point and subtracts penalty_weight * violation. The proposal always "
          "satisfies them (else the best feasible sample is proposed).",
          "reject", {"reject", "penalty"}),
      sdk::ParamSpec::real("penalty_weight",
                           "Acquisition units subtracted per unit of known-constraint violation "
                           "when constraint_handling = 'penalty'.",
                           1e6, 0.0),
      sdk::ParamSpec::choice(
          "coordinates",
          "Units the simplex works in: 'encoded' (the space's encoded coordinates, as SciPy on "
          "the problem's box, so the 5% initial step is scale-dependent) or 'unit' (each "
          "searched coordinate mapped to [0, 1]).",
          "encoded", {"encoded", "unit"}),
      sdk::ParamSpec::boolean("adaptive",
                              "Gao-Han dimension-adaptive coefficients (SciPy adaptive=True, the "
                              "thesis's setting); false uses 1, 2, 0.5, 0.5.",
                              true),
      sdk::ParamSpec::real("xatol",
                           "A run stops when every vertex is within xatol of the best (largest "
                           "coordinate difference, simplex units) and ...",
                           1e-4, 0.0),
      sdk::ParamSpec::real("fatol",
                           "... every vertex value is within fatol of the best value "
                           "(acquisition units). SciPy's defaults.",
                           1e-4, 0.0),
      sdk::ParamSpec::integer(
          "max_iterations",
          "Most simplex iterations per run; -1 follows SciPy (200 x searched dimensions when "
          "max_evaluations is -1 too, else unlimited).",
          -1, -1, 1e12),
      sdk::ParamSpec::integer(
          "max_evaluations",
          "Most acquisition evaluations per run; -1 follows SciPy (200 x searched dimensions "
          "when max_iterations is -1 too, else unlimited).",
          -1, -1, 1e12)};
  return specs;
}

NelderMeadSolver::NelderMeadSolver(const sdk::CreateArgs& args)
    : ctx_(args.context),
      samples_(args.params.get_int("samples")),
      starts_(args.params.get_int("starts")),
      max_tries_(args.params.get_int("max_tries")),
      projections_(args.params.get_int("projections")),
      penalty_(args.params.get_string("constraint_handling") == "penalty"),
      penalty_weight_(args.params.get_real("penalty_weight")),
      unit_coordinates_(args.params.get_string("coordinates") == "unit") {
  nm_.adaptive = args.params.get_bool("adaptive");
  nm_.xatol = args.params.get_real("xatol");
  nm_.fatol = args.params.get_real("fatol");
  nm_.maxiter = limit(args.params.get_int("max_iterations"));
  nm_.maxfev = limit(args.params.get_int("max_evaluations"));
}

double NelderMeadSolver::violation(const sdk::SolveRequest& request, const Eigen::VectorXd& x) {
  double total = 0.0;
  for (const sdk::Constraint* c : request.constraints) {
    const double v = c->violation(x);
    if (std::isnan(v)) return kInf;
    total += std::max(v, 0.0);
  }
  return total;
}

double NelderMeadSolver::draw(const sdk::SolveRequest& request) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (Eigen::Index j = 0; j < u_.size(); ++j) u_[j] = unit(ctx_.rng());
  request.space.from_unit(u_, x_);
  return violation(request, x_);
}

bool NelderMeadSolver::draw_projected(const sdk::SolveRequest& request) {
  sdk::ModelSolver* solver = ctx_.model_solver();
  if (solver == nullptr || request.constraints.empty()) return false;
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (Eigen::Index j = 0; j < u_.size(); ++j) u_[j] = unit(ctx_.rng());
  request.space.from_unit(u_, x_);
  if (!sdk::project_onto_constraints(request.space, request.constraints, *solver, x_)) return false;
  return violation(request, x_) <= 0.0;
}

std::int64_t NelderMeadSolver::fill_pool(const sdk::SolveRequest& request,
                                         std::int64_t& projected) {
  const Eigen::Index d = x_.size();
  pool_.resize(samples_, d);
  pool_violation_.resize(samples_);
  Eigen::Index filled = 0;
  Eigen::Index feasible = 0;
  std::int64_t tries = 0;
  // Rejection keeps feasible draws only (up to max_tries); a penalty keeps every draw.
  while (filled < samples_ && (penalty_ || tries < max_tries_)) {
    if (tries % kPollEvery == 0 && tries > 0 && ctx_.cancelled()) break;
    ++tries;
    const double v = draw(request);
    if (!penalty_ && v > 0.0) continue;
    pool_.row(filled) = x_.transpose();
    pool_violation_[filled++] = v;
    feasible += v <= 0.0 ? 1 : 0;
  }
  // Tiny feasible sets: add projections of uniform draws (rejection: up to the pool size, as
  // inner_solver/random; penalty: only when no draw is feasible, as extra rows).
  projected = 0;
  const bool top_up = penalty_ ? feasible == 0 : filled < samples_;
  if (top_up && projections_ > 0 && sdk::can_formulate(request.constraints) &&
      ctx_.model_solver() != nullptr) {
    const Eigen::Index room = penalty_ ? filled + projections_ : samples_;
    if (pool_.rows() < room) {
      pool_.conservativeResize(room, d);
      pool_violation_.conservativeResize(room);
    }
    for (std::int64_t k = 0; k < projections_ && filled < room; ++k) {
      if (draw_projected(request)) {
        pool_.row(filled) = x_.transpose();
        pool_violation_[filled++] = 0.0;
        ++projected;
      }
    }
  }
  // A short pool is trimmed once, outside the loops; it grows back on the next call.
  if (filled < pool_.rows()) {
    pool_.conservativeResize(filled, d);
    pool_violation_.conservativeResize(filled);
  }
  return tries;
}

void NelderMeadSolver::compose(const sdk::Space& space, const Eigen::VectorXd& z) {
  x_ = base_;
  for (std::size_t k = 0; k < free_.size(); ++k) {
    const auto kk = static_cast<Eigen::Index>(k);
    x_[free_[k]] = unit_coordinates_ ? offset_[kk] + scale_[kk] * z[kk] : z[kk];
  }
  space.snap(x_);
}

double NelderMeadSolver::objective(const sdk::SolveRequest& request, const Eigen::VectorXd& z) {
  compose(request.space, z);
  const double v = violation(request, x_);
  if (!penalty_ && v > 0.0) return kInf;
  const double a = request.acquisition->value(x_);
  if (std::isnan(a)) return kInf;
  return penalty_ ? -a + penalty_weight_ * v : -a;
}

sdk::Proposal NelderMeadSolver::maximize(const sdk::SolveRequest& request) {
  const sdk::Space& space = request.space;
  const auto d = static_cast<Eigen::Index>(space.size());
  u_.resize(d);
  x_.resize(d);
  sdk::Proposal result;

  if (request.acquisition == nullptr) {
    // Model-free use (random search, initial-design fallback): any feasible point.
    std::int64_t tries = 0;
    while (tries < max_tries_) {
      if (tries % kPollEvery == 0 && tries > 0 && ctx_.cancelled()) break;
      ++tries;
      if (draw(request) <= 0.0) {
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
        result.note = "projected a uniform draw onto the known constraints";
        return result;
      }
    }
    result.note =
        fmt::format("no point satisfies the known constraints in {} uniform draws", tries);
    return result;
  }

  std::int64_t projected = 0;
  const std::int64_t tries = fill_pool(request, projected);
  const Eigen::Index n = pool_.rows();
  if (n == 0) {
    result.note =
        fmt::format("no point satisfies the known constraints in {} uniform draws", tries);
    return result;
  }
  request.acquisition->values(pool_, pool_values_);
  scores_.resize(n);
  Eigen::Index best = -1;  // best feasible sample
  for (Eigen::Index i = 0; i < n; ++i) {
    const double a = pool_values_[i];
    scores_[i] = std::isnan(a) ? -kInf : (penalty_ ? a - penalty_weight_ * pool_violation_[i] : a);
    if (pool_violation_[i] <= 0.0 && !std::isnan(a) && (best < 0 || a > pool_values_[best]))
      best = i;
  }
  Eigen::VectorXd best_x;
  double best_value = -kInf;
  int best_run = 0;  // 0: a sample
  if (best >= 0) {
    best_x = pool_.row(best).transpose();
    best_value = pool_values_[best];
  }

  // The r-th best samples start the runs; ties go to the earlier draw so runs are repeatable.
  const auto k = static_cast<Eigen::Index>(std::min<std::int64_t>(starts_, n));
  order_.resize(static_cast<std::size_t>(n));
  std::iota(order_.begin(), order_.end(), Eigen::Index{0});
  std::partial_sort(order_.begin(), order_.begin() + k, order_.end(),
                    [this](Eigen::Index a, Eigen::Index b) {
                      return scores_[a] > scores_[b] || (scores_[a] == scores_[b] && a < b);
                    });

  std::int64_t nfev = 0;
  int runs = 0;
  for (Eigen::Index r = 0; r < k; ++r) {
    if (ctx_.cancelled()) break;
    const Eigen::Index s = order_[static_cast<std::size_t>(r)];
    if (!(scores_[s] > -kInf)) break;
    base_ = pool_.row(s).transpose();
    // Searched coordinates: real and integer ones with room to move that are active at the
    // start; categorical and binary ones stay as sampled (the thesis leaves NM on categorical
    // dimensions unspecified; the samples explore them).
    free_.clear();
    for (Eigen::Index i = 0; i < d; ++i) {
      const auto type = space[static_cast<std::size_t>(i)].type;
      if ((type == sdk::ParamType::Real || type == sdk::ParamType::Integer) &&
          space.upper()[i] > space.lower()[i] &&
          space.is_active(base_, static_cast<std::size_t>(i)))
        free_.push_back(i);
    }
    if (free_.empty()) continue;
    const auto m = static_cast<Eigen::Index>(free_.size());
    z0_.resize(m);
    zlo_.resize(m);
    zhi_.resize(m);
    scale_.resize(m);
    offset_.resize(m);
    for (Eigen::Index j = 0; j < m; ++j) {
      const Eigen::Index i = free_[static_cast<std::size_t>(j)];
      offset_[j] = space.lower()[i];
      scale_[j] = space.upper()[i] - space.lower()[i];
      if (unit_coordinates_) {
        z0_[j] = (base_[i] - offset_[j]) / scale_[j];
        zlo_[j] = 0.0;
        zhi_[j] = 1.0;
      } else {
        z0_[j] = base_[i];
        zlo_[j] = space.lower()[i];
        zhi_[j] = space.upper()[i];
      }
    }
    std::int64_t iterations = 0;
    const nelder_mead::Result run = nelder_mead::minimize(
        [&](const Eigen::VectorXd& z) { return objective(request, z); }, z0_, zlo_, zhi_, nm_, ws_,
        [&](const Eigen::VectorXd&, double, std::int64_t) {
          return ++iterations % kPollIterations != 0 || !ctx_.cancelled();
        });
    ++runs;
    nfev += run.nfev;
    compose(space, run.x);
    if (violation(request, x_) > 0.0) continue;
    const double v = request.acquisition->value(x_);
    if (v > best_value) {
      best_value = v;
      best_x = x_;
      best_run = static_cast<int>(r) + 1;
    }
  }

  if (best_x.size() == 0) {
    result.note =
        fmt::format("no sample or simplex run satisfies the known constraints ({} draws, {} runs)",
                    tries, runs);
    return result;
  }
  result.found = true;
  result.x = std::move(best_x);
  result.value = best_value;
  result.note = fmt::format(
      "{} of {} samples ({} draws, {} projected) and {} Nelder-Mead runs ({} evaluations)",
      best_run == 0 ? std::string("best") : fmt::format("run {} improved on the best", best_run), n,
      tries, projected, runs, nfev);
  return result;
}

}  // namespace arbo::plugins
