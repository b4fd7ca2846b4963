// SPDX-License-Identifier: MIT
/// @file
/// @brief The exact GP of surrogate/gp: ARD squared-exponential or Matern-5/2 kernel on the
/// numeric coordinates, BoTorch's categorical kernel on the categorical ones, the mixed kernel
/// of Ru et al. (2020) when both exist, and hyperparameters by maximum a posteriori (MAP) with
/// multi-start L-BFGS (liblbfgs) under the priors of Hvarfner et al. (2024).
///
/// Kept free of the plugin machinery (no Context, no ParamSet) so that tests can check the log
/// posterior, its gradient and the predictions in-process against direct computations.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Core>

namespace arbo::plugins::gp {

/// Stationary kernel of the numeric coordinates (Rasmussen & Williams 2006, Eq. 4.9 and 4.17).
enum class KernelType {
  SquaredExponential,  ///< exp(-r^2 / 2), r^2 = sum_d ((x_d - x'_d) / l_d)^2
  Matern52,            ///< (1 + sqrt5 r + 5 r^2 / 3) exp(-sqrt5 r)
};

/// How encoded coordinates enter the model. Numeric coordinates (real, integer, binary) are
/// mapped to [0, 1] by `(x - lower) / range`; categorical ones are compared by their index.
struct Layout {
  std::vector<Eigen::Index> numeric;      ///< encoded columns of the numeric kernel
  Eigen::VectorXd lower;                  ///< per numeric column: encoded lower bound
  Eigen::VectorXd range;                  ///< per numeric column: upper - lower (> 0)
  std::vector<Eigen::Index> categorical;  ///< encoded columns of the categorical kernel
  Eigen::Index dim = 0;                   ///< number of encoded columns
};

/// Priors of the MAP objective, each a LogNormal(loc, scale) on the positive quantity (its
/// log-density includes the -log(value) term, as GPyTorch's `LogNormalPrior.log_prob`).
struct Priors {
  double lengthscale_loc = 0.0;    ///< numeric lengthscales; set by `hvarfner_priors`
  double lengthscale_scale = 1.0;  ///< sqrt(3) with `hvarfner_priors`
  double categorical_loc = 0.0;    ///< categorical lengthscales
  double categorical_scale = 2.0;
  double outputscale_loc = 0.0;  ///< the scales of the mixed kernel
  double outputscale_scale = 2.0;
  double noise_loc = -4.0;  ///< noise variance, standardized units (BoFire HVARFNER_NOISE_PRIOR)
  double noise_scale = 1.0;
  double min_noise = 1e-6;  ///< noise variance = min_noise + exp(eta), eta free
};

/// Hvarfner et al. (2024), as the BARK paper (App. D.1) prints it: l ~ LogNormal(sqrt2 + log(D)/2,
/// sqrt3) with D the number of numeric dimensions (BoTorch's
/// `get_covar_module_with_dim_scaled_prior`, BoFire's `HVARFNER_LENGTHSCALE_PRIOR`), noise variance
/// ~ LogNormal(-4, 1).
Priors hvarfner_priors(Eigen::Index numeric_dims);

/// Options of the MAP fit.
struct FitOptions {
  int restarts = 3;          ///< random starts drawn from the priors, besides prior_start()
  int max_iterations = 200;  ///< L-BFGS iterations per start
  double epsilon = 1e-5;     ///< liblbfgs: stop when |g| < epsilon * max(1, |theta|)
};

/// Summary of the last MAP fit, for logs and tests.
struct FitReport {
  int starts = 0;          ///< optimizations run
  int failed_starts = 0;   ///< starts that ended without a finite objective
  int evaluations = 0;     ///< objective + gradient evaluations, all starts
  double objective = 0.0;  ///< negative log posterior at the chosen hyperparameters
  double jitter = 0.0;     ///< diagonal added to the final factorization (0 if none)
};

/// The GP. Not thread-safe: `predict` and `sample` use preallocated workspaces (the SDK calls
/// a component from one thread at a time).
///
/// Hyperparameters theta (all logs, unconstrained), in this order:
///   log l_d for each numeric coordinate, log l_c for each categorical coordinate, then the
///   scales: none when there are only numeric coordinates (output scale fixed at 1 on the
///   standardized target, BoFire's Hvarfner setup), log s_h when there are only categorical
///   ones (k = s_h k_h), or log s_x, log s_h, log s_p with both (k = s_x k_x + s_h k_h +
///   s_p k_x k_h), and last eta with noise variance = min_noise + exp(eta).
class GpModel {
 public:
  GpModel(KernelType kernel, Layout layout, Priors priors);

  /// Length of theta.
  Eigen::Index num_hyperparameters() const noexcept { return num_theta_; }
  /// The first start of `fit`: numeric lengthscales and noise at their priors' modes
  /// exp(loc - scale^2) (BoTorch's initial values), scales and categorical lengthscales at 1.
  Eigen::VectorXd prior_start() const;
  /// A draw of theta from the priors (scales and noise included).
  Eigen::VectorXd prior_draw(std::mt19937_64& rng) const;

