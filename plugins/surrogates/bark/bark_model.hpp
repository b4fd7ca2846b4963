// SPDX-License-Identifier: MIT
/// @file
/// @brief BARK's model: parallel MCMC chains over tree kernels, their thinned posterior samples
/// and the mixture-of-GPs prediction (Boyne et al., Sec. 5 and 6.1). The core library
/// `arbo_bark_core` exposes it so that a formulation (the integrated-UCB MIP) and the study
/// store can reach the fitted state.
#pragma once

#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "chain.hpp"
#include "forest.hpp"

namespace arbo::plugins::bark {

/// One posterior sample s: a forest, its noise, and its GP on the standardized targets.
struct Sample {
  std::vector<Tree> trees;                ///< m trees (node arrays; leaf ids are node ids)
  double noise = 0.0;                     ///< sigma_y^2, standardized units
  Eigen::MatrixXd k_inverse;              ///< K_s^-1 (n x n), K_s = K_f + (noise + jitter) I
  Eigen::VectorXd alpha;                  ///< K_s^-1 y_std
  std::vector<std::vector<int>> leaf_of;  ///< leaf_of[t][i]: leaf of training point i in tree t
  int chain = 0;                          ///< the chain it comes from
  int sweep = 0;                          ///< the sweep after which it was taken (1-based)

  // Prediction caches: every leaf of every tree is a column c (tree order, then node order);
  // b = Phi' K^-1 Phi (columns x columns) and beta = Phi' alpha, Phi the n x columns leaf
  // indicator matrix. Then, with c_t the leaf of x in tree t and sigma0^2 / m = w,
  // mu_s(x) = w sum_t beta[c_t] and k'K^-1 k = w^2 sum_{t,t'} b[c_t, c_t'].
  std::vector<std::vector<int>> leaf_column;  ///< leaf_column[t][node]: column, -1 if not a leaf
  Eigen::MatrixXd b;
  Eigen::VectorXd beta;
};

/// What a fit does (the paper's defaults, App. D.1 and G.2).
struct BarkConfig {
  ChainConfig chain;
  int chains = 4;
  int burn_in = 1000;       ///< sweeps before the first sample, first fit only
  int sweeps = 400;         ///< sweeps per chain per fit
  int thinning = 100;       ///< a sample after every `thinning`-th sweep
  int threads = 4;          ///< worker threads (results do not depend on it)
  bool prior_only = false;  ///< BARKPrior: forests from the prior, no MCMC
  int prior_samples = 16;
  double prior_noise_shape = 2.5;  ///< BARKPrior noise ~ Gamma(shape, rate) (reference code)
  double prior_noise_rate = 9.0;
  bool noisy_variance = false;  ///< predict the variance of a noisy observation
};

/// Totals of the latest fit over all chains.
struct FitStats {
  double wall_seconds = 0.0;
  double tree_seconds = 0.0;   ///< summed over chains (CPU-ish time in tree moves)
  double noise_seconds = 0.0;  ///< summed over chains
  std::array<std::int64_t, 3> proposed{}, accepted{}, invalid{};
  std::int64_t noise_proposed = 0, noise_accepted = 0;
  int sweeps_per_chain = 0;
};

/// Draws a tree from the BART prior with the uniform split rule: each node at depth d splits
/// with probability alpha (1 + d)^-beta with a rule from `draw_rule`; a tree with an
/// unsplittable draw is discarded whole and redrawn, which samples exactly the distribution
/// the MCMC's moves leave invariant (the prior restricted to valid trees).
Tree sample_prior_tree(const Domain& domain, double alpha, double beta, Rng& rng);

/// BARK's model over the encoded space of `domain`.
class BarkModel {
 public:
  BarkModel(const Domain& domain, const BarkConfig& config);

  /// Standardizes y (mean, population std floored at 1e-6), then runs every chain (the first
  /// fit: burn_in + sweeps; later fits: sweeps from the chains' last states, on the new data)
  /// and keeps S = chains * (sweeps / thinning) samples. Each chain's random stream is seeded
  /// by one draw of `rng`, in chain order, so the result does not depend on `threads`.
  /// prior_only: draws prior_samples forests and noises from `rng` instead (no state kept).
  void fit(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, std::mt19937_64& rng);

  /// Moment-matched mixture (equal weights): mean = avg mu_s, variance = avg sigma_s^2 +
  /// avg (mu_s - mean)^2, in the target's units. sigma_s^2 is latent (sigma0^2 - k'K^-1 k)
  /// unless `noisy_variance`. No allocation per point.
  void predict(const Eigen::MatrixXd& X, Eigen::VectorXd& mean, Eigen::VectorXd& variance) const;
  /// Per-sample means and variances (S x n each), in the target's units.
  void predict_samples(const Eigen::MatrixXd& X, Eigen::MatrixXd& means,
                       Eigen::MatrixXd& variances) const;
  /// Joint samples at the rows of X: for each draw a mixture component s uniformly, then
  /// N(mu_s, Sigma_s) with the latent (or noisy) covariance of sample s. out: num x n.
  void sample(const Eigen::MatrixXd& X, std::size_t num, std::mt19937_64& rng,
              Eigen::MatrixXd& out) const;

  const std::vector<Sample>& samples() const noexcept { return samples_; }
  double y_mean() const noexcept { return y_mean_; }
  double y_scale() const noexcept { return y_scale_; }
  const std::vector<Chain>& chains() const noexcept { return chains_; }
  const BarkConfig& config() const noexcept { return config_; }
  const Domain& domain() const noexcept { return domain_; }
  const FitStats& stats() const noexcept { return stats_; }
  bool fitted() const noexcept { return !samples_.empty(); }
  /// True once a fit has run the burn-in (or states were restored).
  bool warm() const noexcept { return warm_; }

  /// The chains' warm-start states (Chain::state), in chain order.
  std::vector<std::string> chain_states() const;
  /// Restores them (one per chain); the next fit then skips the burn-in.
  /// @throws sdk::InvalidArgument for a wrong count or a malformed state.
  void set_chain_states(const std::vector<std::string>& states);

 private:
  void finish_sample(Sample& s) const;
  // Leaf columns of every tree of sample s at point x (d doubles) into cols (m ints).
  void columns(const Sample& s, const double* x, int* cols) const;
  // Standardized mean and variance of sample s at point x.
  void predict_one(const Sample& s, const int* cols, double& mu, double& var) const;

  Domain domain_;
  BarkConfig config_;
  std::vector<Chain> chains_;
  std::vector<Sample> samples_;
  bool warm_ = false;
  double y_mean_ = 0.0;
  double y_scale_ = 1.0;
  FitStats stats_;
};

}  // namespace arbo::plugins::bark
