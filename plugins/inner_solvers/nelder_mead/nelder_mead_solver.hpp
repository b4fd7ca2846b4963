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

#include "feasible_sampler.hpp"
#include "nelder_mead.hpp"

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
  // The simplex's objective: minus the acquisition at the snapped point built from free
  // coordinates z, with the constraint handling applied.
  double objective(const sdk::SolveRequest& request, const Eigen::VectorXd& z);
  // Writes the point built from z (free coordinates, in the simplex's units) into x_, snapped.
  void compose(const sdk::Space& space, const Eigen::VectorXd& z);

  sdk::Context& ctx_;
  std::int64_t samples_;
  std::int64_t starts_;
  std::int64_t max_tries_;
  std::int64_t projections_;
  bool penalty_;
  double penalty_weight_;
  bool unit_coordinates_;
  nelder_mead::Options nm_;

  // Reused between calls so that neither sampling nor the simplex allocates per point; the
  // sampler owns the sample pool and its violations.
  FeasibleSampler sampler_;
  Eigen::VectorXd x_, base_, z0_, zlo_, zhi_, scale_, offset_;
  std::vector<Eigen::Index> free_;
  Eigen::VectorXd pool_values_, scores_;
  std::vector<Eigen::Index> order_;
  nelder_mead::Workspace ws_;
};

}  // namespace arbo::plugins
