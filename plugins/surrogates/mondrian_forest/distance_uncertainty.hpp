// SPDX-License-Identifier: MIT
/// @file
/// @brief The thesis's distance-based uncertainty (Braun 2022, Eqs. 4.1-4.3, after ENTMOOT).
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

/// u(x) = min( max|y| * min_i [ sum_cont (x~ - x~_i)^2 + sum_cat (1 - S_d(x_d, x_i,d)) ],
///             zeta * Var(y) )
/// with S_d the Goodall4 similarity of the training data, counted between different categories
/// only (by default), so that u is 0 at every training point.
class DistanceUncertainty {
 public:
  /// Splits the coordinates of `space` into continuous (Real, Integer) and categorical
  /// (Categorical, Binary). An empty space, or one whose size differs from the data's
  /// dimension at fit time, makes every coordinate continuous.
  /// `literal_goodall`: ENTMOOT's 1 - S_d also between equal categories (see the parameter).
  void configure(const sdk::Space& space, DistanceScaling scaling, double zeta,
                 bool literal_goodall = false);
  /// Stores the scaled training rows, the Goodall4 tables and the scale of `y`.
  void fit(const Eigen::MatrixXd& X, const Eigen::VectorXd& y);
  /// u at the columns of `Xt` (d x m, one point per column).
  void evaluate(const Eigen::MatrixXd& Xt, Eigen::VectorXd& u) const;

 private:
  const sdk::Space* space_ = nullptr;
  DistanceScaling scaling_ = DistanceScaling::Standard;
  double zeta_ = 1.0;
  bool literal_goodall_ = false;
  std::vector<Eigen::Index> continuous_, categorical_;
  Eigen::VectorXd shift_, scale_;         // per continuous coordinate
  Eigen::MatrixXd Xc_;                    // n x |continuous|, scaled
  Eigen::MatrixXd Xk_;                    // n x |categorical|, rounded category codes
  std::vector<Eigen::VectorXd> goodall_;  // per categorical coordinate: S(a) for each code a
  double y_largest_ = 0.0;
  double cap_ = 0.0;
};

}  // namespace arbo::plugins
