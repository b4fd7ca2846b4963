// SPDX-License-Identifier: MIT
/// @file
/// @brief One BARK MCMC chain: m trees and the noise variance, sampled by Metropolis-Hastings
/// with the GP marginal likelihood as target (Boyne et al., Sec. 5.2-5.3 and App. H).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include "forest.hpp"

namespace arbo::plugins::bark {

/// Settings of a chain (the paper's defaults; App. D.1 and the reference code).
struct ChainConfig {
  int num_trees = 50;   ///< m
  double alpha = 0.95;  ///< depth prior: P(split at depth d) = alpha (1 + d)^-beta
  double beta = 2.0;
  double signal_variance = 1.0;  ///< sigma0^2 (fixed; y is standardized)
  double jitter = 1e-6;          ///< added to the diagonal of K
  double noise_shape = 1.5;      ///< InvGamma(a, b) prior on sigma_y^2: a = nu / 2
  double noise_scale = 0.2922;   ///< b (see calibrated_noise_scale)
  double noise_step = 1.0;       ///< random-walk step in softplus space
  double initial_noise = 0.1;    ///< sigma_y^2 of a fresh chain
  /// Tests only: false makes the target the prior (the likelihood ratio is 0).
  bool use_likelihood = true;
  /// A rejected noise proposal refactorizes K at the current noise (a refresh, which clears
  /// the rank-r updates' drift) once this many accepted tree moves have been applied since the
  /// last factorization; an accepted one always takes its fresh factorization. The updates
  /// drift by about 1e-14 over 1,000 accepted moves (tests/bark_test.cpp), so a refresh after
  /// every rejected noise move, 30 % of a fit at N = 130, buys nothing. 0: after every one.
  int refresh_after_updates = 200;
  /// Tests only: false keeps the rank-r updates across noise steps (no fresh factorization).
  bool refresh_at_noise_step = true;
};

/// b such that P(sigma^2 < 1) = q under InvGamma(a, b) (paper Sec. 2: P(sigma_y^2 < sigma_hat^2)
/// = q with sigma_hat^2 = 1 for standardized y): b = Q^-1(a, q), Q the upper regularized gamma.
double calibrated_noise_scale(double shape, double probability);

/// log density of InvGamma(a, b) at s > 0: a log b - lgamma(a) - (a + 1) log s - b / s.
double log_inv_gamma(double s, double a, double b);

/// The tree moves (App. H): probabilities 0.25 / 0.25 / 0.5 (the reference code's 0.5 : 0.5 : 1).
enum class MoveKind : std::uint8_t { Grow = 0, Prune = 1, Change = 2 };

/// Acceptance statistics of a chain (reset by `reset_stats`).
struct ChainStats {
  std::array<std::int64_t, 3> proposed{};  ///< per MoveKind
  std::array<std::int64_t, 3> accepted{};
  std::array<std::int64_t, 3>
      invalid{};  ///< rejected before the likelihood (no node, unsplittable)
  std::int64_t noise_proposed = 0;
  std::int64_t noise_accepted = 0;
  double tree_seconds = 0.0;   ///< thread CPU time in tree moves
  double noise_seconds = 0.0;  ///< thread CPU time in noise moves (with the refresh)
};

/// A proposed tree move, evaluated but not applied (`Chain::propose`).
struct Proposal {
  MoveKind kind = MoveKind::Grow;
  int tree = 0;
  int node = -1;           ///< grow: the leaf; prune and change: the singly-internal node
  Rule rule;               ///< grow and change
  bool valid = false;      ///< false: rejected without a likelihood (log_ratio = -inf)
  double delta_ll = 0.0;   ///< log p(y | proposed) - log p(y | current)
  double log_ratio = 0.0;  ///< log of the MH acceptance ratio
};

/// An MCMC chain over (T_1..T_m, sigma_y^2) for standardized data.
///
/// State kept between moves (paper Sec. 5.3): K^-1 and log|K| (explicit inverse, as the
/// reference code), alpha = K^-1 y, the leaf of every training point in every tree, and the
/// integer agreement counts sum_t [leaf_t(x_i) = leaf_t(x_j)], from which K is rebuilt for the
/// noise move. A tree move changes the leaves of the points below one node only, so
/// K* = K + U D U' with indicator columns of the affected leaves (at most 2 before and 2 after)
/// and D = +-sigma0^2/m: a proposal costs O(N |affected| + r^3) through Woodbury and the
/// determinant lemma, and only an accepted move pays the O(N^2 r) update of K^-1.
/// Not thread-safe; chains are independent, so distinct chains may run on distinct threads.
class Chain {
 public:
  Chain(const Domain& domain, const ChainConfig& config);

  /// Every tree a single leaf, sigma_y^2 = initial_noise (reference code's initialization).
  void initialize();
  /// Sets the data (X: n x d encoded; y standardized) and recomputes everything from the
  /// current trees and noise (routing, counts, a fresh factorization).
  /// @throws sdk::Error when K is not positive definite (cannot happen with jitter > 0).
  void set_data(const Eigen::MatrixXd& X, const Eigen::VectorXd& y);

