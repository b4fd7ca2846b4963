// SPDX-License-Identifier: MIT
// BoTorch's optimize_acqf_mixed_alternating (botorch/optim/optimize_mixed.py; the BARK paper's
// optimizer of its GP-RBF baseline, Boyne et al., App. D.1) for arbo's black-box acquisitions.
// Its defaults are BoTorch's (RAW_SAMPLES, NUM_RESTARTS, MAX_ITER_ALTER, MAX_ITER_DISCRETE,
// MAX_DISCRETE_VALUES, CONVERGENCE_TOL). Departures, each because arbo's acquisitions give
// values only, no gradients:
// - the continuous step is a Nelder-Mead run over the continuous coordinates (SciPy's stopping
//   rules) where BoTorch takes 8 L-BFGS-B iterations;
// - the starts come from uniform samples, not from a continuous relaxation optimized by
//   L-BFGS-B (BoTorch's default initialization when some discrete coordinate is not binary);
// - no "spray points" around the observations: BoTorch adds them only for acquisitions with
//   an X_baseline (not for the analytic UCB and EI the GP baselines use) and all-binary spaces.
#include "mixed_alternating.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include <fmt/format.h>

namespace arbo::plugins {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace

const sdk::ParamSpecList& MixedAlternating::params() {
  static const sdk::ParamSpecList specs{
      sdk::ParamSpec::integer("raw_samples",
                              "Uniform points satisfying the known constraints scored per call; "
                              "the starts are drawn from them (BoTorch's raw_samples).",
                              1024, 1, 1e8),
      sdk::ParamSpec::integer(
          "restarts",
          "Starts per call, drawn without replacement from the scored samples with weights "
          "exp(eta * standardized value), the best sample always among them (BoTorch's "
          "num_restarts and initialize_q_batch).",
          20, 1, 1e6),
      sdk::ParamSpec::real("eta",
                           "Temperature of the start draw: 0 draws uniformly, larger values "
                           "favour the best samples (BoTorch's initialize_q_batch eta).",
                           1.0, 0.0),
      sdk::ParamSpec::integer(
          "max_alternations",
          "Most rounds of (discrete step, continuous step) per start; a start stops earlier "
          "when a round improves its value by at most `tolerance` (BoTorch's "
          "maxiter_alternating).",
          64, 1, 1e9),
      sdk::ParamSpec::integer(
          "discrete_iterations",
          "Most moves of one discrete step. A move scores every neighbour of the point (each "
          "binary flipped, each integer one step up or down, each categorical set to each other "
          "choice; one coordinate at a time) and goes to the best one if it improves by more "
          "than `tolerance` (BoTorch's maxiter_discrete).",
          4, 0, 1e9),
      sdk::ParamSpec::integer(
          "max_discrete_values",
          "Integer parameters with more values than this are searched as continuous "
          "coordinates by the simplex (relaxed, then rounded) instead of by the discrete step "
          "(BoTorch's max_discrete_values).",
          20, 2, 1e9),
      sdk::ParamSpec::real("tolerance",
                           "Improvement of the acquisition (its units) below which a discrete "
                           "step or a start stops (BoTorch's tol).",
                           1e-8, 0.0),
      sdk::ParamSpec::integer(
          "continuous_evaluations",
          "Most acquisition values per continuous step, a Nelder-Mead run over the continuous "
          "coordinates with the others held; -1 follows SciPy (200 x those coordinates). "
          "BoTorch takes 8 L-BFGS-B iterations there, which needs gradients arbo's "
          "acquisitions do not give.",
          -1, -1, 1e12),
      FeasibleSampler::max_tries_param(100000),
      FeasibleSampler::projections_param(),
      FeasibleSampler::projection_time_limit_param()};
  return specs;
}

MixedAlternating::MixedAlternating(const sdk::CreateArgs& args)
    : ctx_(args.context),
      raw_samples_(args.params.get_int("raw_samples")),
      restarts_(args.params.get_int("restarts")),
      max_alternations_(args.params.get_int("max_alternations")),
      discrete_iterations_(args.params.get_int("discrete_iterations")),
      max_discrete_values_(args.params.get_int("max_discrete_values")),
      tolerance_(args.params.get_real("tolerance")),
      eta_(args.params.get_real("eta")),
      max_tries_(args.params.get_int("max_tries")),
      projections_(args.params.get_int("projections")),
      sampler_(args.context, args.params.get_real("projection_time_limit")),
      simplex_(args.context) {
  // The simplex as in inner_solver/nelder_mead's defaults, in unit coordinates so that its
  // 5 % first step does not depend on the parameters' units.
  simplex_settings_.unit_coordinates = true;
  simplex_settings_.nm.maxfev = optional_limit(args.params.get_int("continuous_evaluations"));
}

void MixedAlternating::classify(const sdk::Space& space) {
  discrete_.clear();
  continuous_.clear();
  for (std::size_t i = 0; i < space.size(); ++i) {
    const sdk::Parameter& p = space[i];
    const auto ii = static_cast<Eigen::Index>(i);
    if (!(space.upper()[ii] > space.lower()[ii])) continue;  // a single value: nothing to move
    Discrete c;
    c.index = ii;
    switch (p.type) {
      case sdk::ParamType::Real: continuous_.push_back(ii); continue;
      case sdk::ParamType::Binary: c.values = {0.0, 1.0}; break;
      case sdk::ParamType::Categorical:
        c.ordinal = false;
        for (std::size_t k = 0; k < p.choices.size(); ++k)
          c.values.push_back(static_cast<double>(k));
        break;
      case sdk::ParamType::Integer: {
        const double count = p.upper - p.lower + 1.0;
        if (count > static_cast<double>(max_discrete_values_)) {
          continuous_.push_back(ii);
          continue;
        }
        for (double v = p.lower; v <= p.upper; v += 1.0)
          c.values.push_back(p.log_scale ? std::log(v) : v);
        break;
      }
    }
    discrete_.push_back(std::move(c));
  }
}

std::int64_t MixedAlternating::discrete_step(const sdk::SolveRequest& request) {
  const sdk::Space& space = request.space;
  Eigen::Index rows = 0;
  for (const Discrete& c : discrete_)
    rows += c.ordinal ? 2 : static_cast<Eigen::Index>(c.values.size()) - 1;
  if (rows == 0) return 0;
  if (neighbours_.rows() != rows || neighbours_.cols() != x_.size())
    neighbours_.resize(rows, x_.size());
  Eigen::VectorXd& y = neighbour_;
  std::int64_t moves = 0;
  for (std::int64_t it = 0; it < discrete_iterations_ && !ctx_.cancelled(); ++it) {
    // Every neighbour one coordinate away; a neighbour that is not a candidate (inactive
    // coordinate, violated constraint, excluded point) is replaced by the point itself, which
    // can never be an improving move, so the batch keeps its size and needs no allocation.
    Eigen::Index r = 0;
    bool any = false;
    for (const Discrete& c : discrete_) {
      const auto k = static_cast<Eigen::Index>(c.values.size());
      const bool active = space.is_active(x_, static_cast<std::size_t>(c.index));
      Eigen::Index at = 0;
      for (Eigen::Index j = 1; j < k; ++j)
        if (std::abs(c.values[j] - x_[c.index]) < std::abs(c.values[at] - x_[c.index])) at = j;
      const Eigen::Index count = c.ordinal ? 2 : k - 1;
      for (Eigen::Index m = 0; m < count; ++m) {
        Eigen::Index j = c.ordinal ? (m == 0 ? at - 1 : at + 1) : (m < at ? m : m + 1);
        bool ok = active && j >= 0 && j < k;
        if (ok) {
          y = x_;
          y[c.index] = c.values[static_cast<std::size_t>(j)];
          space.snap(y);
          ok = FeasibleSampler::violation(request.constraints, y) <= 0.0 && !sampler_.excluded(y);
        }
        if (ok) {
          neighbours_.row(r) = y.transpose();
          any = true;
        } else {
          neighbours_.row(r) = x_.transpose();
        }
        ++r;
      }
    }
    if (!any) break;
    request.acquisition->values(neighbours_, neighbour_values_);
    evaluations_ += rows;
    Eigen::Index best = -1;
    for (Eigen::Index i = 0; i < rows; ++i)
      if (!std::isnan(neighbour_values_[i]) &&
          (best < 0 || neighbour_values_[i] > neighbour_values_[best]))
        best = i;
    if (best < 0) break;
    const double improvement = neighbour_values_[best] - value_;
    if (improvement > 0.0) {
      x_ = neighbours_.row(best).transpose();
      value_ = neighbour_values_[best];
      ++moves;
    }
    if (improvement <= tolerance_) break;
  }
  return moves;
}

bool MixedAlternating::continuous_step(const sdk::SolveRequest& request) {
  free_.clear();
  for (Eigen::Index i : continuous_)
    if (request.space.is_active(x_, static_cast<std::size_t>(i))) free_.push_back(i);
  if (free_.empty()) return false;
  const CoordinateSimplex::Run run = simplex_.run(request, sampler_, x_, free_, simplex_settings_);
  evaluations_ += run.evaluations;
  if (!run.candidate) return false;
  const Eigen::VectorXd& end = simplex_.end();
  const double v = request.acquisition->value(end);
  ++evaluations_;
  if (!(v > value_)) return false;
  x_ = end;
  value_ = v;
  return true;
}

void MixedAlternating::choose_starts(Eigen::Index n) {
  starts_.clear();
  Eigen::Index best = -1;
  double sum = 0.0, sum2 = 0.0;
  Eigen::Index finite = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    const double v = pool_values_[i];
    if (!std::isfinite(v)) continue;
    if (best < 0 || v > pool_values_[best]) best = i;
    sum += v;
    sum2 += v * v;
    ++finite;
  }
  if (best < 0) return;
  const auto k = static_cast<Eigen::Index>(std::min<std::int64_t>(restarts_, finite));
  // Boltzmann weights on the standardized values (uniform when they do not vary), halving the
  // exponent's scale until no weight overflows, as BoTorch's initialize_q_batch.
  const double mean = sum / static_cast<double>(finite);
  const double var = std::max(0.0, sum2 / static_cast<double>(finite) - mean * mean);
  const double sd = std::sqrt(var * static_cast<double>(finite) /
                              static_cast<double>(std::max<Eigen::Index>(finite - 1, 1)));
  weights_.resize(n);
  for (double scale = eta_;; scale *= 0.5) {
    bool overflow = false;
    for (Eigen::Index i = 0; i < n; ++i) {
      const double v = pool_values_[i];
      weights_[i] = !std::isfinite(v) ? 0.0 : sd > 0.0 ? std::exp(scale * (v - mean) / sd) : 1.0;
      overflow = overflow || std::isinf(weights_[i]);
    }
    if (!overflow) break;
  }
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (Eigen::Index s = 0; s < k; ++s) {
    const double total = weights_.sum();
    double u = unit(ctx_.rng()) * total;
    Eigen::Index pick = -1;
    for (Eigen::Index i = 0; i < n; ++i) {
      if (weights_[i] <= 0.0) continue;
      pick = i;
      if ((u -= weights_[i]) < 0.0) break;
    }
    if (pick < 0) break;
    starts_.push_back(pick);
    weights_[pick] = 0.0;
  }
  if (std::find(starts_.begin(), starts_.end(), best) == starts_.end()) starts_.back() = best;
}

