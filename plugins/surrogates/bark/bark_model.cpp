// SPDX-License-Identifier: MIT
#include "bark_model.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <thread>

#include <fmt/format.h>
#include <Eigen/Cholesky>
#include <boost/random/gamma_distribution.hpp>
#include <boost/random/normal_distribution.hpp>
#include <boost/random/uniform_int_distribution.hpp>

#include <arbo/sdk/error.hpp>

namespace arbo::plugins::bark {

Tree sample_prior_tree(const Domain& domain, double alpha, double beta, Rng& rng) {
  Tree t;
  std::vector<int> open;
  for (int attempt = 0; attempt < 100000; ++attempt) {
    t.reset();
    open.assign(1, 0);
    bool valid = true;
    while (!open.empty() && valid) {
      const int id = open.back();
      open.pop_back();
      const double p = alpha * std::pow(1.0 + t.node(id).depth, -beta);
      if (!(rng.uniform() < p)) continue;
      Rule rule;
      if (!draw_rule(t, id, domain, rng, rule)) {
        valid = false;
        break;
      }
      int right = -1;
      const int left = t.grow(id, rule, right);
      open.push_back(right);
      open.push_back(left);
    }
    if (valid) return t;
  }
  t.reset();
  return t;
}

BarkModel::BarkModel(const Domain& domain, const BarkConfig& config)
    : domain_(domain), config_(config) {
  if (!config_.prior_only) {
    chains_.reserve(static_cast<std::size_t>(config_.chains));
    for (int c = 0; c < config_.chains; ++c) chains_.emplace_back(domain_, config_.chain);
  }
}

void BarkModel::finish_sample(Sample& s) const {
  const auto m = s.trees.size();
  const Eigen::Index n = s.alpha.size();
  s.leaf_column.assign(m, {});
  int ncols = 0;
  for (std::size_t t = 0; t < m; ++t) {
    const auto& nodes = s.trees[t].nodes();
    s.leaf_column[t].assign(nodes.size(), -1);
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      if (!nodes[i].is_free() && nodes[i].is_leaf()) s.leaf_column[t][i] = ncols++;
    }
  }
  // k_phi' (columns x n): row c = sum of K^-1's rows over the points of leaf c (K^-1 is
  // symmetric, so columns are summed); then b(:, c) = sum over the points i of c of k_phi'(:, i).
  Eigen::MatrixXd kphi_t = Eigen::MatrixXd::Zero(ncols, n);
  s.beta = Eigen::VectorXd::Zero(ncols);
  for (std::size_t t = 0; t < m; ++t) {
    for (Eigen::Index i = 0; i < n; ++i) {
      const int c =
          s.leaf_column[t][static_cast<std::size_t>(s.leaf_of[t][static_cast<std::size_t>(i)])];
      kphi_t.row(c) += s.k_inverse.col(i).transpose();
      s.beta[c] += s.alpha[i];
    }
  }
  s.b = Eigen::MatrixXd::Zero(ncols, ncols);
  for (std::size_t t = 0; t < m; ++t) {
    for (Eigen::Index i = 0; i < n; ++i) {
      const int c =
          s.leaf_column[t][static_cast<std::size_t>(s.leaf_of[t][static_cast<std::size_t>(i)])];
      s.b.col(c) += kphi_t.col(i);
    }
  }
}