  /// Stores the training data: X (n x dim, encoded) and y (n, metric units). y is
  /// standardized (mean, sample std with n - 1; std 1 when n = 1 or y is constant).
  /// @throws std::invalid_argument for n = 0, a wrong width or a non-finite value.
  void set_data(const Eigen::MatrixXd& X, const Eigen::VectorXd& y);

  /// Negative log posterior -log p(y | theta) - log p(theta) of the standardized data, and its
  /// gradient in theta when `grad` is not null. +infinity when K cannot be factorized even
  /// with jitter. O(n^3 + n^2 D).
  double neg_log_posterior(const Eigen::VectorXd& theta, Eigen::VectorXd* grad);

  /// MAP: L-BFGS from `prior_start()` and `options.restarts` prior draws (all drawn from
  /// `rng` before any optimization, so the result depends only on the data and rng), keeps
  /// the best end point and factorizes K there.
  /// @throws std::runtime_error when no start reaches a finite objective.
  FitReport fit(std::mt19937_64& rng, const FitOptions& options);

  /// Factorizes K at `theta` without optimizing (tests, fixed hyperparameters).
  /// @throws std::runtime_error when K is not positive definite even with jitter.
  void set_hyperparameters(const Eigen::VectorXd& theta);

  /// Latent mean and variance (no observation noise) in metric units at the rows of X
  /// (m x dim, encoded). Allocates nothing once the output vectors have size m. O(m n^2).
  void predict(const Eigen::MatrixXd& X, Eigen::VectorXd& mean, Eigen::VectorXd& variance) const;

  /// Joint latent samples at the rows of X: out is num_samples x m, metric units. O(m^2 n +
  /// m^3 + num_samples m^2).
  void sample(const Eigen::MatrixXd& X, std::size_t num_samples, std::mt19937_64& rng,
              Eigen::MatrixXd& out) const;

  /// Kernel k(a, b) of two encoded points at the current hyperparameters (standardized units).
  double kernel(const Eigen::VectorXd& a, const Eigen::VectorXd& b) const;

  const Eigen::VectorXd& theta() const noexcept { return theta_; }
  Eigen::VectorXd lengthscales() const;              ///< numeric, in [0,1]-normalized units
  Eigen::VectorXd categorical_lengthscales() const;  ///< categorical
  double noise_variance() const;                     ///< standardized units
  double y_mean() const noexcept { return y_mean_; }
  double y_std() const noexcept { return y_std_; }
  Eigen::Index size() const noexcept { return n_; }
  const Layout& layout() const noexcept { return layout_; }
  KernelType kernel_type() const noexcept { return kernel_; }

 private:
  struct Unpacked {
    double sx = 1.0, sh = 1.0, sp = 0.0;  // scales of k_x, k_h, k_x k_h
    double noise = 0.0;
  };
  Unpacked unpack(const Eigen::VectorXd& theta) const;
  // Radial part g such that dk_x/dlog l_d = g(r) (delta_d / l_d)^2, and k_x itself.
  void radial(double r2, double& k, double& g) const;
  // Fills Zs_ (numeric coordinates / lengthscales) and Hs_ (categorical codes) of the data.
  void scale_inputs(const Eigen::VectorXd& theta);
  // K (without noise) into K_ for theta; returns false on a non-finite entry.
  bool build_covariance(const Eigen::VectorXd& theta);
  // Cholesky of K_ + noise I with growing jitter; sets jitter_. False if every try failed.
  bool factorize(double noise);
  // The query point's scaled numeric coordinates and codes into zq_, hq_.
  void scale_query(const Eigen::MatrixXd& X, Eigen::Index row) const;
  // k(query, training row j) for all j into out.
  void cross_kernel(Eigen::VectorXd& out) const;

  KernelType kernel_;
  Layout layout_;
  Priors priors_;
  Eigen::Index dn_ = 0, dc_ = 0, num_scales_ = 0, num_theta_ = 0;

  // Data.
  Eigen::Index n_ = 0;
  Eigen::MatrixXd Z_;  // n x dn, numeric coordinates in [0, 1]
  Eigen::MatrixXi H_;  // n x dc, category indices
  Eigen::VectorXd y_;  // standardized
  double y_mean_ = 0.0, y_std_ = 1.0;

  // Fit state (at theta_ after fit/set_hyperparameters).
  Eigen::VectorXd theta_;
  Eigen::VectorXd inv_ls_, inv_cat_ls_;
  Unpacked hp_;
  Eigen::MatrixXd Zs_;       // Z_ scaled by 1 / lengthscale
  Eigen::MatrixXd K_;        // kernel matrix without noise
  Eigen::MatrixXd Kx_, Kh_;  // the two factors (mixed kernel only)
  Eigen::LLT<Eigen::MatrixXd> llt_;
  Eigen::VectorXd alpha_;
  double jitter_ = 0.0;
  bool fitted_ = false;

  // Gradient scratch.
  Eigen::MatrixXd W_;

  // Prediction workspaces (mutable: predict is const and must not allocate per point).
  mutable Eigen::VectorXd zq_, kq_, vq_;
  mutable Eigen::VectorXi hq_;
};

}  // namespace arbo::plugins::gp