sdk::Proposal MixedAlternating::maximize(const sdk::SolveRequest& request) {
  if (request.acquisition == nullptr) {
    // Model-free use (random search, initial-design fallback): any feasible point.
    return sampler_.propose_first_feasible(request, max_tries_, projections_,
                                           "projected a uniform draw onto the known constraints");
  }
  sdk::Proposal result;
  classify(request.space);
  const FeasibleSampler::FillCounts counts = sampler_.fill_pool(
      request, raw_samples_, max_tries_, projections_, FeasibleSampler::Mode::Reject);
  const Eigen::MatrixXd& pool = sampler_.pool();
  const Eigen::Index n = pool.rows();
  if (n == 0) {
    result.note = no_feasible_point_note(counts.tries);
    return result;
  }
  request.acquisition->values(pool, pool_values_);
  evaluations_ = n;
  choose_starts(n);
  if (starts_.empty()) {
    // Every sample scored NaN (the acquisition broke its contract): any feasible point will do.
    return propose_best(*request.acquisition, pool, pool_values_,
                        "acquisition returned NaN at every sample");
  }

  Eigen::VectorXd best_x;
  double best_value = -kInf;
  std::size_t best_start = 0;
  std::int64_t alternations = 0, moves = 0, improvements = 0;
  std::size_t runs = 0;
  for (std::size_t s = 0; s < starts_.size() && !ctx_.cancelled(); ++s) {
    x_ = pool.row(starts_[s]).transpose();
    value_ = pool_values_[starts_[s]];
    for (std::int64_t a = 0; a < max_alternations_ && !ctx_.cancelled(); ++a) {
      const double before = value_;
      moves += discrete_step(request);
      improvements += continuous_step(request) ? 1 : 0;
      ++alternations;
      if (value_ - before <= tolerance_) break;
    }
    ++runs;
    if (value_ > best_value) {
      best_value = value_;
      best_x = x_;
      best_start = s;
    }
  }
  result.found = true;
  result.x = std::move(best_x);
  result.value = best_value;
  result.note = fmt::format(
      "start {} of {} (drawn from {} samples, {} draws, {} projected) is best: {} alternations, "
      "{} discrete moves, {} continuous improvements, {} acquisition values",
      best_start + 1, runs, n, counts.tries, counts.projected, alternations, moves, improvements,
      evaluations_);
  return result;
}

}  // namespace arbo::plugins