  /// One sweep: a proposal for each tree t = 1..m in order, then one noise proposal.
  void sweep(Rng& rng);
  /// One tree proposal (move kind drawn 0.25/0.25/0.5) for tree t, accepted or rejected.
  /// Returns true when accepted.
  bool tree_step(int t, Rng& rng);
  /// One noise proposal, then (refresh_at_noise_step) a fresh factorization of K.
  bool noise_step(Rng& rng);

  /// Draws and evaluates a move of the given kind on tree t without applying it. The
  /// chain's workspace then holds what `apply` needs; any other call invalidates it.
  Proposal propose(int t, MoveKind kind, Rng& rng);
  /// Applies the latest `propose` (precondition: `p.valid`).
  void apply(const Proposal& p);
  /// Recomputes K^-1, alpha, log|K| from a fresh Cholesky factorization of K.
  void refresh();

  // --- State (for the surrogate, the formulation and tests) ---
  const std::vector<Tree>& trees() const noexcept { return trees_; }
  double noise() const noexcept { return noise_; }
  /// K^-1 (n x n), alpha = K^-1 y, log|K|, y' K^-1 y, log p(y | trees, noise).
  const Eigen::MatrixXd& k_inverse() const noexcept { return k_inv_; }
  const Eigen::VectorXd& alpha() const noexcept { return alpha_; }
  double log_det() const noexcept { return log_det_; }
  double quad() const noexcept { return quad_; }
  double log_likelihood() const;
  /// Leaf id (node index) of training point i in tree t: `leaf_of()[t][i]`.
  const std::vector<std::vector<int>>& leaf_of() const noexcept { return leaf_of_; }
  /// K rebuilt from the trees (dense, n x n): for tests and for the formulation.
  Eigen::MatrixXd gram() const;
  const ChainConfig& config() const noexcept { return config_; }
  const ChainStats& stats() const noexcept { return stats_; }
  void reset_stats() { stats_ = ChainStats{}; }

  /// The warm-start state (m trees and sigma_y^2) as compact JSON:
  /// {"noise": s, "trees": [pre-order tree, ...]} (Tree::to_json). Doubles are written with
  /// round-trip precision, so `set_state(state())` restores the chain exactly.
  std::string state() const;
  /// Restores trees and noise from `state()`; call `set_data` afterwards.
  /// @throws sdk::InvalidArgument for malformed text, a wrong tree count or a bad noise value.
  void set_state(const std::string& text);
  /// Replaces the trees and noise directly (tests, prior sampling); call `set_data` after.
  void set_trees(std::vector<Tree> trees, double noise);

 private:
  // Fills groups_/group sums for the affected points (pts_, old_lab_, new_lab_), and returns
  // delta log-likelihood; false when the updated K is not positive definite.
  bool evaluate_update(double& delta_ll);
  double log_grow_prior_ratio(int depth) const;
  void factorize(double noise, bool keep);
  // K^-1, alpha, log|K|, y'K^-1 y from llt_.
  void take_factorization();

  Domain domain_;
  ChainConfig config_;
  std::vector<Tree> trees_;
  double noise_ = 0.1;
  ChainStats stats_;

  // Data.
  Eigen::MatrixXd xt_;  // d x n: column i is training point i
  Eigen::VectorXd y_;
  Eigen::Index n_ = 0;
  std::vector<std::vector<int>> leaf_of_;
  Eigen::MatrixXi counts_;  // n x n agreement counts

  // Factorization state.
  Eigen::MatrixXd k_inv_;
  Eigen::VectorXd alpha_;
  double log_det_ = 0.0;
  double quad_ = 0.0;
  int updates_since_factorization_ = 0;  // accepted tree moves since K was last factorized

  // Workspaces (sized in set_data; no allocation per proposal).
  std::vector<int> nodes_ws_;                     // leaves or singly-internal nodes
  std::vector<int> pts_;                          // affected points
  std::vector<std::uint8_t> old_lab_, new_lab_;   // their side before / after (0 left, 1 right)
  std::array<std::vector<int>, 4> group_pts_;     // group g = 2 old + new
  Eigen::Matrix<double, Eigen::Dynamic, 4> gs_;   // n x 4: K^-1 summed over each non-empty group
  int ng_ = 0;                                    // number of non-empty groups
  Eigen::Matrix<double, 4, 4> core_;              // K^-1 -= gs core gs'
  Eigen::Matrix<double, 4, 1> ag_;                // alpha summed over each group
  Eigen::Matrix<double, 4, Eigen::Dynamic> tmp_;  // 4 x n
  bool trivial_ = false;                          // the move leaves K unchanged
  double pending_log_det_ = 0.0;                  // log|I + D M| of the latest proposal
  Eigen::MatrixXd k_ws_;                          // n x n: K for the noise move
  Eigen::LLT<Eigen::MatrixXd> llt_;
  Eigen::MatrixXd linv_;  // n x n: L^-1
  Eigen::VectorXd z_ws_;
};

}  // namespace arbo::plugins::bark
