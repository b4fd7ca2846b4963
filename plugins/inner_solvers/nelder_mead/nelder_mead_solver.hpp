// SPDX-License-Identifier: MIT
/// @file
/// @brief inner_solver/nelder_mead: the Mondrian-forest thesis's "NM-restart" acquisition
/// optimizer. Scores uniform samples, runs SciPy-identical adaptive Nelder-Mead from the best
/// few, and proposes the best of the runs and the best sample.
#pragma once

#include <cstdint>
#include <vector>

#include <arbo/sdk/capabilities/inner_solver.hpp>
#include <arbo/sdk/inner_solver.hpp>

#include "coordinate_simplex.hpp"
#include "feasible_sampler.hpp"

namespace arbo::plugins {

/// Black-box: only calls `Acquisition::values` (the sample pool) and `Acquisition::value`
/// (the simplex). Mixed spaces: Real and Integer coordinates are searched (integers relaxed,
/// every trial point snapped, so they are rounded before scoring); Categorical and Binary
/// coordinates, and those with equal bounds, keep the start point's values (the samples
/// explore them). Known constraints are handled by rejection (an infeasible trial point scores
/// +infinity in the minimized objective) or by a penalty; either way only a point satisfying
/// every known constraint is proposed.
class NelderMeadSolver final : public sdk::InnerSolver,
                               public sdk::IgnoresDataWithoutModel,
                               public sdk::ExcludesEvaluated {
 public:
  explicit NelderMeadSolver(const sdk::CreateArgs& args);
  static const sdk::ParamSpecList& params();

  sdk::Proposal maximize(const sdk::SolveRequest& request) override;

 private:
  sdk::Context& ctx_;
  std::int64_t samples_;
  std::int64_t starts_;
  std::int64_t max_tries_;
  std::int64_t projections_;
  CoordinateSimplex::Settings simplex_settings_;

  // Reused between calls so that neither sampling nor the simplex allocates per point; the
  // sampler owns the sample pool and its violations.
  FeasibleSampler sampler_;
  CoordinateSimplex simplex_;
  Eigen::VectorXd base_;
  std::vector<Eigen::Index> free_;
  Eigen::VectorXd pool_values_, scores_;
  std::vector<Eigen::Index> order_;
};

}  // namespace arbo::plugins
