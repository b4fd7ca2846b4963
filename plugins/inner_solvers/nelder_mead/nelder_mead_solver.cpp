// SPDX-License-Identifier: MIT
#include "nelder_mead_solver.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include <fmt/format.h>

namespace arbo::plugins {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

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
      FeasibleSampler::max_tries_param(200000),
      FeasibleSampler::projections_param(),
      FeasibleSampler::projection_time_limit_param(),
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
      sampler_(args.context, args.params.get_real("projection_time_limit")),
      simplex_(args.context) {
  simplex_settings_.penalty = args.params.get_string("constraint_handling") == "penalty";
  simplex_settings_.penalty_weight = args.params.get_real("penalty_weight");
  simplex_settings_.unit_coordinates = args.params.get_string("coordinates") == "unit";
  simplex_settings_.nm.adaptive = args.params.get_bool("adaptive");
  simplex_settings_.nm.xatol = args.params.get_real("xatol");
  simplex_settings_.nm.fatol = args.params.get_real("fatol");
  simplex_settings_.nm.maxiter = optional_limit(args.params.get_int("max_iterations"));
  simplex_settings_.nm.maxfev = optional_limit(args.params.get_int("max_evaluations"));
}

sdk::Proposal NelderMeadSolver::maximize(const sdk::SolveRequest& request) {
  const sdk::Space& space = request.space;
  const auto d = static_cast<Eigen::Index>(space.size());
  const bool penalty = simplex_settings_.penalty;
  const double penalty_weight = simplex_settings_.penalty_weight;
  sdk::Proposal result;

  if (request.acquisition == nullptr) {
    // Model-free use (random search, initial-design fallback): any feasible point.
    return sampler_.propose_first_feasible(request, max_tries_, projections_,
                                           "projected a uniform draw onto the known constraints");
  }

  // Tiny feasible sets: the sampler adds projections of uniform draws (rejection: up to the
  // pool size, as inner_solver/random; penalty: only when no draw is feasible, as extra rows).
  const FeasibleSampler::FillCounts counts =
      sampler_.fill_pool(request, samples_, max_tries_, projections_,
                         penalty ? FeasibleSampler::Mode::Penalty : FeasibleSampler::Mode::Reject);
  const std::int64_t tries = counts.tries;
  const std::int64_t projected = counts.projected;
  const Eigen::MatrixXd& pool = sampler_.pool();
  const Eigen::VectorXd& pool_violation = sampler_.pool_violation();
  const Eigen::Index n = pool.rows();
  if (n == 0) {
    result.note = no_feasible_point_note(tries);
    return result;
  }
  request.acquisition->values(pool, pool_values_);
  scores_.resize(n);
  Eigen::Index best = -1;  // best feasible sample
  for (Eigen::Index i = 0; i < n; ++i) {
    const double a = pool_values_[i];
    scores_[i] = std::isnan(a) ? -kInf : (penalty ? a - penalty_weight * pool_violation[i] : a);
    if (pool_violation[i] <= 0.0 && !std::isnan(a) && (best < 0 || a > pool_values_[best]))
      best = i;
  }
  Eigen::VectorXd best_x;
  double best_value = -kInf;
  int best_run = 0;  // 0: a sample
  if (best >= 0) {
    best_x = pool.row(best).transpose();
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
    base_ = pool.row(s).transpose();
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
    const CoordinateSimplex::Run run =
        simplex_.run(request, sampler_, base_, free_, simplex_settings_);
    ++runs;
    nfev += run.evaluations;
    if (!run.candidate) continue;
    const Eigen::VectorXd& x = simplex_.end();
    const double v = request.acquisition->value(x);
    if (v > best_value) {
      best_value = v;
      best_x = x;
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
