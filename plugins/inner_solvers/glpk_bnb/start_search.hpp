// SPDX-License-Identifier: MIT
/// @file
/// @brief A primal heuristic on the acquisition itself: coordinate search from the solve's
/// start, so that a solve stopped at its limit proposes at least a local optimum of the
/// acquisition rather than the start (an observed point).
#pragma once

#include <cstdint>
#include <functional>

#include <Eigen/Core>

#include <arbo/sdk/inner_solver.hpp>

namespace arbo::plugins::glpk {

/// Outcome of `coordinate_search`.
struct StartSearch {
  Eigen::VectorXd x;             ///< the best point found (the start when nothing improved)
  double value = 0.0;            ///< the acquisition at x
  std::int64_t evaluations = 0;  ///< acquisition values computed
  std::int64_t moves = 0;        ///< improving moves made
};

/// Best-improvement coordinate search on `request.acquisition->value`, maximized, from `x0`
/// (whose value is `v0`). A move changes one coordinate j to one of its candidate values: every
/// value of a discrete parameter with at most 64 values; otherwise the values of column j in
/// the observed and pending rows, a point just past the midpoint between each two consecutive
/// ones (so that no candidate sits on a tree's split threshold, which trees fitted on these
/// rows place at midpoints), and the bounds. Candidates that violate a known constraint, or
/// change an inactive conditional coordinate, are skipped. Sweeps over j = 0..d-1 until a
/// sweep makes no move, `max_evaluations` values have been computed, or `cancelled()`.
/// Deterministic (no clock): the same inputs give the same point. Cost: at most
/// `max_evaluations` acquisition values, computed per coordinate in one `values` batch, and
/// O(n log n) per coordinate to sort the observed values.
/// Precondition: `request.acquisition` is bound and `x0` satisfies the known constraints.
StartSearch coordinate_search(const sdk::SolveRequest& request, const Eigen::VectorXd& x0,
                              double v0, std::int64_t max_evaluations,
                              const std::function<bool()>& cancelled);

}  // namespace arbo::plugins::glpk
