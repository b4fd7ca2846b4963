// SPDX-License-Identifier: MIT
#include "tree_kernel_gp.hpp"

#include <cmath>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>

#include <arbo/sdk/error.hpp>

namespace arbo::plugins::tree_gp {

namespace {

double sigmoid(double r) { return 1.0 / (1.0 + std::exp(-r)); }

}  // namespace

void TreeKernelGp::index_leaves(const Ensemble& ensemble, const Eigen::MatrixXd& X,
                                bool keep_first) {
  ensemble_ = &ensemble;
  const Eigen::Index m = X.rows();
  active_.clear();
  for (std::size_t t = 0; t < ensemble.trees.size(); ++t) {
    if (!ensemble.trees[t].degenerate()) active_.push_back(static_cast<int>(t));
  }
  if (active_.empty() && keep_first) active_.push_back(0);
  // Leaf-indicator matrix A: one column per leaf of every active tree.
  Eigen::Index leaves = 0;
  for (int t : active_) leaves += static_cast<Eigen::Index>(ensemble.trees[t].leaves.size());
  A_.setZero(m, leaves);
  train_leaf_.assign(active_.size(), std::vector<int>(static_cast<std::size_t>(m)));
  Eigen::Index offset = 0;
  Eigen::VectorXd row(X.cols());
  for (std::size_t k = 0; k < active_.size(); ++k) {
    const Tree& tree = ensemble.trees[static_cast<std::size_t>(active_[k])];
    for (Eigen::Index i = 0; i < m; ++i) {
      row = X.row(i).transpose();
      const int node = tree.leaf_of(row.data());
      train_leaf_[k][static_cast<std::size_t>(i)] = node;
      A_(i, offset + tree.leaf_index(node)) = 1.0;
    }
    offset += static_cast<Eigen::Index>(tree.leaves.size());
  }
}

void TreeKernelGp::fit(const Ensemble& ensemble, const Eigen::MatrixXd& X, const Eigen::VectorXd& y,
                       const GpConfig& config) {
  if (X.rows() == 0 || X.rows() != y.size()) {
    throw sdk::Error("surrogate/tree_gp: fit needs at least one observation");
  }
  if (ensemble.trees.empty()) throw sdk::Error("surrogate/tree_gp: the ensemble has no tree");
  const Eigen::Index m = X.rows();
  index_leaves(ensemble, X, true);
  const double T = static_cast<double>(active_.size());
  tree_count_ = T;
  null_trees_ = 0;

  // Standardized targets (unbiased std, as BoTorch's `standardize`).
  y_mean_ = y.mean();
  y_scale_ = 1.0;
  if (m > 1) {
    const double var = (y.array() - y_mean_).square().sum() / static_cast<double>(m - 1);
    if (var > 0.0 && std::isfinite(var)) y_scale_ = std::sqrt(var);
  }
  y_std_ = (y.array() - y_mean_) / y_scale_;

  // Marginal likelihood in the eigenbasis of the agreement Gram matrix B = A A^T / |T|:
  // K + sigma_y^2 I has eigenvalues sigma0^2 lambda_i + sigma_y^2, so each Adam step is O(m).
  const Eigen::MatrixXd B = A_ * A_.transpose() / T;
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(B);
  const Eigen::VectorXd lambda = eig.eigenvalues().cwiseMax(0.0);
  const Eigen::VectorXd yt2 = (eig.eigenvectors().transpose() * y_std_).array().square();
  const double dm = static_cast<double>(m);
  // Hyperparameters as GPyTorch Interval constraints: value = lo + (hi - lo) sigmoid(raw),
  // raw = 0 initially (the interval midpoint), Adam on the likelihood normalized by m.
  double raw[2] = {0.0, 0.0};  // signal, noise
  const double lo[2] = {config.signal_lower, config.noise_lower};
  const double hi[2] = {config.signal_upper, config.noise_upper};
  double m1[2] = {0.0, 0.0}, m2[2] = {0.0, 0.0};
  const double b1 = 0.9, b2 = 0.999, eps = 1e-8;
  auto loglik = [&](double s0, double sy, double* grad) {
    double ll = 0.0, g0 = 0.0, gy = 0.0;
    for (Eigen::Index i = 0; i < m; ++i) {
      const double e = s0 * lambda[i] + sy;
      ll += -0.5 * (yt2[i] / e + std::log(e));
      const double de = 0.5 * (yt2[i] / (e * e) - 1.0 / e);
      g0 += de * lambda[i];
      gy += de;
    }
    if (grad != nullptr) {
      grad[0] = g0 / dm;
      grad[1] = gy / dm;
    }
    return ll / dm - 0.5 * std::log(2.0 * M_PI);
  };
  for (int step = 1; step <= config.epochs; ++step) {
    double val[2], g[2];
    for (int k = 0; k < 2; ++k) val[k] = lo[k] + (hi[k] - lo[k]) * sigmoid(raw[k]);
    loglik(val[0], val[1], g);
    for (int k = 0; k < 2; ++k) {
      const double sg = sigmoid(raw[k]);
      // Minimize the negative likelihood: gradient w.r.t. raw by the chain rule.
      const double grad = -g[k] * (hi[k] - lo[k]) * sg * (1.0 - sg);
      m1[k] = b1 * m1[k] + (1.0 - b1) * grad;
      m2[k] = b2 * m2[k] + (1.0 - b2) * grad * grad;
      const double mh = m1[k] / (1.0 - std::pow(b1, step));
      const double vh = m2[k] / (1.0 - std::pow(b2, step));
      raw[k] -= config.learning_rate * mh / (std::sqrt(vh) + eps);
    }
  }
  signal_ = lo[0] + (hi[0] - lo[0]) * sigmoid(raw[0]);
  noise_ = lo[1] + (hi[1] - lo[1]) * sigmoid(raw[1]);
  loglik_ = loglik(signal_, noise_, nullptr);
  prior_var_ = signal_ + (config.noisy_variance ? noise_ : 0.0);

  // Woodbury: (sigma0^2/|T| A A^T + sigma_y^2 I)^{-1}
  //         = sigma_y^{-2} [I - A (c I + A^T A)^{-1} A^T],  c = sigma_y^2 |T| / sigma0^2.
  const double c = noise_ * T / signal_;
  Eigen::MatrixXd inner = A_.transpose() * A_;
  inner.diagonal().array() += c;
  Eigen::LLT<Eigen::MatrixXd> llt(inner);
  if (llt.info() != Eigen::Success) {
    throw sdk::Error("surrogate/tree_gp: Cholesky of the low-rank system failed");
  }
  k_inv_ = -(A_ * llt.solve(A_.transpose()));
  k_inv_.diagonal().array() += 1.0;
  k_inv_ /= noise_;
  k_inv_ = 0.5 * (k_inv_ + k_inv_.transpose()).eval();
  alpha_ = k_inv_ * y_std_;
}

void TreeKernelGp::assign(const Ensemble& ensemble, const Eigen::MatrixXd& X,
                          const Eigen::VectorXd& y_std, double y_mean, double y_scale,
                          double signal, double noise, double jitter) {
  if (ensemble.trees.empty()) throw sdk::Error("the ensemble has no tree");
  if (X.rows() == 0 || X.rows() != y_std.size()) {
    throw sdk::Error("a tree-kernel GP needs at least one observation");
  }
  const Eigen::Index m = X.rows();
  index_leaves(ensemble, X, false);
  tree_count_ = static_cast<double>(ensemble.trees.size());
  null_trees_ = ensemble.trees.size() - active_.size();
  y_std_ = y_std;
  y_mean_ = y_mean;
  y_scale_ = y_scale;
  signal_ = signal;
  noise_ = noise;
  prior_var_ = signal;
  Eigen::MatrixXd K = A_ * A_.transpose();
  K.array() += static_cast<double>(null_trees_);
  K *= signal / tree_count_;
  K.diagonal().array() += noise + jitter;
  Eigen::LLT<Eigen::MatrixXd> llt(K);
  if (llt.info() != Eigen::Success)
    throw sdk::Error("the tree-kernel Gram matrix is not positive definite");
  k_inv_ = llt.solve(Eigen::MatrixXd::Identity(m, m));
  k_inv_ = 0.5 * (k_inv_ + k_inv_.transpose()).eval();
  alpha_ = k_inv_ * y_std_;
  const Eigen::MatrixXd& L = llt.matrixLLT();
  loglik_ = (-0.5 * y_std_.dot(alpha_) - L.diagonal().array().log().sum() -
             0.5 * static_cast<double>(m) * std::log(2.0 * M_PI)) /
            static_cast<double>(m);
}

void TreeKernelGp::agreement(const double* x, Eigen::VectorXd& s) const {
  const auto m = static_cast<Eigen::Index>(y_std_.size());
  const double w = 1.0 / tree_count_;
  s.setConstant(m, static_cast<double>(null_trees_) * w);
  for (std::size_t k = 0; k < active_.size(); ++k) {
    const Tree& tree = ensemble_->trees[static_cast<std::size_t>(active_[k])];
    const int node = tree.leaf_of(x);
    const std::vector<int>& leaves = train_leaf_[k];
    for (Eigen::Index i = 0; i < m; ++i) {
      if (leaves[static_cast<std::size_t>(i)] == node) s[i] += w;
    }
  }
}

void TreeKernelGp::predict_std(const Eigen::VectorXd& s, double& mean, double& variance) const {
  mean = signal_ * s.dot(alpha_);
  variance = prior_var_ - signal_ * signal_ * s.dot(k_inv_ * s);
  if (!(variance > 0.0)) variance = 0.0;
}

void TreeKernelGp::predict(const Eigen::MatrixXd& X, Eigen::VectorXd& mean,
                           Eigen::VectorXd& variance) const {
  mean.resize(X.rows());
  variance.resize(X.rows());
  Eigen::VectorXd s, row(X.cols());
  for (Eigen::Index r = 0; r < X.rows(); ++r) {
    row = X.row(r).transpose();
    agreement(row.data(), s);
    double mu = 0.0, var = 0.0;
    predict_std(s, mu, var);
    mean[r] = y_mean_ + y_scale_ * mu;
    variance[r] = y_scale_ * y_scale_ * var;
  }
}

}  // namespace arbo::plugins::tree_gp
