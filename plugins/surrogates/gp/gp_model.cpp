// SPDX-License-Identifier: MIT
#include "gp_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include <lbfgs.h>

namespace arbo::plugins::gp {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kSqrt5 = 2.23606797749978969641;
constexpr double kLogSqrt2Pi = 0.91893853320467274178;  // log(sqrt(2 pi))
// |theta| beyond this is exp-overflow territory (l = e^40); no prior puts mass there.
constexpr double kThetaLimit = 40.0;

// -log LogNormal(v; loc, scale) written in t = log v, and its derivative in t. The -log v
// Jacobian term is kept (GPyTorch's LogNormalPrior.log_prob is the density of v), so the
// mode of the prior in v is exp(loc - scale^2), as in BoTorch's MAP fits.
double neg_log_lognormal(double t, double loc, double scale, double* dt) {
  const double z = (t - loc) / scale;
  if (dt != nullptr) *dt = 1.0 + z / scale;
  return t + 0.5 * z * z + std::log(scale) + kLogSqrt2Pi;
}

// liblbfgs adapter: the instance is the model; exceptions must not cross the C library.
struct Problem {
  GpModel* model;
  Eigen::VectorXd theta, grad;
  int evaluations = 0;
};

lbfgsfloatval_t evaluate(void* instance, const lbfgsfloatval_t* x, lbfgsfloatval_t* g, const int n,
                         const lbfgsfloatval_t /*step*/) {
  auto& p = *static_cast<Problem*>(instance);
  ++p.evaluations;
  p.theta = Eigen::Map<const Eigen::VectorXd>(x, n);
  double f = kInf;
  try {
    f = p.model->neg_log_posterior(p.theta, &p.grad);
  } catch (...) {
    f = kInf;
  }
  if (!std::isfinite(f) || !p.grad.allFinite()) {
    // A huge finite value with a zero gradient makes the backtracking line search shrink the
    // step instead of producing NaN (liblbfgs has no notion of an infeasible point).
    std::fill(g, g + n, 0.0);
    return 1e300;
  }
  Eigen::Map<Eigen::VectorXd>(g, n) = p.grad;
  return f;
}

}  // namespace

Priors hvarfner_priors(Eigen::Index numeric_dims) {
  Priors p;
  p.lengthscale_loc =
      std::sqrt(2.0) + 0.5 * std::log(static_cast<double>(std::max<Eigen::Index>(numeric_dims, 1)));
  p.lengthscale_scale = std::sqrt(3.0);
  return p;
}

GpModel::GpModel(KernelType kernel, Layout layout, Priors priors)
    : kernel_(kernel), layout_(std::move(layout)), priors_(priors) {
  dn_ = static_cast<Eigen::Index>(layout_.numeric.size());
  dc_ = static_cast<Eigen::Index>(layout_.categorical.size());
  if (dn_ + dc_ == 0) throw std::invalid_argument("the GP needs at least one coordinate");
  if (layout_.lower.size() != dn_ || layout_.range.size() != dn_ ||
      (layout_.range.array() <= 0.0).any()) {
    throw std::invalid_argument(
        "numeric layout needs one lower bound and one positive range "
        "per numeric column");
  }
  num_scales_ = dc_ == 0 ? 0 : (dn_ == 0 ? 1 : 3);
  num_theta_ = dn_ + dc_ + num_scales_ + 1;
  zq_.resize(dn_);
  hq_.resize(dc_);
}

Eigen::VectorXd GpModel::prior_start() const {
  // BoTorch initializes the lengthscales and the noise at their priors' modes (exp(loc -
  // scale^2)); the weak LogNormal(0, 2) priors of the scales and categorical lengthscales have
  // their mode at e^-4, a degenerate start, so those start at their median, 1.
  Eigen::VectorXd t(num_theta_);
  t.head(dn_).setConstant(priors_.lengthscale_loc -
                          priors_.lengthscale_scale * priors_.lengthscale_scale);
  t.segment(dn_, dc_).setConstant(priors_.categorical_loc);
  t.segment(dn_ + dc_, num_scales_).setConstant(priors_.outputscale_loc);
  const double noise = std::exp(priors_.noise_loc - priors_.noise_scale * priors_.noise_scale);
  t[num_theta_ - 1] = std::log(std::max(noise - priors_.min_noise, 1e-12));
  return t;
}