void BarkModel::fit(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, std::mt19937_64& rng) {
  const auto start = std::chrono::steady_clock::now();
  if (X.rows() == 0 || X.rows() != y.size()) {
    throw sdk::Error("surrogate/bark: fit needs at least one observation");
  }
  // Standardization (reference code: population std, floored at 1e-6), at every fit.
  y_mean_ = y.mean();
  const double sd = std::sqrt((y.array() - y_mean_).square().mean());
  y_scale_ = std::max(sd, 1e-6);
  const Eigen::VectorXd ys = (y.array() - y_mean_) / y_scale_;
  samples_.clear();
  stats_ = FitStats{};

  if (config_.prior_only) {
    // BARKPrior (Sec. 7, App. D): forests from the tree prior and the noise from the
    // reference code's Gamma(2.5, rate 9), no likelihood; kernels then conditioned on the data.
    Rng r(rng());
    boost::random::gamma_distribution<double> gamma(config_.prior_noise_shape,
                                                    1.0 / config_.prior_noise_rate);
    for (int k = 0; k < config_.prior_samples; ++k) {
      std::vector<Tree> trees;
      for (int t = 0; t < config_.chain.num_trees; ++t) {
        trees.push_back(sample_prior_tree(domain_, config_.chain.alpha, config_.chain.beta, r));
      }
      const double noise = std::max(gamma(r.engine), 1e-12);
      Chain c(domain_, config_.chain);
      c.set_trees(std::move(trees), noise);
      c.set_data(X, ys);
      Sample s;
      s.trees = c.trees();
      s.noise = c.noise();
      s.k_inverse = c.k_inverse();
      s.alpha = c.alpha();
      s.leaf_of = c.leaf_of();
      s.chain = k;
      finish_sample(s);
      samples_.push_back(std::move(s));
    }
    stats_.wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return;
  }

  const int nchains = config_.chains;
  std::vector<std::uint64_t> seeds(static_cast<std::size_t>(nchains));
  for (auto& s : seeds) s = rng();
  const int burn = warm_ ? 0 : config_.burn_in;
  std::vector<std::vector<Sample>> per_chain(static_cast<std::size_t>(nchains));
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(nchains));
  const auto run_chain = [&](int c) {
    try {
      Chain& chain = chains_[static_cast<std::size_t>(c)];
      Rng r(seeds[static_cast<std::size_t>(c)]);
      chain.set_data(X, ys);
      chain.reset_stats();
      for (int k = 0; k < burn; ++k) chain.sweep(r);
      for (int k = 1; k <= config_.sweeps; ++k) {
        chain.sweep(r);
        if (k % config_.thinning != 0) continue;
        Sample s;
        s.trees = chain.trees();
        s.noise = chain.noise();
        s.k_inverse = chain.k_inverse();
        s.alpha = chain.alpha();
        s.leaf_of = chain.leaf_of();
        s.chain = c;
        s.sweep = k;
        finish_sample(s);
        per_chain[static_cast<std::size_t>(c)].push_back(std::move(s));
      }
    } catch (...) {
      errors[static_cast<std::size_t>(c)] = std::current_exception();
    }
  };
  const int nthreads = std::max(1, std::min(config_.threads, nchains));
  if (nthreads == 1) {
    for (int c = 0; c < nchains; ++c) run_chain(c);
  } else {
    std::vector<std::thread> workers;
    for (int w = 0; w < nthreads; ++w) {
      workers.emplace_back([&, w] {
        for (int c = w; c < nchains; c += nthreads) run_chain(c);
      });
    }
    for (auto& w : workers) w.join();
  }
  for (auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  for (auto& v : per_chain) {
    for (auto& s : v) samples_.push_back(std::move(s));
  }
  warm_ = true;
  for (const Chain& c : chains_) {
    const ChainStats& cs = c.stats();
    stats_.tree_seconds += cs.tree_seconds;
    stats_.noise_seconds += cs.noise_seconds;
    for (std::size_t k = 0; k < 3; ++k) {
      stats_.proposed[k] += cs.proposed[k];
      stats_.accepted[k] += cs.accepted[k];
      stats_.invalid[k] += cs.invalid[k];
    }
    stats_.noise_proposed += cs.noise_proposed;
    stats_.noise_accepted += cs.noise_accepted;
  }
  stats_.sweeps_per_chain = burn + config_.sweeps;
  stats_.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void BarkModel::columns(const Sample& s, const double* x, int* cols) const {
  for (std::size_t t = 0; t < s.trees.size(); ++t) {
    cols[t] = s.leaf_column[t][static_cast<std::size_t>(s.trees[t].route(x))];
  }
}

void BarkModel::predict_one(const Sample& s, const int* cols, double& mu, double& var) const {
  const auto m = static_cast<int>(s.trees.size());
  const double w = config_.chain.signal_variance / m;
  double sum_beta = 0.0;
  double quad = 0.0;
  for (int t = 0; t < m; ++t) {
    sum_beta += s.beta[cols[t]];
    const double* bcol = s.b.col(cols[t]).data();
    double row = 0.0;
    for (int u = 0; u < m; ++u) row += bcol[cols[u]];
    quad += row;
  }
  mu = w * sum_beta;
  var = std::max(0.0, config_.chain.signal_variance - w * w * quad);
  if (config_.noisy_variance) var += s.noise;
}

void BarkModel::predict(const Eigen::MatrixXd& X, Eigen::VectorXd& mean,
                        Eigen::VectorXd& variance) const {
  if (samples_.empty()) throw sdk::Error("surrogate/bark: predict before fit");
  const Eigen::Index n = X.rows();
  mean.resize(n);
  variance.resize(n);
  const std::size_t ns = samples_.size();
  std::vector<double> x(static_cast<std::size_t>(X.cols()));
  std::vector<int> cols(static_cast<std::size_t>(config_.chain.num_trees));
  std::vector<double> mus(ns), vars(ns);
  for (Eigen::Index i = 0; i < n; ++i) {
    copy_row(X, i, x.data());
    double mbar = 0.0;
    double vbar = 0.0;
    for (std::size_t k = 0; k < ns; ++k) {
      columns(samples_[k], x.data(), cols.data());
      predict_one(samples_[k], cols.data(), mus[k], vars[k]);
      mbar += mus[k];
      vbar += vars[k];
    }
    mbar /= static_cast<double>(ns);
    double spread = 0.0;
    for (std::size_t k = 0; k < ns; ++k) spread += (mus[k] - mbar) * (mus[k] - mbar);
    // avg(sigma_s^2 + mu_s^2) - mean^2, written without the cancellation.
    const double v = (vbar + spread) / static_cast<double>(ns);
    mean[i] = y_mean_ + y_scale_ * mbar;
    variance[i] = y_scale_ * y_scale_ * v;
  }
}

void BarkModel::predict_samples(const Eigen::MatrixXd& X, Eigen::MatrixXd& means,
                                Eigen::MatrixXd& variances) const {
  if (samples_.empty()) throw sdk::Error("surrogate/bark: predict before fit");
  const auto ns = static_cast<Eigen::Index>(samples_.size());
  means.resize(ns, X.rows());
  variances.resize(ns, X.rows());
  std::vector<double> x(static_cast<std::size_t>(X.cols()));
  std::vector<int> cols(static_cast<std::size_t>(config_.chain.num_trees));
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    copy_row(X, i, x.data());
    for (Eigen::Index k = 0; k < ns; ++k) {
      double mu = 0.0, var = 0.0;
      columns(samples_[static_cast<std::size_t>(k)], x.data(), cols.data());
      predict_one(samples_[static_cast<std::size_t>(k)], cols.data(), mu, var);
      means(k, i) = y_mean_ + y_scale_ * mu;
      variances(k, i) = y_scale_ * y_scale_ * var;
    }
  }
}

