// SPDX-License-Identifier: MIT
/// @file
/// @brief Template of a surrogate that formulates itself into the inner solver's model: a
/// one-split regression tree (a decision stump).
///
/// From the SDK's formulated_surrogate template (`tools/new-plugin formulated_surrogate NAME`
/// copies and renames it). What a surrogate must do is written in <arbo/sdk/surrogate.hpp>;
/// what a formulating one adds, in <arbo/sdk/capabilities/surrogate.hpp>. The conformance
/// kit checks the surrogate contract, and formulated_surrogate_xyz_test.cpp checks that the
/// formulation agrees with `predict`.
#pragma once

#include <cstdint>
#include <vector>

#include <arbo/sdk/capabilities/surrogate.hpp>
#include <arbo/sdk/surrogate.hpp>

namespace xyz {

/// A decision stump: the best single split x_j <= t of the data (least squares over every
/// coordinate j and every threshold t halfway between two observed values, each side with at
/// least `min_leaf` observations), predicting each side's mean. The variance of a side is the
/// spread of its targets plus the spread of all targets divided by the side's size, so a side
/// with few observations is uncertain:
///
///   variance = var(side targets) + var(all targets) / |side|.
///
/// Without a valid split (one observation, or all values equal) the model is one constant.
/// Categorical coordinates are split on their index, which is crude but valid; a real tree
/// model would split on subsets of the choices (see plugins/surrogates/tree_gp).
///
/// In a model (`formulate`), the side is one binary b (b = 1: left), tied to the point
/// variable x_j by two big-M rows over the space's bounds [lo, hi]:
///
///   x_j + (R - lo) b >= R        (b = 0 forces x_j >= R)
///   x_j + (hi - L) b <= hi       (b = 1 forces x_j <= L)
///
/// with L = R = t for a continuous coordinate, and L = floor(t), R = L + 1 for an integral
/// one (the model variable is integer there, so the gap between L and R holds no point). The
/// mean is then affine in b, and the standard deviation and variance get one variable each
/// with one linear row: exactly what `FormulatesSurrogate::Output` asks for, so the stock
/// acquisitions (lcb with kappa > 0) and `inner_solver/glpk_bnb` can use it.
///
/// `decode`: the model's optimum says only which side is best; the solver's point sits on a
/// vertex of that side (x_j at a bound or at the split). The query is moved to the middle of
/// the side along x_j, away from the boundary where the model knows least, when that point
/// still satisfies the known constraints.
class FormulatedSurrogateXyz final : public arbo::sdk::Surrogate,
                                     public arbo::sdk::FormulatesSurrogate,
                                     public arbo::sdk::DecodesSolution {
 public:
  explicit FormulatedSurrogateXyz(const arbo::sdk::CreateArgs& args);
  static const arbo::sdk::ParamSpecList& params();

  /// Finds the best split. O(d n log n): one sort per coordinate, then prefix sums.
  void fit(const arbo::sdk::Dataset& data, const arbo::sdk::Metric& metric) override;
  /// Each row's side mean and variance. O(m).
  void predict(const Eigen::MatrixXd& X, Eigen::VectorXd& mean,
               Eigen::VectorXd& variance) const override;

  /// Adds the split's binary, the standard-deviation and variance variables, and four rows
  /// (the class comment has them); a constant model adds the last two variables only. Names
  /// start with "xyz_". @throws InvalidArgument when `point` does not match the space.
  Output formulate(arbo::sdk::Model& model, const arbo::sdk::PointVariables& point) const override;
  /// Moves x_j to the middle of the chosen side; false for a constant model or when the middle
  /// violates a known constraint.
  bool decode(const arbo::sdk::Model& model, const arbo::sdk::PointVariables& point,
              const std::vector<double>& solution,
              const std::vector<const arbo::sdk::Constraint*>& constraints,
              Eigen::VectorXd& x) const override;

  /// The fitted split: coordinate (-1 for a constant model) and threshold t.
  int split_coordinate() const noexcept { return feature_; }
  double split_threshold() const noexcept { return threshold_; }

 private:
  // One side of the split: its prediction.
  struct Side {
    double mean = 0.0;
    double variance = 0.0;
  };
  const Side& side_of(double xj) const { return xj <= threshold_ ? left_ : right_; }
  // Closed bounds of the two sides in the model: left x_j <= L, right x_j >= R.
  double left_bound() const;
  double right_bound() const;

  std::int64_t min_leaf_;
  Eigen::VectorXd lower_, upper_;  // encoded bounds of the space
  std::vector<bool> integral_;     // coordinate is an integer variable in the model
  int feature_ = -1;               // split coordinate, -1: constant model
  double threshold_ = 0.0;         // left iff x_j <= threshold_
  Side left_, right_;              // a constant model uses left_ only
};

}  // namespace xyz
