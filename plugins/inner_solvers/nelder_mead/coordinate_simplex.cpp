// SPDX-License-Identifier: MIT
#include "coordinate_simplex.hpp"

#include <cmath>
#include <limits>

namespace arbo::plugins {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Cancellation is polled every this many simplex iterations (the sampler polls every
// FeasibleSampler::kPollEvery draws).
constexpr std::int64_t kPollIterations = 16;

}  // namespace

void CoordinateSimplex::compose(const sdk::Space& space, const Eigen::VectorXd& z, bool unit) {
  x_ = base_;
  const auto& free = *free_;
  for (std::size_t k = 0; k < free.size(); ++k) {
    const auto kk = static_cast<Eigen::Index>(k);
    x_[free[k]] = unit ? offset_[kk] + scale_[kk] * z[kk] : z[kk];
  }
  space.snap(x_);
}

CoordinateSimplex::Run CoordinateSimplex::run(const sdk::SolveRequest& request,
                                              const FeasibleSampler& sampler,
                                              const Eigen::VectorXd& start,
                                              const std::vector<Eigen::Index>& free,
                                              const Settings& settings) {
  const sdk::Space& space = request.space;
  free_ = &free;
  base_ = start;
  const auto m = static_cast<Eigen::Index>(free.size());
  z0_.resize(m);
  zlo_.resize(m);
  zhi_.resize(m);
  scale_.resize(m);
  offset_.resize(m);
  for (Eigen::Index j = 0; j < m; ++j) {
    const Eigen::Index i = free[static_cast<std::size_t>(j)];
    offset_[j] = space.lower()[i];
    scale_[j] = space.upper()[i] - space.lower()[i];
    if (settings.unit_coordinates) {
      z0_[j] = (base_[i] - offset_[j]) / scale_[j];
      zlo_[j] = 0.0;
      zhi_[j] = 1.0;
    } else {
      z0_[j] = base_[i];
      zlo_[j] = space.lower()[i];
      zhi_[j] = space.upper()[i];
    }
  }
  // The simplex minimizes: minus the acquisition at the snapped point, with the constraint
  // handling applied.
  auto objective = [&](const Eigen::VectorXd& z) {
    compose(space, z, settings.unit_coordinates);
    if (sampler.excluded(x_)) return kInf;  // [proposal] exclude_evaluated: not a candidate
    const double v = FeasibleSampler::violation(request.constraints, x_);
    if (!settings.penalty && v > 0.0) return kInf;
    const double a = request.acquisition->value(x_);
    if (std::isnan(a)) return kInf;
    return settings.penalty ? -a + settings.penalty_weight * v : -a;
  };
  std::int64_t iterations = 0;
  const nelder_mead::Result result =
      nelder_mead::minimize(objective, z0_, zlo_, zhi_, settings.nm, ws_,
                            [&](const Eigen::VectorXd&, double, std::int64_t) {
                              return ++iterations % kPollIterations != 0 || !ctx_.cancelled();
                            });
  compose(space, result.x, settings.unit_coordinates);
  return {result.nfev,
          FeasibleSampler::violation(request.constraints, x_) <= 0.0 && !sampler.excluded(x_)};
}

}  // namespace arbo::plugins