Eigen::VectorXd GpModel::prior_draw(std::mt19937_64& rng) const {
  std::normal_distribution<double> normal(0.0, 1.0);
  Eigen::VectorXd t(num_theta_);
  for (Eigen::Index d = 0; d < dn_; ++d) {
    t[d] = priors_.lengthscale_loc + priors_.lengthscale_scale * normal(rng);
  }
  for (Eigen::Index c = 0; c < dc_; ++c) {
    t[dn_ + c] = priors_.categorical_loc + priors_.categorical_scale * normal(rng);
  }
  for (Eigen::Index s = 0; s < num_scales_; ++s) {
    t[dn_ + dc_ + s] = priors_.outputscale_loc + priors_.outputscale_scale * normal(rng);
  }
  const double noise = std::exp(priors_.noise_loc + priors_.noise_scale * normal(rng));
  t[num_theta_ - 1] = std::log(std::max(noise - priors_.min_noise, 1e-12));
  // Draws from a prior with scale sqrt(3) can land far in the tails (l = e^6 or e^-4), where
  // the objective is flat; keep starts inside a box the optimizer can leave.
  return t.cwiseMax(-15.0).cwiseMin(15.0);
}

void GpModel::set_data(const Eigen::MatrixXd& X, const Eigen::VectorXd& y) {
  if (X.rows() == 0) throw std::invalid_argument("no observations");
  if (X.cols() != layout_.dim || y.size() != X.rows()) {
    throw std::invalid_argument("data of " + std::to_string(X.cols()) + " columns and " +
                                std::to_string(y.size()) + " targets for " +
                                std::to_string(X.rows()) + " rows; the layout has " +
                                std::to_string(layout_.dim) + " columns");
  }
  if (!X.allFinite() || !y.allFinite()) throw std::invalid_argument("non-finite data");
  n_ = X.rows();
  Z_.resize(dn_, n_);
  H_.resize(dc_, n_);
  for (Eigen::Index i = 0; i < n_; ++i) {
    for (Eigen::Index d = 0; d < dn_; ++d) {
      Z_(d, i) = (X(i, layout_.numeric[d]) - layout_.lower[d]) / layout_.range[d];
    }
    for (Eigen::Index c = 0; c < dc_; ++c) {
      H_(c, i) = static_cast<int>(std::lround(X(i, layout_.categorical[c])));
    }
  }
  // BoTorch's Standardize: mean and the unbiased standard deviation; a constant target (or a
  // single observation) keeps std 1 so that the model stays defined.
  y_mean_ = y.mean();
  y_std_ = 1.0;
  if (n_ > 1) {
    const double var = (y.array() - y_mean_).square().sum() / static_cast<double>(n_ - 1);
    const double sd = std::sqrt(var);
    if (sd > 1e-12 * std::max(1.0, std::abs(y_mean_))) y_std_ = sd;
  }
  y_ = (y.array() - y_mean_) / y_std_;
  fitted_ = false;
  kq_.resize(n_);
  vq_.resize(n_);
}

GpModel::Unpacked GpModel::unpack(const Eigen::VectorXd& theta) const {
  Unpacked u;
  const Eigen::Index s = dn_ + dc_;
  if (num_scales_ == 1) {
    u.sx = 0.0;
    u.sh = std::exp(theta[s]);
  } else if (num_scales_ == 3) {
    u.sx = std::exp(theta[s]);
    u.sh = std::exp(theta[s + 1]);
    u.sp = std::exp(theta[s + 2]);
  }
  u.noise = priors_.min_noise + std::exp(theta[num_theta_ - 1]);
  return u;
}

void GpModel::radial(double r2, double& k, double& g) const {
  if (kernel_ == KernelType::SquaredExponential) {
    k = std::exp(-0.5 * r2);
    g = k;
  } else {
    const double r = std::sqrt(r2);
    const double e = std::exp(-kSqrt5 * r);
    k = (1.0 + kSqrt5 * r + (5.0 / 3.0) * r2) * e;
    g = (5.0 / 3.0) * (1.0 + kSqrt5 * r) * e;
  }
}

void GpModel::scale_inputs(const Eigen::VectorXd& theta) {
  inv_ls_ = (-theta.head(dn_)).array().exp();
  inv_cat_ls_ = (-theta.segment(dn_, dc_)).array().exp();
  Zs_ = inv_ls_.asDiagonal() * Z_;
}

