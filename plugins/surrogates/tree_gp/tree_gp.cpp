// SPDX-License-Identifier: MIT
#include "tree_gp.hpp"

#include <cmath>

#include <fmt/format.h>

#include <arbo/sdk/constraint.hpp>
#include <arbo/sdk/error.hpp>
#include <arbo/sdk/projection.hpp>

namespace arbo::plugins {

using tree_gp::Cell;

const sdk::ParamSpecList& TreeGp::params() {
  static const sdk::ParamSpecList specs{
      sdk::ParamSpec::integer("num_trees",
                              "Boosting rounds of the tree ensemble (LightGBM's "
                              "num_boost_round in the paper); refit from scratch every "
                              "iteration.",
                              50, 1, 10000),
      sdk::ParamSpec::integer("max_depth", "Depth limit of every tree.", 3, 1, 16),
      sdk::ParamSpec::real("learning_rate", "Shrinkage of each boosting round.", 0.1, 1e-6, 1.0),
      sdk::ParamSpec::real("min_child_weight",
                           "Least hessian sum per leaf; squared error has hessian 1 per "
                           "sample, so the default 1 allows one sample per leaf (LightGBM "
                           "min_data_in_leaf = 1).",
                           1.0, 0.0),
      sdk::ParamSpec::real("reg_lambda",
                           "L2 penalty on leaf values (0 as LightGBM's lambda_l2 default; "
                           "XGBoost's own default is 1).",
                           0.0, 0.0),
      sdk::ParamSpec::choice("tree_method",
                             "XGBoost split finding: 'exact' (thresholds midway between "
                             "training values), 'hist' (histogram cuts; needed for native "
                             "categorical splits) or 'auto' (exact without categorical "
                             "parameters, hist with).",
                             "auto", {"auto", "exact", "hist"}),
      sdk::ParamSpec::integer("max_cat_to_onehot",
                              "Categorical parameters with fewer choices than this are split "
                              "one category against the rest; others by category subsets.",
                              4, 1, 1000)
          .as_advanced(),
      sdk::ParamSpec::integer("max_bin", "Histogram bins per feature ('hist' only).", 256, 2, 65536)
          .as_advanced(),
      sdk::ParamSpec::real_list(
          "signal_variance_bounds",
          "Interval of the kernel's signal variance sigma0^2, in standardized target units. The "
          "paper (App. C.1) prints sigma_y in [0.05, 20] and sigma0 in [5e-4, 0.2]: names swapped "
          "against its reference code, which bounds GPyTorch's outputscale (a variance, sigma0^2) "
          "by [0.05, 20] and the likelihood noise (sigma_y^2) by [5e-4, 0.2]. The code's reading "
          "is taken: a signal variance of at most 0.2 could not fit standardized targets (unit "
          "variance).",
          {0.05, 20.0}),
      sdk::ParamSpec::real_list("noise_variance_bounds",
                                "Interval of the noise variance sigma_y^2, in standardized "
                                "target units: the reference code's noise bounds, a variance "
                                "(see signal_variance_bounds for the paper's swapped names).",
                                {5e-4, 0.2}),
      sdk::ParamSpec::integer("gp_epochs",
                              "Adam steps on the exact marginal likelihood (normalized by the "
                              "number of observations), from the interval midpoints.",
                              200, 0, 100000),
      sdk::ParamSpec::real("gp_learning_rate",
                           "Adam step size in the sigmoid-transformed "
                           "hyperparameters.",
                           0.1, 1e-6, 10.0),
      sdk::ParamSpec::boolean("noisy_variance",
                              "Predictive variance of a noisy observation (sigma0^2 + "
                              "sigma_y^2 - k'K^-1k, as the reference code) rather than of the "
                              "latent function (sigma0^2 - k'K^-1k, the paper's Eq. 2b).",
                              true),
  };
  static const sdk::ParamSpecList all = [] {
    sdk::ParamSpecList out = specs;
    const sdk::ParamSpecList& decode = tree_gp::decode_param_specs();
    out.insert(out.end(), decode.begin(), decode.end());
    return out;
  }();
  return all;
}

TreeGp::TreeGp(const sdk::CreateArgs& args) : ctx_(args.context), space_(args.space) {
  const sdk::ParamSet& p = args.params;
  boost_.rounds = static_cast<int>(p.get_int("num_trees"));
  boost_.max_depth = static_cast<int>(p.get_int("max_depth"));
  boost_.learning_rate = p.get_real("learning_rate");
  boost_.min_child_weight = p.get_real("min_child_weight");
  boost_.reg_lambda = p.get_real("reg_lambda");
  boost_.tree_method = p.get_string("tree_method");
  boost_.max_cat_to_onehot = static_cast<int>(p.get_int("max_cat_to_onehot"));
  boost_.max_bin = static_cast<int>(p.get_int("max_bin"));
  const auto bounds = [&](const char* name, double& lo, double& hi) {
    const std::vector<double>& b = p.get_real_list(name);
    if (b.size() != 2 || !(b[0] > 0.0) || !(b[0] <= b[1]) || !std::isfinite(b[1])) {
      throw sdk::ParamError(name, fmt::format("surrogate/tree_gp: {} must be two finite "
                                              "numbers 0 < lower <= upper",
                                              name));
    }
    lo = b[0];
    hi = b[1];
  };
  bounds("signal_variance_bounds", gp_config_.signal_lower, gp_config_.signal_upper);
  bounds("noise_variance_bounds", gp_config_.noise_lower, gp_config_.noise_upper);
  gp_config_.epochs = static_cast<int>(p.get_int("gp_epochs"));
  gp_config_.learning_rate = p.get_real("gp_learning_rate");
  gp_config_.noisy_variance = p.get_bool("noisy_variance");
  decode_ = tree_gp::read_decode_settings(p);
}

void TreeGp::fit(const sdk::Dataset& data, const sdk::Metric& metric) {
  if (data.size() == 0) throw sdk::Error("surrogate/tree_gp: fit needs at least one observation");
  const Eigen::VectorXd y = data.target(metric);
  std::vector<bool> categorical;
  for (std::size_t i = 0; i < space_.size(); ++i) {
    categorical.push_back(space_[i].type == sdk::ParamType::Categorical);
  }
  boost_.seed = ctx_.rng()();
  ensemble_ = tree_gp::train_ensemble(data.X, y, categorical, boost_);
  gp_.fit(ensemble_, data.X, y, gp_config_);
  X_ = data.X;
  fitted_ = true;
  last_model_ = nullptr;
  ctx_.debug("tree_gp: {} trees ({} with splits), sigma0^2 = {:.4g}, sigma_y^2 = {:.4g}",
             ensemble_.trees.size(), gp_.active_trees().size(), gp_.signal_variance(),
             gp_.noise_variance());
}

void TreeGp::predict(const Eigen::MatrixXd& X, Eigen::VectorXd& mean,
                     Eigen::VectorXd& variance) const {
  if (!fitted_) throw sdk::Error("surrogate/tree_gp: predict before fit");
  gp_.predict(X, mean, variance);
}

sdk::FormulatesSurrogate::Output TreeGp::formulate(sdk::Model& model,
                                                   const sdk::PointVariables& point) const {
  if (!fitted_) throw sdk::Error("surrogate/tree_gp: formulate before fit");
  last_ = tree_gp::formulate(model, point, space_, gp_);
  last_model_ = &model;
  return last_.output;
}

bool TreeGp::decode(const sdk::Model& model, const sdk::PointVariables& point,
                    const std::vector<double>& solution,
                    const std::vector<const sdk::Constraint*>& constraints,
                    Eigen::VectorXd& x) const {
  (void)point;
  if (!fitted_ || last_model_ != &model || solution.size() < model.num_variables()) return false;
  return tree_gp::decode_cell(ctx_, space_, {&gp_}, tree_gp::active_leaves(last_, gp_, solution),
                              decode_, X_, constraints, x);
}

Eigen::VectorXd TreeGp::representative(const Eigen::VectorXd& x) const {
  if (!fitted_) throw sdk::Error("surrogate/tree_gp: representative before fit");
  const tree_gp::Cell cell = tree_gp::cell_of(space_, gp_, tree_gp::leaves_of(gp_, x));
  // x lies in its own cell, so the cell is never empty; the centre stays inside its open
  // upper bounds (Cell::closed_upper).
  return tree_gp::cell_centre(space_, cell, ctx_.rng());
}

}  // namespace arbo::plugins