void BarkModel::sample(const Eigen::MatrixXd& X, std::size_t num, std::mt19937_64& rng,
                       Eigen::MatrixXd& out) const {
  if (samples_.empty()) throw sdk::Error("surrogate/bark: sample before fit");
  const Eigen::Index n = X.rows();
  const auto m = static_cast<std::size_t>(config_.chain.num_trees);
  out.resize(static_cast<Eigen::Index>(num), n);
  boost::random::uniform_int_distribution<std::size_t> pick(0, samples_.size() - 1);
  boost::random::normal_distribution<double> normal;
  std::vector<std::size_t> component(num);
  for (auto& c : component) c = pick(rng);
  std::vector<double> x(static_cast<std::size_t>(X.cols()));
  std::vector<int> cols(m * static_cast<std::size_t>(n));
  const double w = config_.chain.signal_variance / static_cast<double>(m);
  for (std::size_t k = 0; k < samples_.size(); ++k) {
    if (std::find(component.begin(), component.end(), k) == component.end()) continue;
    const Sample& s = samples_[k];
    Eigen::VectorXd mu(n);
    Eigen::MatrixXd cov(n, n);
    for (Eigen::Index i = 0; i < n; ++i) {
      copy_row(X, i, x.data());
      columns(s, x.data(), cols.data() + static_cast<std::size_t>(i) * m);
      double var = 0.0;
      predict_one(s, cols.data() + static_cast<std::size_t>(i) * m, mu[i], var);
    }
    // Sigma_s(a, b) = k(a, b) - k_a' K^-1 k_b (+ noise on the diagonal when noisy_variance).
    for (Eigen::Index a = 0; a < n; ++a) {
      const int* ca = cols.data() + static_cast<std::size_t>(a) * m;
      for (Eigen::Index b = 0; b <= a; ++b) {
        const int* cb = cols.data() + static_cast<std::size_t>(b) * m;
        double agree = 0.0;
        double quad = 0.0;
        for (std::size_t t = 0; t < m; ++t) {
          agree += ca[t] == cb[t] ? 1.0 : 0.0;
          const double* bcol = s.b.col(ca[t]).data();
          for (std::size_t u = 0; u < m; ++u) quad += bcol[cb[u]];
        }
        cov(a, b) = cov(b, a) = w * agree - w * w * quad;
      }
      if (config_.noisy_variance) cov(a, a) += s.noise;
    }
    // A latent covariance is often singular (points sharing every leaf): factor with a jitter
    // that grows until the factorization succeeds.
    Eigen::LLT<Eigen::MatrixXd> llt;
    double jitter = 1e-10;
    for (;;) {
      Eigen::MatrixXd c = cov;
      c.diagonal().array() += jitter;
      llt.compute(c);
      if (llt.info() == Eigen::Success || jitter > 1.0) break;
      jitter *= 10.0;
    }
    Eigen::VectorXd z(n);
    for (std::size_t j = 0; j < num; ++j) {
      if (component[j] != k) continue;
      for (Eigen::Index i = 0; i < n; ++i) z[i] = normal(rng);
      const Eigen::VectorXd f = mu + llt.matrixL() * z;
      out.row(static_cast<Eigen::Index>(j)) = (y_mean_ + y_scale_ * f.array()).transpose();
    }
  }
}

std::vector<std::string> BarkModel::chain_states() const {
  std::vector<std::string> out;
  for (const Chain& c : chains_) out.push_back(c.state());
  return out;
}

void BarkModel::set_chain_states(const std::vector<std::string>& states) {
  if (states.size() != chains_.size()) {
    throw sdk::InvalidArgument(fmt::format("surrogate/bark: {} chain states given, expected {}",
                                           states.size(), chains_.size()));
  }
  for (std::size_t c = 0; c < states.size(); ++c) chains_[c].set_state(states[c]);
  warm_ = true;
}

}  // namespace arbo::plugins::bark
