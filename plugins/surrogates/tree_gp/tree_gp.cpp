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
      sdk::ParamSpec::real("box_widening",
                           "When the centre of the optimal leaf cell violates a known "
                           "constraint it is projected onto the constraints inside the cell, "
                           "widened by this much per side (encoded units) for that solve. "
                           "The projected point is proposed only if every tree still puts it "
                           "in the optimal cell's leaf. The reference code widens by 1e-5, "
                           "which can put the query past a split threshold, in a neighbouring "
                           "leaf; the default does not widen.",
                           0.0, 0.0),
      sdk::ParamSpec::boolean(
          "resample_duplicates",
          "When the decoded query repeats an observation (the optimal cell is the one of an "
          "evaluated point whose centre was proposed before), propose a uniform random point "
          "of the cell instead (up to 20 draws satisfying the known constraints). Off by "
          "default, as in the paper; on deterministic problems the repeated point carries no "
          "information and the trees, unchanged by it, keep proposing it.",
          false),
      sdk::ParamSpec::choice(
          "projection_distance",
          "Distance of that projection (Eq. 11) on real and integer coordinates. 'plain': the "
          "squared Euclidean distance in raw units, Eq. 11 as printed and the reference code. "
          "'cell_scaled': each coordinate's difference divided by the cell's width, so the "
          "projected point keeps its relative place in the cell instead of moving along the "
          "cell's narrowest side onto a face, where observations often lie already (on G6, "
          "'plain' stayed on one such face, 500 or more above f*, in 4 of 5 seeds; "
          "'cell_scaled' reached f* in all 5; docs/decisions.md, decision 23).",
          "plain", {"plain", "cell_scaled"}),
      sdk::ParamSpec::real("projection_time_limit",
                           "Seconds for the model solve of that projection; when it fails, "
                           "the solver's own point of the optimal cell is proposed.",
                           5.0, 1e-3)};
  return specs;
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
  box_widening_ = p.get_real("box_widening");
  projection_time_limit_ = p.get_real("projection_time_limit");
  projection_scaled_ = p.get_string("projection_distance") == "cell_scaled";
  resample_duplicates_ = p.get_bool("resample_duplicates");
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
  last_ = tree_gp::formulate(model, point, space_, ensemble_, gp_);
  last_model_ = &model;
  return last_.output;
}

bool TreeGp::project_in_cell(const Cell& cell, const std::vector<int>& leaves,
                             const std::vector<const sdk::Constraint*>& constraints,
                             Eigen::VectorXd& x, const Eigen::VectorXd* start) const {
  sdk::ModelSolver* solver = ctx_.model_solver();
  if (solver == nullptr || !sdk::can_formulate(constraints)) return false;
  // The cell as a space of its own (bounds narrowed, widened by box_widening, conditions
  // dropped): the SDK's projection then stays inside it.
  std::vector<sdk::Parameter> params;
  for (std::size_t i = 0; i < space_.size(); ++i) {
    const sdk::Parameter& p = space_[i];
    const auto j = static_cast<Eigen::Index>(i);
    const double lo = std::max(space_.lower()[j], cell.lower[j] - box_widening_);
    // An open upper bound (a left split, x < v) ends at the last float below v: the
    // projection sits on the cell's boundary whenever the centre violates a constraint, and
    // at v itself the trees send the point to the neighbouring leaf.
    const double hi = std::min(space_.upper()[j], cell.closed_upper(j) + box_widening_);
    sdk::Parameter q;
    switch (p.type) {
      case sdk::ParamType::Real:
        q = p.log_scale ? sdk::Parameter::real(p.name, std::max(p.lower, std::exp(lo)),
                                               std::min(p.upper, std::exp(hi)), true)
                        : sdk::Parameter::real(p.name, lo, hi);
        break;
      case sdk::ParamType::Integer:
        if (p.log_scale) {
          auto a = static_cast<std::int64_t>(std::ceil(std::exp(lo) - 1e-9));
          auto b = static_cast<std::int64_t>(std::floor(std::exp(hi) + 1e-9));
          a = std::max(a, static_cast<std::int64_t>(p.lower));
          b = std::min(b, static_cast<std::int64_t>(p.upper));
          if (a > b) return false;
          q = sdk::Parameter::integer(p.name, a, b, true);
        } else {
          q = sdk::Parameter::integer(p.name, static_cast<std::int64_t>(cell.lower[j]),
                                      static_cast<std::int64_t>(cell.upper[j]));
        }
        break;
      case sdk::ParamType::Binary:
        q = sdk::Parameter::integer(p.name, static_cast<std::int64_t>(cell.lower[j]),
                                    static_cast<std::int64_t>(cell.upper[j]));
        break;
      case sdk::ParamType::Categorical: q = sdk::Parameter::categorical(p.name, p.choices); break;
    }
    params.push_back(std::move(q));
  }
  Eigen::VectorXd y = x;
  try {
    const sdk::Space cell_space(std::move(params));
    sdk::SolveOptions options;
    options.time_limit_seconds = projection_time_limit_;
    // The squared distance of a small cell is itself about 1e-4 in raw units, so the default
    // absolute gap of 1e-4 would accept any point of the constraint's boundary: the relative
    // gap alone decides, with Gurobi's default absolute gap (MIPGapAbs 1e-10), which the
    // reference code's projection ran with.
    options.absolute_gap = 1e-10;
    // The solver's point lies in the cell and satisfies the constraints: a start that makes
    // the projection's search feasible from its first node (Alkylation's polynomial rows).
    std::vector<Eigen::VectorXd> feasible;
    if (start != nullptr) feasible.push_back(*start);
    // Eq. 11's squared distance to the centre, in raw units or scaled by the cell's widths
    // (projection_distance), and categories restricted to the cell's allowed set x_cat*.
    sdk::ProjectionSpec spec;
    spec.scale_by_range = projection_scaled_;
    spec.allowed_categories = cell.allowed;
    if (!sdk::project_onto_constraints(cell_space, constraints, *solver, y, options, feasible,
                                       spec)) {
      return false;
    }
  } catch (const sdk::Error& e) {
    ctx_.debug("tree_gp: projection inside the cell failed: {}", e.what());
    return false;
  }
  if (!sdk::satisfies(constraints, y, 1e-6) || !in_leaves(y, leaves)) return false;
  x = y;
  return true;
}

