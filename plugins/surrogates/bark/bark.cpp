// SPDX-License-Identifier: MIT
#include "bark.hpp"

#include <charconv>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

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
  static const sdk::ParamSpecList all = [] {
    sdk::ParamSpecList out = specs;
    const sdk::ParamSpecList& decode = tree_gp::decode_param_specs();
    out.insert(out.end(), decode.begin(), decode.end());
    return out;
  }();
  return all;
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
    : ctx_(args.context),
      space_(args.space),
      model_(bark::Domain::from_space(args.space), make_config(args.params)),
      decode_(tree_gp::read_decode_settings(args.params)) {}

void Bark::fit(const sdk::Dataset& data, const sdk::Metric& metric) {
  if (data.size() == 0) throw sdk::Error("surrogate/bark: fit needs at least one observation");
  X_ = data.X;
  y_ = data.target(metric);
  converted_ = false;
  last_model_ = nullptr;
  model_.fit(X_, y_, ctx_.rng());
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

std::size_t Bark::num_components() const { return model_.samples().size(); }

void Bark::predict_components(const Eigen::MatrixXd& X, Eigen::MatrixXd& mean,
                              Eigen::MatrixXd& variance) const {
  if (!model_.fitted()) throw sdk::Error("predict_components before fit");
  model_.predict_samples(X, comp_mean_, comp_var_);
  mean = comp_mean_.transpose();
  variance = comp_var_.transpose();
}

namespace {

// A BARK tree as a tree_gp tree (nodes renumbered in pre-order, free slots dropped). Both route
// numeric coordinates left iff float32(x) < float32(threshold); a categorical BARK node sends
// its subset left, a tree_gp node its `right_categories` right, so the latter is the
// complement of the subset among the coordinate's categories.
tree_gp::Tree to_tree_gp(const bark::Tree& tree, const bark::Domain& domain) {
  tree_gp::Tree out;
  std::vector<std::pair<int, int>> stack{{0, -1}};  // (BARK node, parent's slot to fill)
  std::vector<int> ids;
  while (!stack.empty()) {
    const auto [id, at] = stack.back();
    stack.pop_back();
    const bark::Node& n = tree.node(id);
    const int me = static_cast<int>(out.nodes.size());
    out.nodes.emplace_back();
    if (at >= 0) {
      tree_gp::TreeNode& parent = out.nodes[static_cast<std::size_t>(at / 2)];
      (at % 2 == 0 ? parent.left : parent.right) = me;
    }
    if (n.is_leaf()) continue;
    tree_gp::TreeNode& t = out.nodes.back();
    t.feature = n.feature;
    const bark::FeatureDomain& f = domain.features[static_cast<std::size_t>(n.feature)];
    if (f.kind == bark::FeatureKind::Categorical) {
      t.categorical = true;
      for (int c = 0; c < f.num_categories; ++c) {
        if (((n.categories >> c) & 1U) == 0) t.right_categories.push_back(c);
      }
    } else {
      t.threshold = n.threshold;
    }
    stack.push_back({n.right, 2 * me + 1});
    stack.push_back({n.left, 2 * me});
  }
  tree_gp::fill_paths(out);
  return out;
}

}  // namespace

const std::vector<tree_gp::TreeKernelGp>& Bark::sample_gps() const {
  if (!model_.fitted()) throw sdk::Error("formulate before fit");
  if (converted_) return gps_;
  const auto& samples = model_.samples();
  const Eigen::VectorXd y_std = (y_.array() - model_.y_mean()) / model_.y_scale();
  const bark::BarkConfig& config = model_.config();
  ensembles_.assign(samples.size(), {});
  gps_.assign(samples.size(), {});
  for (std::size_t s = 0; s < samples.size(); ++s) {
    for (const bark::Tree& t : samples[s].trees) {
      ensembles_[s].trees.push_back(to_tree_gp(t, model_.domain()));
    }
    gps_[s].assign(ensembles_[s], X_, y_std, model_.y_mean(), model_.y_scale(),
                   config.chain.signal_variance, samples[s].noise, config.chain.jitter);
  }
  converted_ = true;
  return gps_;
}

std::vector<sdk::FormulatesSurrogate::Output> Bark::formulate_components(
    sdk::Model& model, const sdk::PointVariables& point) const {
  const std::vector<tree_gp::TreeKernelGp>& gps = sample_gps();
  std::vector<const tree_gp::TreeKernelGp*> blocks;
  for (const auto& g : gps) blocks.push_back(&g);
  last_ = tree_gp::formulate(model, point, space_, blocks);
  last_model_ = &model;
  std::vector<sdk::FormulatesSurrogate::Output> out;
  for (const auto& f : last_) out.push_back(f.output);
  return out;
}

bool Bark::decode(const sdk::Model& model, const sdk::PointVariables& point,
                  const std::vector<double>& solution,
                  const std::vector<const sdk::Constraint*>& constraints,
                  Eigen::VectorXd& x) const {
  (void)point;
  if (last_model_ != &model || solution.size() < model.num_variables()) return false;
  std::vector<const tree_gp::TreeKernelGp*> blocks;
  for (const auto& g : gps_) blocks.push_back(&g);
  return tree_gp::decode_cell(ctx_, space_, blocks, tree_gp::active_leaves(last_, blocks, solution),
                              decode_, X_, constraints, x);
}

namespace {
constexpr const char* kStateFormat = "arbo-bark-chains-1";
}  // namespace

std::string Bark::save_state() const {
  nlohmann::json j;
  j["format"] = kStateFormat;
  j["chains"] = model_.chain_states();
  return j.dump();
}

void Bark::restore_state(std::string_view state) {
  const nlohmann::json j = nlohmann::json::parse(state, nullptr, false);
  if (j.is_discarded() || !j.is_object() || j.value("format", std::string()) != kStateFormat ||
      !j.contains("chains") || !j["chains"].is_array()) {
    throw sdk::Error(fmt::format("not a saved BARK state (expected a JSON object with format '{}')",
                                 kStateFormat));
  }
  std::vector<std::string> states;
  for (const auto& c : j["chains"]) {
    if (!c.is_string()) throw sdk::Error("a saved BARK chain state is not a string");
    states.push_back(c.get<std::string>());
  }
  model_.set_chain_states(states);
  converted_ = false;
}

}  // namespace arbo::plugins
