// SPDX-License-Identifier: MIT
/// @file
/// @brief The tree-agreement kernel GP of LEAF-GP: k(x, x') = sigma0^2 * (fraction of trees
/// in which x and x' share a leaf), zero mean on standardized y.
#pragma once

#include <vector>

#include <Eigen/Core>

#include "tree_ensemble.hpp"

namespace arbo::plugins::tree_gp {

struct GpConfig {
  double noise_lower = 5e-4;  ///< bounds of sigma_y^2 (standardized units)
  double noise_upper = 0.2;
  double signal_lower = 0.05;  ///< bounds of sigma_0^2 (standardized units)
  double signal_upper = 20.0;
  int epochs = 200;  ///< Adam steps on the marginal likelihood
  double learning_rate = 0.1;
  /// Predictive variance of a noisy observation (sigma0^2 + sigma_y^2 - ...), as the
  /// reference code, or of the latent function (sigma0^2 - ...), as the paper's Eq. (2b).
  bool noisy_variance = true;
};

/// Fitted GP. Standardized quantities ("std") are those the formulation uses; `predict`
/// returns the metric's units.
class TreeKernelGp {
 public:
  /// Fits on the rows of `X` against `y`. `ensemble` must outlive the object.
  void fit(const Ensemble& ensemble, const Eigen::MatrixXd& X, const Eigen::VectorXd& y,
           const GpConfig& config);
  /// Sets a GP whose hyperparameters were chosen elsewhere (one posterior sample of BARK,
  /// Boyne et al. Sec. 5): the kernel sigma0^2 / |trees| * (number of trees of `ensemble` in
  /// which two points share a leaf), trees without a split included (each adds 1/|trees| to
  /// every agreement), plus (noise + jitter) I on the training points; `y_std` is the
  /// standardized target and `y_mean`, `y_scale` undo it; the predictive variance is the
  /// latent one (sigma0^2 - ...). `ensemble` must outlive the object.
  /// @throws sdk::Error when the ensemble has no tree or K is not positive definite. O(n^3).
  void assign(const Ensemble& ensemble, const Eigen::MatrixXd& X, const Eigen::VectorXd& y_std,
              double y_mean, double y_scale, double signal, double noise, double jitter);

  /// Agreement ratios s_i(x) = (1/|T|) #{t : leaf_t(x) = leaf_t(x_i)}, i = 1..m.
  void agreement(const double* x, Eigen::VectorXd& s) const;
  /// Standardized mean and variance from the agreement vector.
  void predict_std(const Eigen::VectorXd& s, double& mean, double& variance) const;
  /// Metric-unit mean and variance at the rows of X.
  void predict(const Eigen::MatrixXd& X, Eigen::VectorXd& mean, Eigen::VectorXd& variance) const;

  /// Trees that carry a partition (non-degenerate ones; after `fit`, the first tree when all
  /// are degenerate, so that the kernel is the constant sigma0^2).
  const std::vector<int>& active_trees() const noexcept { return active_; }
  /// The ensemble the kernel's trees come from.
  const Ensemble& ensemble() const noexcept { return *ensemble_; }
  /// Number of trees the agreement averages over: the active ones after `fit` (LEAF-GP
  /// ignores trees without a split), every tree after `assign`.
  double tree_count() const noexcept { return tree_count_; }
  /// Trees without a split that the agreement counts (0 after `fit`).
  std::size_t null_trees() const noexcept { return null_trees_; }
  /// Leaf node of training point i in active tree t (index into active_trees()).
  int training_leaf(std::size_t t, std::size_t i) const { return train_leaf_[t][i]; }
  std::size_t size() const noexcept { return static_cast<std::size_t>(y_std_.size()); }

  double signal_variance() const noexcept { return signal_; }  ///< sigma0^2
  double noise_variance() const noexcept { return noise_; }    ///< sigma_y^2
  double y_mean() const noexcept { return y_mean_; }
  double y_scale() const noexcept { return y_scale_; }
  /// The constant of the variance: sigma0^2 (+ sigma_y^2 when noisy).
  double prior_variance() const noexcept { return prior_var_; }
  /// (K + sigma_y^2 I)^{-1}, dense m x m, from the low-rank (Woodbury) solve.
  const Eigen::MatrixXd& k_inverse() const noexcept { return k_inv_; }
  /// (K + sigma_y^2 I)^{-1} y_std.
  const Eigen::VectorXd& alpha() const noexcept { return alpha_; }
  const Eigen::VectorXd& y_standardized() const noexcept { return y_std_; }
  /// Normalized log marginal likelihood at the fitted hyperparameters.
  double log_likelihood() const noexcept { return loglik_; }
  /// Leaf-indicator matrix A (m x |L|): column blocks per active tree, leaves in
  /// `Tree::leaves` order. K = sigma0^2 / |T| * A A^T.
  const Eigen::MatrixXd& leaf_matrix() const noexcept { return A_; }

 private:
  // The trees with a split (`keep_first`: the first tree when none has one) and where each row
  // of X falls in them: active_, train_leaf_, A_.
  void index_leaves(const Ensemble& ensemble, const Eigen::MatrixXd& X, bool keep_first);

  const Ensemble* ensemble_ = nullptr;
  std::vector<int> active_;
  std::vector<std::vector<int>> train_leaf_;
  Eigen::MatrixXd A_;
  Eigen::VectorXd y_std_, alpha_;
  Eigen::MatrixXd k_inv_;
  double y_mean_ = 0.0, y_scale_ = 1.0;
  double signal_ = 1.0, noise_ = 0.1, prior_var_ = 1.0, loglik_ = 0.0;
  double tree_count_ = 1.0;
  std::size_t null_trees_ = 0;
};

}  // namespace arbo::plugins::tree_gp
