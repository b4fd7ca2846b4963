// SPDX-License-Identifier: MIT
/// @file
/// @brief inner_solver/random: uniform sampling subject to the known constraints.
#pragma once

#include <arbo/sdk/inner_solver.hpp>

namespace arbo::plugins {

/// Draws uniform points of the space (`Space::from_unit`) and keeps those that satisfy every
/// known constraint. Without an acquisition it returns the first feasible point (random search
/// and initial-design fallback); with one, the best of `samples` feasible candidates. Both stop
/// after `max_tries` draws. Black-box: only calls `Acquisition::values`.
class RandomSearch : public sdk::InnerSolver {
 public:
  explicit RandomSearch(const sdk::CreateArgs& args);
  static const sdk::ParamSpecList& params();

  sdk::Proposal maximize(const sdk::SolveRequest& request) override;

 protected:
  // The parameter list with other defaults, for variants that differ only in them
  // (inner_solver/sampling in plugins/inner_solvers/nelder_mead).
  static sdk::ParamSpecList make_params(std::int64_t samples, std::int64_t max_tries);

 private:
  // Draws one uniform point into x_; true when it satisfies every known constraint.
  bool draw_feasible(const sdk::SolveRequest& request);
  // Draws one uniform point and projects it onto the known constraints with the context's
  // model solver; true when the projection satisfies them.
  bool draw_projected(const sdk::SolveRequest& request);

  sdk::Context& ctx_;
  std::int64_t samples_;
  std::int64_t max_tries_;
  std::int64_t projections_;
  // Reused between calls so the sampling loop never allocates.
  Eigen::VectorXd u_, x_;
  Eigen::MatrixXd candidates_;
  Eigen::VectorXd values_;
};

}  // namespace arbo::plugins
