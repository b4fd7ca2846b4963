// SPDX-License-Identifier: MIT
/// @file
/// @brief inner_solver/random: uniform sampling subject to the known constraints. Also
/// inner_solver/sampling (plugins/inner_solvers/nelder_mead) with other defaults, which is why
/// it lives in plugins/inner_solvers/common.
#pragma once

#include <arbo/sdk/capabilities/inner_solver.hpp>
#include <arbo/sdk/inner_solver.hpp>

#include "feasible_sampler.hpp"

namespace arbo::plugins {

/// Draws uniform points of the space (`Space::from_unit`) and keeps those that satisfy every
/// known constraint. Without an acquisition it returns the first feasible point (random search
/// and initial-design fallback); with one, the best of `samples` feasible candidates. Both stop
/// after `max_tries` draws. Black-box: only calls `Acquisition::values`.
class RandomSearch : public sdk::InnerSolver,
                     public sdk::IgnoresDataWithoutModel,
                     public sdk::ExcludesEvaluated {
 public:
  explicit RandomSearch(const sdk::CreateArgs& args);
  static const sdk::ParamSpecList& params();

  sdk::Proposal maximize(const sdk::SolveRequest& request) override;

 protected:
  // The parameter list with other defaults, for variants that differ only in them
  // (inner_solver/sampling in plugins/inner_solvers/nelder_mead).
  static sdk::ParamSpecList make_params(std::int64_t samples, std::int64_t max_tries);

 private:
  std::int64_t samples_;
  std::int64_t max_tries_;
  std::int64_t projections_;
  // Owns the reused draw and pool buffers, so the sampling loop never allocates.
  FeasibleSampler sampler_;
  Eigen::VectorXd values_;
};

}  // namespace arbo::plugins
