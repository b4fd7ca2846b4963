// SPDX-License-Identifier: MIT
/// @file
/// @brief Template inner solver: best of N random points, then coordinate-wise local search.
///
/// From the SDK's inner_solver template (`tools/new-plugin inner_solver NAME` copies and renames
/// it). The contract is in <arbo/sdk/inner_solver.hpp>; the conformance kit checks it
/// (inner_solver_xyz_test.cpp).
#pragma once

#include <arbo/sdk/inner_solver.hpp>

namespace xyz {

/// A black-box inner solver: it only calls `Acquisition::value`.
///
/// 1. Draws uniform points (`Space::from_unit`) until `starts` satisfy every known constraint
///    (or `max_tries` draws are spent) and keeps the best. Without an acquisition the first
///    feasible point is the answer.
/// 2. Compass search from there: tries +-step along each coordinate, snapped onto the space,
///    moves to the first feasible improvement; halves the steps after a sweep without one,
///    down to one unit for discrete coordinates.
///
/// All randomness comes from `Context::rng()`; `Context::cancelled()` is polled between
/// draws and sweeps, and the best point so far is returned when it fires.
class InnerSolverXyz final : public arbo::sdk::InnerSolver {
 public:
  explicit InnerSolverXyz(const arbo::sdk::CreateArgs& args);
  static const arbo::sdk::ParamSpecList& params();

  arbo::sdk::Proposal maximize(const arbo::sdk::SolveRequest& request) override;

 private:
  static bool feasible(const arbo::sdk::SolveRequest& request, const Eigen::VectorXd& x);

  arbo::sdk::Context& ctx_;  // valid for the component's lifetime
  std::int64_t starts_;
  std::int64_t max_tries_;
  std::int64_t max_sweeps_;
  double initial_step_;
};

}  // namespace xyz
