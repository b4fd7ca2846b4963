// SPDX-License-Identifier: MIT
/// @file
/// @brief The view of a study's observations that the kernel hands to plugins.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "arbo/sdk/export.hpp"

namespace arbo::sdk {

/// Which column of the dataset a surrogate models: the kernel passes it to `Surrogate::fit`,
/// and `Dataset::target(metric)` returns that column. A default-constructed Metric is the
/// objective.
struct Metric {
  /// `index` value of the objective.
  static constexpr int kObjective = -1;
  int index = kObjective;  ///< kObjective, or a column of `Dataset::C`
  std::string name;        ///< "objective" or the constraint's name, for messages
  /// True for the objective y, false for a black-box constraint column.
  bool is_objective() const noexcept { return index == kObjective; }
};

/// Observations of a study, in the units plugins work in.
///
/// Conventions, fixed by the kernel so that no plugin has to care:
/// - rows of `X` are encoded, snapped points (see space.hpp);
/// - `y` is always to be *minimized*: for a study declared `maximize`, y = -objective;
/// - `C(i, j) <= 0` iff black-box constraint j holds at row i (the kernel applies the user's
///   threshold and sense: c = value - threshold for "<=", threshold - value for ">=");
/// - failed evaluations (crash, timeout, NaN) are not in X/y/C but in `X_failed`;
/// - points being evaluated are in `X_pending` (p x d; `[study] workers` > 1, else empty),
///   for exclusion cuts and pending-aware acquisitions; under a `[proposal] pending` constant
///   liar the surrogates' data also holds them as rows of X/y/C with made-up values.
/// Rows are in the order the observations completed; the same point may appear more than
/// once (nothing stops an inner solver from proposing an observed point again).
///
/// The kernel keeps one Dataset per study and appends to it, so references stay valid only
/// during the call that received them: copy what must outlive the call. Not thread-safe for
/// writes; const members may run concurrently.
struct ARBO_SDK_API Dataset {
  Eigen::MatrixXd X;                          ///< n x d completed evaluations
  Eigen::VectorXd y;                          ///< n objective values, minimization sense
  Eigen::MatrixXd C;                          ///< n x m black-box constraint values
  std::vector<std::string> constraint_names;  ///< m names
  std::vector<std::uint8_t> feasible;         ///< n flags: 1 iff every C(i, :) <= 0
  Eigen::MatrixXd X_failed;                   ///< k x d failed evaluations
  Eigen::MatrixXd X_pending;                  ///< p x d pending evaluations
  bool maximize = false;                      ///< user's direction (y already negated if so)

  /// Number of completed evaluations n.
  std::size_t size() const noexcept { return static_cast<std::size_t>(y.size()); }
  /// Dimension d of the encoded points.
  std::size_t dim() const noexcept { return static_cast<std::size_t>(X.cols()); }
  /// Number of black-box constraints m.
  std::size_t num_constraints() const noexcept { return constraint_names.size(); }
  /// Values of a metric: `y` for the objective, a column of `C` otherwise (a copy, O(n)).
  /// @throws InvalidArgument for a constraint index outside [0, m).
  Eigen::VectorXd target(const Metric& metric) const;
  /// Row of the best feasible observation (smallest y among feasible rows), if any. O(n).
  std::optional<std::size_t> best_feasible() const;
  /// y at `best_feasible()`, if any: the incumbent of constrained acquisitions.
  std::optional<double> incumbent() const;
  /// Appends one completed observation (used by the kernel and tests): `x` (length d),
  /// `y_min` (already in minimization sense) and `c` (length m, normalized: <= 0 iff
  /// satisfied); sets its `feasible` flag. O(n d) per call because Eigen matrices grow by
  /// copy; n is at most a few thousand.
  /// @throws InvalidArgument when `x` or `c` has the wrong length.
  void append(const Eigen::VectorXd& x, double y_min, const Eigen::VectorXd& c);
  /// Appends one failed evaluation to `X_failed`. O(k d).
  /// @throws InvalidArgument when `x` has not length d.
  void append_failed(const Eigen::VectorXd& x);
  /// Empties the dataset for dimension d and the given constraint names (m = their number):
  /// every matrix gets 0 rows and the right number of columns. Call it before the first
  /// `append`; `maximize` is left as it was.
  void reset(std::size_t d, std::vector<std::string> constraint_names);
};

}  // namespace arbo::sdk