bool TreeGp::in_leaves(const Eigen::VectorXd& x, const std::vector<int>& leaves) const {
  return tree_gp::leaves_of(gp_, ensemble_, x) == leaves;
}

bool TreeGp::decode(const sdk::Model& model, const sdk::PointVariables& point,
                    const std::vector<double>& solution,
                    const std::vector<const sdk::Constraint*>& constraints,
                    Eigen::VectorXd& x) const {
  (void)point;
  if (!fitted_ || last_model_ != &model || solution.size() < model.num_variables()) return false;
  const std::vector<int> leaves = tree_gp::active_leaves(last_, gp_, ensemble_, solution);
  const Cell cell = tree_gp::cell_of(space_, ensemble_, gp_, leaves);
  if (cell.empty()) return false;
  Eigen::VectorXd centre = tree_gp::cell_centre(space_, cell, ctx_.rng());
  if (!sdk::satisfies(constraints, centre)) {
    // The solver's point may sit on a threshold (its rows are x <= v on the left side of a
    // split), which is in the neighbouring leaf; moved inside the open bounds, by one float32
    // step, it is a point of the optimal cell, and it usually still satisfies the constraints.
    Eigen::VectorXd inside = x;
    for (Eigen::Index j = 0; j < inside.size(); ++j) {
      inside[j] = std::min(inside[j], cell.closed_upper(j));
    }
    const bool inside_ok = sdk::satisfies(constraints, inside) && in_leaves(inside, leaves);
    if (!project_in_cell(cell, leaves, constraints, centre, inside_ok ? &inside : nullptr)) {
      if (!inside_ok) {
        ctx_.debug(
            "tree_gp: the cell centre violates the known constraints and its projection "
            "failed; proposing the solver's point");
        return false;
      }
      ctx_.debug(
          "tree_gp: the cell centre violates the known constraints and its projection "
          "failed; proposing the solver's point, inside the cell");
      centre = inside;
    }
  }
  if (resample_duplicates_ && is_observed(centre)) {
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for (int k = 0; k < 20; ++k) {
      Eigen::VectorXd y = centre;
      for (std::size_t i = 0; i < space_.size(); ++i) {
        const auto j = static_cast<Eigen::Index>(i);
        const double u = unit(ctx_.rng());
        if (space_[i].type == sdk::ParamType::Categorical) {
          const auto& a = cell.allowed[i];
          if (!a.empty()) y[j] = a[std::min(a.size() - 1, static_cast<std::size_t>(u * a.size()))];
        } else if (tree_gp::integral_coordinate(space_[i])) {
          y[j] = std::min(cell.upper[j],
                          std::floor(cell.lower[j] + u * (cell.upper[j] - cell.lower[j] + 1.0)));
        } else {
          y[j] = cell.lower[j] + u * (cell.closed_upper(j) - cell.lower[j]);
        }
      }
      if (!is_observed(y) && sdk::satisfies(constraints, y)) {
        centre = y;
        break;
      }
    }
  }
  x = centre;
  return true;
}

Eigen::VectorXd TreeGp::representative(const Eigen::VectorXd& x) const {
  if (!fitted_) throw sdk::Error("surrogate/tree_gp: representative before fit");
  const tree_gp::Cell cell =
      tree_gp::cell_of(space_, ensemble_, gp_, tree_gp::leaves_of(gp_, ensemble_, x));
  // x lies in its own cell, so the cell is never empty; the centre stays inside its open
  // upper bounds (Cell::closed_upper).
  return tree_gp::cell_centre(space_, cell, ctx_.rng());
}

bool TreeGp::is_observed(const Eigen::VectorXd& x) const {
  for (Eigen::Index i = 0; i < X_.rows(); ++i) {
    if ((X_.row(i).transpose() - x).cwiseAbs().maxCoeff() <= 1e-9) return true;
  }
  return false;
}

}  // namespace arbo::plugins