bool GpModel::build_covariance(const Eigen::VectorXd& theta) {
  scale_inputs(theta);
  const Unpacked u = unpack(theta);
  const bool mixed = num_scales_ == 3;
  K_.resize(n_, n_);
  if (mixed) {
    Kx_.resize(n_, n_);
    Kh_.resize(n_, n_);
  }
  const double inv_dc = dc_ > 0 ? 1.0 / static_cast<double>(dc_) : 0.0;
  for (Eigen::Index j = 0; j < n_; ++j) {
    for (Eigen::Index i = j; i < n_; ++i) {
      double kx = 1.0, g = 0.0, kh = 1.0;
      if (dn_ > 0) radial((Zs_.col(i) - Zs_.col(j)).squaredNorm(), kx, g);
      if (dc_ > 0) {
        double s = 0.0;
        for (Eigen::Index c = 0; c < dc_; ++c) {
          if (H_(c, i) != H_(c, j)) s += inv_cat_ls_[c];
        }
        kh = std::exp(-s * inv_dc);
      }
      double k = kx;
      if (num_scales_ == 1) k = u.sh * kh;
      if (mixed) {
        k = u.sx * kx + u.sh * kh + u.sp * kx * kh;
        Kx_(i, j) = Kx_(j, i) = kx;
        Kh_(i, j) = Kh_(j, i) = kh;
      }
      K_(i, j) = K_(j, i) = k;
    }
  }
  return K_.allFinite();
}

bool GpModel::factorize(double noise) {
  // K + noise I is positive definite in exact arithmetic (noise >= min_noise > 0); round-off
  // can still break the factorization when K is nearly singular (long lengthscales, repeated
  // points), so jitter grows tenfold up to 1e-4 (standardized units) before giving up.
  Eigen::MatrixXd A = K_;
  jitter_ = 0.0;
  for (int attempt = 0; attempt < 6; ++attempt) {
    A.diagonal() = K_.diagonal().array() + noise + jitter_;
    llt_.compute(A);
    if (llt_.info() == Eigen::Success && llt_.matrixLLT().diagonal().minCoeff() > 0.0) {
      return true;
    }
    jitter_ = jitter_ == 0.0 ? 1e-9 : jitter_ * 10.0;
  }
  return false;
}

