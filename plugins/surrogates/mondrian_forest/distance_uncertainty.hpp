// SPDX-License-Identifier: MIT
/// @file
/// @brief The thesis's distance-based uncertainty (Braun 2022, Sec. 4.2, Eqs. 4.1-4.3, after
/// ENTMOOT).
#pragma once

#include <cstddef>
#include <vector>

#include <Eigen/Core>

#include <arbo/sdk/space.hpp>

namespace arbo::plugins {

/// How continuous coordinates are scaled before the squared Euclidean distance.
enum class DistanceScaling {
  Standard,  ///< (x - mean) / std of the training rows (ENTMOOT's unc_scaling="standard")
  Bounds,    ///< (x - lower) / (upper - lower) of the space
  None,      ///< encoded units as they are
};

/// The distance between the categories a and b of one categorical (or binary) coordinate,
/// with S(a) = c(a)(c(a) - 1) / (n(n - 1)) the Goodall4 similarity of a with itself.
enum class CategoricalDistance {
  /// Eq. 4.2: (1/D) [a != b] (S(a) + S(b)), the squared distance that the Goodall4
  /// similarity, a kernel, induces (S(a, a) + S(b, b) - 2 S(a, b)); 0 between equal categories.
  Goodall4,
  Hamming,  ///< [a != b]: 1 per differing category, no Goodall4 table
  Entmoot,  ///< ENTMOOT's non-similarity 1 - [a == b] S(a), positive between equal categories
};

/// What the scaled, clipped distance is returned as (the variance handed to acquisitions).
enum class DistanceUnits {
  /// u = min(max|y|^2 dist, zeta Var(y)) is the variance: sigma = max|y| sqrt(dist), capped
  /// at sqrt(zeta Var(y)). Both terms are in units of y^2, so sigma scales with y.
  Variance,
  LiteralVariance,  ///< u = min(max|y| dist, zeta Var(y)) is the variance (Eq. 4.3 as printed)
  StdDev,           ///< the same u is the standard deviation: variance u^2
};

/// The predictive variance of the thesis's distance-based uncertainty:
/// u(x) = min(scale(y) * min_i dist(x, x_i), zeta * Var(y)), dist = squared Euclidean distance
/// of the scaled continuous coordinates + the categorical distance, y the model's own target.
/// By default u is 0 at every training point.
class DistanceUncertainty {
 public:
  /// Splits the coordinates of `space` into continuous (Real, Integer) and categorical
  /// (Categorical, Binary). An empty space, or one whose size differs from the data's
  /// dimension at fit time, makes every coordinate continuous. `space` must outlive this.
  void configure(const sdk::Space& space, DistanceScaling scaling, double zeta,
                 CategoricalDistance categorical, DistanceUnits units);
  /// Stores the scaled training rows, the Goodall4 tables and the scale of `y`. O(n d).
  void fit(const Eigen::MatrixXd& X, const Eigen::VectorXd& y);
  /// The variance at the columns of `Xt` (d x m, one point per column). O(m n d).
  void evaluate(const Eigen::MatrixXd& Xt, Eigen::VectorXd& variance) const;

 private:
  const sdk::Space* space_ = nullptr;
  DistanceScaling scaling_ = DistanceScaling::Standard;
  CategoricalDistance categorical_distance_ = CategoricalDistance::Goodall4;
  DistanceUnits units_ = DistanceUnits::Variance;
  double zeta_ = 1.0;
  std::vector<Eigen::Index> continuous_, categorical_;
  Eigen::VectorXd shift_, scale_;         // per continuous coordinate
  Eigen::MatrixXd Xc_;                    // n x |continuous|, scaled
  Eigen::MatrixXd Xk_;                    // n x |categorical|, rounded category codes
  Eigen::MatrixXd self_;                  // n x |categorical|: S of each row's own category
  std::vector<Eigen::VectorXd> goodall_;  // per categorical coordinate: S(a) for each code a
  double inv_dim_ = 1.0;                  // Eq. 4.2's 1/D
  double distance_factor_ = 0.0;          // max|y| or max|y|^2
  double cap_ = 0.0;
};

}  // namespace arbo::plugins
