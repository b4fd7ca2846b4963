// SPDX-License-Identifier: MIT
/// @file
/// @brief One Nelder-Mead run over some coordinates of a point, the others held: the runs of
/// inner_solver/nelder_mead and the continuous step of inner_solver/mixed_alternating.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include <Eigen/Core>

#include <arbo/sdk/context.hpp>
#include <arbo/sdk/inner_solver.hpp>

#include "feasible_sampler.hpp"
#include "nelder_mead.hpp"

namespace arbo::plugins {

/// A count parameter where -1 means "no limit of ours" (SciPy's rule applies), as the simplex's
/// `maxiter`/`maxfev` options take it.
inline std::optional<std::int64_t> optional_limit(std::int64_t v) {
  return v < 0 ? std::nullopt : std::optional<std::int64_t>(v);
}

/// Maximizes the acquisition over the coordinates `free` of a start point with the SciPy
/// simplex (nelder_mead.hpp), every trial point snapped onto the space before it is scored
/// (so integer coordinates are relaxed and rounded). Known constraints: a violating trial
/// point is the worst possible vertex (+infinity in the minimized objective), or, with
/// `penalty`, scores `acquisition - penalty_weight * violation`; a point the request excludes
/// (`FeasibleSampler::excluded`) is the worst vertex too. Not thread-safe; buffers are reused,
/// so runs after the first of a given size do not allocate.
class CoordinateSimplex {
 public:
  struct Settings {
    nelder_mead::Options nm;        ///< the simplex's options (SciPy's names and defaults)
    bool unit_coordinates = false;  ///< run on each free coordinate mapped to [0, 1]
    bool penalty = false;           ///< penalize violations instead of rejecting them
    double penalty_weight = 1e6;    ///< acquisition units per unit of violation
  };

  /// @param ctx  polled for cancellation every 16 simplex iterations; must outlive this.
  explicit CoordinateSimplex(sdk::Context& ctx) : ctx_(ctx) {}

  /// What one `run` did.
  struct Run {
    std::int64_t evaluations = 0;  ///< acquisition values computed
    /// `end()` satisfies every known constraint and is not an excluded point: a proposal
    /// candidate (under `penalty` the run may end on a violating point).
    bool candidate = false;
  };

  /// One run from `start` (encoded, snapped) over the coordinates `free` (non-empty, each with
  /// upper > lower); the run's best point, snapped, is `end()`. Cost: at most the simplex's
  /// evaluation budget of acquisition values, plus one constraint check of the end point.
  Run run(const sdk::SolveRequest& request, const FeasibleSampler& sampler,
          const Eigen::VectorXd& start, const std::vector<Eigen::Index>& free,
          const Settings& settings);

  /// The end point of the last `run`.
  const Eigen::VectorXd& end() const { return x_; }

 private:
  // Writes the point built from z (free coordinates, in the simplex's units) into x_, snapped.
  void compose(const sdk::Space& space, const Eigen::VectorXd& z, bool unit);

  sdk::Context& ctx_;
  const std::vector<Eigen::Index>* free_ = nullptr;
  Eigen::VectorXd x_, base_, z0_, zlo_, zhi_, scale_, offset_;
  nelder_mead::Workspace ws_;
};

}  // namespace arbo::plugins