double GpModel::neg_log_posterior(const Eigen::VectorXd& theta, Eigen::VectorXd* grad) {
  if (theta.size() != num_theta_) throw std::invalid_argument("theta has the wrong length");
  if (n_ == 0) throw std::logic_error("neg_log_posterior before set_data");
  if (grad != nullptr) grad->setZero(num_theta_);
  if (!theta.allFinite() || theta.cwiseAbs().maxCoeff() > kThetaLimit) return kInf;
  if (!build_covariance(theta)) return kInf;
  const Unpacked u = unpack(theta);
  if (!factorize(u.noise)) return kInf;
  const Eigen::VectorXd alpha = llt_.solve(y_);
  const double n = static_cast<double>(n_);
  double f =
      0.5 * y_.dot(alpha) + llt_.matrixLLT().diagonal().array().log().sum() + n * kLogSqrt2Pi;

  // Priors (Hvarfner et al. 2024 for lengthscales and noise; our weak ones elsewhere).
  Eigen::VectorXd prior_grad(num_theta_);
  for (Eigen::Index d = 0; d < dn_; ++d) {
    f += neg_log_lognormal(theta[d], priors_.lengthscale_loc, priors_.lengthscale_scale,
                           &prior_grad[d]);
  }
  for (Eigen::Index c = 0; c < dc_; ++c) {
    const Eigen::Index k = dn_ + c;
    f += neg_log_lognormal(theta[k], priors_.categorical_loc, priors_.categorical_scale,
                           &prior_grad[k]);
  }
  for (Eigen::Index s = 0; s < num_scales_; ++s) {
    const Eigen::Index k = dn_ + dc_ + s;
    f += neg_log_lognormal(theta[k], priors_.outputscale_loc, priors_.outputscale_scale,
                           &prior_grad[k]);
  }
  {
    // The prior is on the noise variance v = min_noise + e^eta: chain rule dv/deta = e^eta.
    const Eigen::Index k = num_theta_ - 1;
    double dlogv = 0.0;
    f += neg_log_lognormal(std::log(u.noise), priors_.noise_loc, priors_.noise_scale, &dlogv);
    prior_grad[k] = dlogv / u.noise * std::exp(theta[k]);
  }
  if (grad == nullptr) return f;

  // d(-log p(y|theta))/dtheta_j = 1/2 tr((K^-1 - alpha alpha') dK/dtheta_j) (Rasmussen &
  // Williams 2006, Eq. 5.9). W is symmetric: off-diagonal pairs are visited once, twice
  // weighted.
  W_ = llt_.solve(Eigen::MatrixXd::Identity(n_, n_));
  W_.noalias() -= alpha * alpha.transpose();
  Eigen::VectorXd& gr = *grad;
  const bool mixed = num_scales_ == 3;
  const Eigen::Index s0 = dn_ + dc_;
  const double inv_dc = dc_ > 0 ? 1.0 / static_cast<double>(dc_) : 0.0;
  for (Eigen::Index j = 0; j < n_; ++j) {
    // Diagonal: k(x, x) = sum of the scales; no lengthscale dependence.
    const double wd = 0.5 * W_(j, j);
    if (num_scales_ == 1) gr[s0] += wd * u.sh;
    if (mixed) {
      gr[s0] += wd * u.sx;
      gr[s0 + 1] += wd * u.sh;
      gr[s0 + 2] += wd * u.sp;
    }
    gr[num_theta_ - 1] += wd * std::exp(theta[num_theta_ - 1]);
    for (Eigen::Index i = j + 1; i < n_; ++i) {
      const double w = W_(i, j);  // 2 * 1/2
      double kx = 1.0, g = 0.0, kh = 1.0;
      if (dn_ > 0) radial((Zs_.col(i) - Zs_.col(j)).squaredNorm(), kx, g);
      if (dc_ > 0) kh = mixed ? Kh_(i, j) : K_(i, j) / u.sh;
      if (dn_ > 0) {
        // dk/dlog l_d = (s_x + s_p k_h) g(r) (delta_d / l_d)^2.
        const double cx = w * g * (mixed ? u.sx + u.sp * kh : 1.0);
        for (Eigen::Index d = 0; d < dn_; ++d) {
          const double delta = Zs_(d, i) - Zs_(d, j);
          gr[d] += cx * delta * delta;
        }
      }
      if (dc_ > 0) {
        // dk/dlog l_c = (s_h + s_p k_x) k_h [h_c != h'_c] / (l_c C).
        const double ch = w * kh * inv_dc * (mixed ? u.sh + u.sp * kx : u.sh);
        for (Eigen::Index c = 0; c < dc_; ++c) {
          if (H_(c, i) != H_(c, j)) gr[dn_ + c] += ch * inv_cat_ls_[c];
        }
      }
      if (num_scales_ == 1) gr[s0] += w * u.sh * kh;
      if (mixed) {
        gr[s0] += w * u.sx * kx;
        gr[s0 + 1] += w * u.sh * kh;
        gr[s0 + 2] += w * u.sp * kx * kh;
      }
    }
  }
  gr += prior_grad;
  return f;
}

FitReport GpModel::fit(std::mt19937_64& rng, const FitOptions& options) {
  if (n_ == 0) throw std::logic_error("fit before set_data");
  // Every start is drawn before any optimization, so the number of draws (and the result)
  // does not depend on how the optimizations went.
  std::vector<Eigen::VectorXd> starts{prior_start()};
  for (int r = 0; r < options.restarts; ++r) starts.push_back(prior_draw(rng));

  lbfgs_parameter_t param;
  lbfgs_parameter_init(&param);
  param.max_iterations = options.max_iterations;
  param.epsilon = options.epsilon;
  // Backtracking (Wolfe) copes with the huge value returned where K cannot be factorized: it
  // halves the step, where More-Thuente would interpolate through it.
  param.linesearch = LBFGS_LINESEARCH_BACKTRACKING;
  // No delta test (past = 0): liblbfgs measures the decrease relative to f itself, which stops
  // at once when the log posterior is negative, as it is for well-fitted data.
  param.past = 0;

  FitReport report;
  Problem problem{this, Eigen::VectorXd(num_theta_), Eigen::VectorXd(num_theta_)};
  lbfgsfloatval_t* x = lbfgs_malloc(static_cast<int>(num_theta_));
  if (x == nullptr) throw std::bad_alloc();
  double best = kInf;
  Eigen::VectorXd best_theta;
  for (const Eigen::VectorXd& start : starts) {
    ++report.starts;
    std::copy(start.data(), start.data() + num_theta_, x);
    lbfgsfloatval_t fx = kInf;
    lbfgs(static_cast<int>(num_theta_), x, &fx, evaluate, nullptr, &problem, &param);
    // Whatever the return code (a line search that cannot improve any further is the usual
    // end near an optimum), x holds the last accepted point and fx its value.
    if (!std::isfinite(fx) || fx >= 1e299) {
      ++report.failed_starts;
      continue;
    }
    if (fx < best) {
      best = fx;
      best_theta = Eigen::Map<const Eigen::VectorXd>(x, num_theta_);
    }
  }
  lbfgs_free(x);
  report.evaluations = problem.evaluations;
  if (!std::isfinite(best)) {
    throw std::runtime_error("no hyperparameter start reached a finite log posterior (" +
                             std::to_string(report.starts) +
                             " starts); the kernel matrix is not positive definite even with "
                             "jitter 1e-4");
  }
  set_hyperparameters(best_theta);
  report.objective = best;
  report.jitter = jitter_;
  return report;
}

