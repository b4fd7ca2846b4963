// SPDX-License-Identifier: MIT
#include "bark.hpp"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include <arbo/sdk/error.hpp>

namespace arbo::plugins {

const sdk::ParamSpecList& Bark::params() {
  static const sdk::ParamSpecList specs{
      sdk::ParamSpec::integer("num_trees",
                              "Trees m of every forest (paper Sec. 7: 50). The kernel is "
                              "sigma0^2/m times the number of trees where two points share a "
                              "leaf; trees without splits are kept and add 1/m everywhere.",
                              50, 1, 1000),
      sdk::ParamSpec::real("alpha",
                           "BART depth prior: a node at depth d (root 0) splits with "
                           "probability alpha (1 + d)^-beta (paper eq. 5; 0.95).",
                           0.95, 1e-6, 0.999999),
      sdk::ParamSpec::real("beta", "Exponent of the BART depth prior (paper: 2).", 2.0, 0.0, 100.0),
      sdk::ParamSpec::integer("chains",
                              "Independent MCMC chains (paper App. D.1: 4); each contributes "
                              "sweeps / thinning posterior samples.",
                              4, 1, 64),
      sdk::ParamSpec::integer("burn_in",
                              "Sweeps discarded at the first fit only; later fits continue "
                              "each chain from its last state (paper Sec. 6.1: 1000).",
                              1000, 0, 10000000),
      sdk::ParamSpec::integer("sweeps",
                              "Sweeps per chain at every fit; a sweep proposes one move for "
                              "each tree in turn, then one noise move (paper: 400).",
                              400, 1, 10000000),
      sdk::ParamSpec::integer("thinning",
                              "A posterior sample is kept after every thinning-th sweep (paper: "
                              "100, so S = chains * sweeps / thinning = 16).",
                              100, 1, 10000000),
      sdk::ParamSpec::string(
          "noise_prior_scale",
          "Scale b of the InvGamma(noise_prior_shape, b) prior on the noise variance "
          "(standardized units). 'calibrated' (default) solves P(sigma_y^2 < 1) = "
          "noise_prior_probability, the paper's (nu, q) = (3, 0.9) rule with the variance of "
          "standardized y (b = 0.2922); a number sets b directly (the reference code uses "
          "0.2, i.e. P(sigma_y^2 < 1) = 0.94).",
          "calibrated"),
      sdk::ParamSpec::real("noise_prior_shape", "Shape nu/2 of the noise prior (paper: 1.5).", 1.5,
                           1e-3, 1e3)
          .as_advanced(),
      sdk::ParamSpec::real("noise_prior_probability",
                           "q of the calibrated noise prior: P(sigma_y^2 < 1) = q (paper: 0.9).",
                           0.9, 1e-6, 1.0 - 1e-6)
          .as_advanced(),
      sdk::ParamSpec::real("noise_step",
                           "Standard deviation of the noise move's random walk on "
                           "softplus^-1(sigma_y^2) (reference code: 1.0).",
                           1.0, 1e-6, 100.0),
      sdk::ParamSpec::real("initial_noise",
                           "sigma_y^2 of a fresh chain, standardized units (reference code: "
                           "0.1).",
                           0.1, 1e-9, 1e6)
          .as_advanced(),
      sdk::ParamSpec::real("jitter", "Added to the diagonal of every Gram matrix (1e-6).", 1e-6,
                           0.0, 1.0)
          .as_advanced(),
      sdk::ParamSpec::boolean("prior_only",
                              "BARKPrior ablation (paper Sec. 7): forests drawn from the tree "
                              "prior and the noise from Gamma(2.5, rate 9) (reference code), "
                              "no MCMC; prior_samples forests are drawn afresh at every fit.",
                              false),
      sdk::ParamSpec::integer("prior_samples",
                              "Forests of the BARKPrior mixture (16, as many as BARK's samples; "
                              "the paper does not give its count, the reference code uses 5).",
                              16, 1, 10000),
      sdk::ParamSpec::integer("threads",
                              "Worker threads for the chains; 0 = one per chain. Results do not "
                              "depend on it (each chain has its own random stream).",
                              0, 0, 64),
      sdk::ParamSpec::boolean("noisy_variance",
                              "Predict the variance of a noisy observation (adds each sample's "
                              "sigma_y^2) instead of the latent function's, which the paper's "
                              "integrated UCB uses.",
                              false)};
  return specs;
}

namespace {

bark::BarkConfig make_config(const sdk::ParamSet& p) {
  bark::BarkConfig c;
  c.chain.num_trees = static_cast<int>(p.get_int("num_trees"));
  c.chain.alpha = p.get_real("alpha");
  c.chain.beta = p.get_real("beta");
  c.chain.noise_shape = p.get_real("noise_prior_shape");
  const std::string& scale = p.get_string("noise_prior_scale");
  if (scale == "calibrated") {
    c.chain.noise_scale =
        bark::calibrated_noise_scale(c.chain.noise_shape, p.get_real("noise_prior_probability"));
  } else {
    double b = 0.0;
    const auto [ptr, ec] = std::from_chars(scale.data(), scale.data() + scale.size(), b);
    if (ec != std::errc{} || ptr != scale.data() + scale.size() || !(b > 0.0) ||
        !std::isfinite(b)) {
      throw sdk::ParamError("noise_prior_scale",
                            fmt::format("surrogate/bark: noise_prior_scale must be 'calibrated' "
                                        "or a positive number, not '{}'",
                                        scale));
    }
    c.chain.noise_scale = b;
  }
  c.chain.noise_step = p.get_real("noise_step");
  c.chain.initial_noise = p.get_real("initial_noise");
  c.chain.jitter = p.get_real("jitter");
  c.chains = static_cast<int>(p.get_int("chains"));
  c.burn_in = static_cast<int>(p.get_int("burn_in"));
  c.sweeps = static_cast<int>(p.get_int("sweeps"));
  c.thinning = static_cast<int>(p.get_int("thinning"));
  if (c.thinning > c.sweeps) {
    throw sdk::ParamError("thinning",
                          fmt::format("surrogate/bark: thinning ({}) exceeds sweeps ({}), so no "
                                      "sample would be kept",
                                      c.thinning, c.sweeps));
  }
  const auto threads = static_cast<int>(p.get_int("threads"));
  c.threads = threads == 0 ? c.chains : threads;
  c.prior_only = p.get_bool("prior_only");
  c.prior_samples = static_cast<int>(p.get_int("prior_samples"));
  c.noisy_variance = p.get_bool("noisy_variance");
  return c;
}

}  // namespace

Bark::Bark(const sdk::CreateArgs& args)
    : ctx_(args.context), model_(bark::Domain::from_space(args.space), make_config(args.params)) {}

void Bark::fit(const sdk::Dataset& data, const sdk::Metric& metric) {
  if (data.size() == 0) throw sdk::Error("surrogate/bark: fit needs at least one observation");
  model_.fit(data.X, data.target(metric), ctx_.rng());
  const bark::FitStats& s = model_.stats();
  ctx_.debug(
      "bark: {} samples, {:.3f} s (tree moves {:.3f} s, noise moves {:.3f} s summed over "
      "chains); accepted grow {}/{}, prune {}/{}, change {}/{}, noise {}/{}",
      model_.samples().size(), s.wall_seconds, s.tree_seconds, s.noise_seconds, s.accepted[0],
      s.proposed[0], s.accepted[1], s.proposed[1], s.accepted[2], s.proposed[2], s.noise_accepted,
      s.noise_proposed);
}

void Bark::predict(const Eigen::MatrixXd& X, Eigen::VectorXd& mean,
                   Eigen::VectorXd& variance) const {
  model_.predict(X, mean, variance);
}

void Bark::sample(const Eigen::MatrixXd& X, std::size_t num_samples, std::mt19937_64& rng,
                  Eigen::MatrixXd& out) const {
  model_.sample(X, num_samples, rng, out);
}

}  // namespace arbo::plugins
