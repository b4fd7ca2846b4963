// SPDX-License-Identifier: MIT
/// @file
/// @brief Exclusion of evaluated points on discrete spaces: the pipeline option
/// `[proposal] exclude_evaluated` (docs/pipelines.md). Model-based inner solvers add one no-good
/// cut per evaluated point (`add_exclusion_cuts`); black-box ones skip the points an
/// `EvaluatedPoints` set holds.
///
/// "Evaluated" means every row of `Dataset::X` (completed), `Dataset::X_failed` (failed: a
/// point whose objective crashed would crash again) and `Dataset::X_pending` (in flight).
/// Points are compared in their encoded, snapped form (space.hpp), so two configurations are
/// the same point exactly when their vectors are equal.
#pragma once

#include <cstddef>
#include <string>
#include <unordered_set>
#include <vector>

#include <Eigen/Core>

#include "arbo/sdk/dataset.hpp"
#include "arbo/sdk/export.hpp"
#include "arbo/sdk/model.hpp"
#include "arbo/sdk/space.hpp"

namespace arbo::sdk {

/// Name of the first coordinate of `space` on which exclusion is meaningless (a Real
/// parameter: an excluded point removes nothing from a continuum), or empty when every
/// coordinate is Integer, Categorical or Binary. O(d).
ARBO_SDK_API std::string first_continuous_parameter(const Space& space);

/// Number of points of `space` (the product of its coordinates' cardinalities, inactive
/// coordinates counted as if active), or 0 when it has a Real coordinate or the product exceeds
/// `limit`. O(d).
ARBO_SDK_API std::size_t count_points(const Space& space, std::size_t limit);

/// Writes point number `index` (0 <= index < count_points(space, ...)) of `space` into `x`
/// (resized; encoded, snapped): the coordinates in mixed radix, coordinate 0 fastest. O(d).
/// @throws InvalidArgument when `space` has a Real coordinate.
ARBO_SDK_API void point_at(const Space& space, std::size_t index, Eigen::VectorXd& x);

/// The evaluated points of a dataset as a hash set, for black-box solvers that must skip
/// them. Built in O((n + k + p) d); `contains` is O(d) expected. Not thread-safe for writes.
class ARBO_SDK_API EvaluatedPoints {
 public:
  EvaluatedPoints() = default;
  /// Every row of `data.X`, `data.X_failed` and `data.X_pending`.
  explicit EvaluatedPoints(const Dataset& data);
  /// Adds one point (e.g. a candidate already proposed in this call). O(d) expected.
  void insert(const Eigen::VectorXd& x);
  /// True when `x` equals an evaluated point on every coordinate (exact comparison: both are
  /// snapped encodings).
  bool contains(const Eigen::VectorXd& x) const;
  std::size_t size() const noexcept { return points_.size(); }
  bool empty() const noexcept { return points_.empty(); }

 private:
  struct Hash {
    std::size_t operator()(const std::vector<double>& v) const noexcept;
  };
  std::unordered_set<std::vector<double>, Hash> points_;
  mutable std::vector<double> probe_;  // reused by contains(), so a lookup does not allocate
};

/// Integer or categorical coordinates with at most this many values get one binary indicator
/// per value (the sparse one-hot form of the no-good cut); wider integers get a two-binary
/// disjunction per excluded point instead.
inline constexpr double kMaxIndicatorValues = 64;

/// Adds one no-good cut per row of `points` (encoded, snapped points of `space`) to `model`,
/// over the point variables `point`: every point satisfying the cuts differs from each row on
/// at least one coordinate. Binary coordinates enter as they are (Hamming distance >= 1);
/// categorical and small integer coordinates through value indicators (the ones a block
/// declared with `Model::declare_value_indicators`, else new ones, declared for later blocks);
/// wider integers through two binaries per excluded point (x <= v - 1 or x >= v + 1).
/// Duplicated rows give one cut each. Call it after the acquisition formulated itself, so that
/// its indicators are reused.
/// @return the number of cuts added (rows of `points`).
/// @throws InvalidArgument naming the parameter when `space` has a Real or log-scaled Integer
///         coordinate, and when `point` or a row has not the space's dimension.
/// Complexity: O(rows x d) terms, plus O(values) variables per indicator block created.
ARBO_SDK_API std::size_t add_exclusion_cuts(Model& model, const PointVariables& point,
                                            const Space& space, const Eigen::MatrixXd& points);

/// `add_exclusion_cuts` for every evaluated point of `data` (X, X_failed, X_pending).
ARBO_SDK_API std::size_t add_exclusion_cuts(Model& model, const PointVariables& point,
                                            const Space& space, const Dataset& data);

}  // namespace arbo::sdk