void GpModel::set_hyperparameters(const Eigen::VectorXd& theta) {
  if (n_ == 0) throw std::logic_error("set_hyperparameters before set_data");
  if (theta.size() != num_theta_ || !theta.allFinite()) {
    throw std::invalid_argument("theta has the wrong length or a non-finite entry");
  }
  if (!build_covariance(theta)) throw std::runtime_error("non-finite kernel matrix");
  hp_ = unpack(theta);
  if (!factorize(hp_.noise)) {
    throw std::runtime_error("the kernel matrix is not positive definite even with jitter 1e-4");
  }
  theta_ = theta;
  alpha_ = llt_.solve(y_);
  fitted_ = true;
  // The pair kernels of the fit are not needed by predict; free them.
  Kx_.resize(0, 0);
  Kh_.resize(0, 0);
  W_.resize(0, 0);
}

void GpModel::scale_query(const Eigen::MatrixXd& X, Eigen::Index row) const {
  for (Eigen::Index d = 0; d < dn_; ++d) {
    zq_[d] = (X(row, layout_.numeric[d]) - layout_.lower[d]) / layout_.range[d] * inv_ls_[d];
  }
  for (Eigen::Index c = 0; c < dc_; ++c) {
    hq_[c] = static_cast<int>(std::lround(X(row, layout_.categorical[c])));
  }
}

void GpModel::cross_kernel(Eigen::VectorXd& out) const {
  const double inv_dc = dc_ > 0 ? 1.0 / static_cast<double>(dc_) : 0.0;
  for (Eigen::Index j = 0; j < n_; ++j) {
    double kx = 1.0, g = 0.0, kh = 1.0;
    if (dn_ > 0) radial((Zs_.col(j) - zq_).squaredNorm(), kx, g);
    if (dc_ > 0) {
      double s = 0.0;
      for (Eigen::Index c = 0; c < dc_; ++c) {
        if (H_(c, j) != hq_[c]) s += inv_cat_ls_[c];
      }
      kh = std::exp(-s * inv_dc);
    }
    out[j] = num_scales_ == 0   ? kx
             : num_scales_ == 1 ? hp_.sh * kh
                                : hp_.sx * kx + hp_.sh * kh + hp_.sp * kx * kh;
  }
}

void GpModel::predict(const Eigen::MatrixXd& X, Eigen::VectorXd& mean,
                      Eigen::VectorXd& variance) const {
  if (!fitted_) throw std::logic_error("predict before fit");
  if (X.cols() != layout_.dim) throw std::invalid_argument("wrong number of columns");
  const Eigen::Index m = X.rows();
  mean.resize(m);
  variance.resize(m);
  const double prior = num_scales_ == 0 ? 1.0 : hp_.sx + hp_.sh + hp_.sp;
  const double var_scale = y_std_ * y_std_;
  const auto L = llt_.matrixL();
  for (Eigen::Index r = 0; r < m; ++r) {
    scale_query(X, r);
    cross_kernel(kq_);
    // Latent posterior (Rasmussen & Williams 2006, Eq. 2.25-2.26, Alg. 2.1): mean k'alpha,
    // variance k(x, x) - |L^-1 k|^2; the observation noise is not added.
    mean[r] = y_mean_ + y_std_ * kq_.dot(alpha_);
    vq_ = kq_;
    L.solveInPlace(vq_);
    variance[r] = std::max(prior - vq_.squaredNorm(), 0.0) * var_scale;
  }
}

void GpModel::sample(const Eigen::MatrixXd& X, std::size_t num_samples, std::mt19937_64& rng,
                     Eigen::MatrixXd& out) const {
  if (!fitted_) throw std::logic_error("sample before fit");
  if (X.cols() != layout_.dim) throw std::invalid_argument("wrong number of columns");
  const Eigen::Index m = X.rows();
  Eigen::MatrixXd Kq(n_, m), Zq(dn_, m);
  Eigen::MatrixXi Hq(dc_, m);
  for (Eigen::Index r = 0; r < m; ++r) {
    scale_query(X, r);
    cross_kernel(kq_);
    Kq.col(r) = kq_;
    Zq.col(r) = zq_;
    Hq.col(r) = hq_;
  }
  const Eigen::VectorXd mu = Kq.transpose() * alpha_;
  const Eigen::MatrixXd V = llt_.matrixL().solve(Kq);
  Eigen::MatrixXd S(m, m);
  const double inv_dc = dc_ > 0 ? 1.0 / static_cast<double>(dc_) : 0.0;
  for (Eigen::Index j = 0; j < m; ++j) {
    for (Eigen::Index i = j; i < m; ++i) {
      double kx = 1.0, g = 0.0, kh = 1.0;
      if (dn_ > 0) radial((Zq.col(i) - Zq.col(j)).squaredNorm(), kx, g);
      if (dc_ > 0) {
        double s = 0.0;
        for (Eigen::Index c = 0; c < dc_; ++c) {
          if (Hq(c, i) != Hq(c, j)) s += inv_cat_ls_[c];
        }
        kh = std::exp(-s * inv_dc);
      }
      S(i, j) = S(j, i) = num_scales_ == 0   ? kx
                          : num_scales_ == 1 ? hp_.sh * kh
                                             : hp_.sx * kx + hp_.sh * kh + hp_.sp * kx * kh;
    }
  }
  S.noalias() -= V.transpose() * V;
  // The predictive covariance is only positive semidefinite (repeated or training points);
  // jitter relative to its diagonal makes it factorizable.
  const double base = std::max(S.diagonal().cwiseAbs().maxCoeff(), 1e-300);
  Eigen::LLT<Eigen::MatrixXd> chol;
  for (double jitter = 1e-10;; jitter *= 10.0) {
    Eigen::MatrixXd A = S;
    A.diagonal().array() += jitter * base;
    chol.compute(A);
    if (chol.info() == Eigen::Success) break;
    if (jitter > 1e-2) throw std::runtime_error("predictive covariance is not factorizable");
  }
  std::normal_distribution<double> normal(0.0, 1.0);
  out.resize(static_cast<Eigen::Index>(num_samples), m);
  Eigen::VectorXd z(m);
  for (std::size_t s = 0; s < num_samples; ++s) {
    for (Eigen::Index i = 0; i < m; ++i) z[i] = normal(rng);
    out.row(static_cast<Eigen::Index>(s)) =
        ((mu + chol.matrixL() * z).array() * y_std_ + y_mean_).transpose();
  }
}

double GpModel::kernel(const Eigen::VectorXd& a, const Eigen::VectorXd& b) const {
  if (!fitted_) throw std::logic_error("kernel before fit");
  double r2 = 0.0, s = 0.0;
  for (Eigen::Index d = 0; d < dn_; ++d) {
    const Eigen::Index col = layout_.numeric[d];
    const double delta = (a[col] - b[col]) / layout_.range[d] * inv_ls_[d];
    r2 += delta * delta;
  }
  for (Eigen::Index c = 0; c < dc_; ++c) {
    const Eigen::Index col = layout_.categorical[c];
    if (std::lround(a[col]) != std::lround(b[col])) s += inv_cat_ls_[c];
  }
  double kx = 1.0, g = 0.0;
  if (dn_ > 0) radial(r2, kx, g);
  const double kh = dc_ > 0 ? std::exp(-s / static_cast<double>(dc_)) : 1.0;
  return num_scales_ == 0   ? kx
         : num_scales_ == 1 ? hp_.sh * kh
                            : hp_.sx * kx + hp_.sh * kh + hp_.sp * kx * kh;
}

Eigen::VectorXd GpModel::lengthscales() const { return theta_.head(dn_).array().exp(); }

Eigen::VectorXd GpModel::categorical_lengthscales() const {
  return theta_.segment(dn_, dc_).array().exp();
}

double GpModel::noise_variance() const { return hp_.noise; }

}  // namespace arbo::plugins::gp
