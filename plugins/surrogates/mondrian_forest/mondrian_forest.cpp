// SPDX-License-Identifier: MIT
#include "mondrian_forest.hpp"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include <arbo/sdk/error.hpp>

namespace arbo::plugins {

const sdk::ParamSpecList& MondrianForestSurrogate::params() {
  static const sdk::ParamSpecList specs = {
      sdk::ParamSpec::integer("num_trees",
                              "Number of Mondrian trees, each fitted on all the data (no "
                              "bootstrap). The thesis uses 20 (scikit-garden's default is 10).",
                              20, 1, 10000),
      sdk::ParamSpec::choice(
          "uncertainty",
          "Predictive variance: 'distance' is the thesis's distance-based uncertainty (Sec. "
          "4.2, Eqs. 4.1-4.3): the squared distance to the nearest observed point (squared "
          "Euclidean on scaled continuous coordinates + the categorical distance), scaled by "
          "max|y| and clipped at zeta * Var(y) of this model's own target (see distance_as); "
          "'variance' is the forest's mixture variance of the path-weighted tree predictions "
          "('MF + Variance').",
          "distance", {"distance", "variance"}),
      sdk::ParamSpec::real("lifetime",
                           "Mondrian lifetime lambda (in units of 1 / encoded length): splits "
                           "stop once a node's time exceeds it. 0 means infinite, as in the "
                           "thesis and scikit-garden: trees grow until min_samples_split.",
                           0.0, 0.0),
      sdk::ParamSpec::integer("min_samples_split",
                              "A node with fewer training rows is a leaf (2: leaves hold one "
                              "distinct point).",
                              2, 2, 1e9)
          .as_advanced(),
      sdk::ParamSpec::integer("max_depth", "Depth limit of every tree (root = 0); 0 means none.", 0,
                              0, 10000)
          .as_advanced(),
      sdk::ParamSpec::real("zeta",
                           "Distance uncertainty only: u is clipped at zeta * Var(y) of this "
                           "model's own target (thesis: 1; ENTMOOT's default: 0.5).",
                           1.0, 0.0),
      sdk::ParamSpec::choice(
          "distance_scaling",
          "Distance uncertainty only: scaling of continuous (real, integer) coordinates before "
          "the squared distance: 'standard' = (x - mean) / std of the training rows (ENTMOOT), "
          "'bounds' = (x - lower) / (upper - lower) of the space, 'none' = encoded units.",
          "standard", {"standard", "bounds", "none"}),
      sdk::ParamSpec::choice(
          "categorical_distance",
          "Distance uncertainty only: distance between categories a and b of a categorical or "
          "binary coordinate, with S(a) = c(a)(c(a)-1)/(n(n-1)) the Goodall4 similarity of a "
          "category with itself (c(a) = rows with category a). 'goodall4' is Eq. 4.2 made a "
          "distance: (1/D) (S(a) + S(b)) if a != b, else 0, the squared distance induced by the "
          "Goodall4 similarity, D = the space's dimension, so u = 0 at observed points; "
          "'hamming' adds 1 per differing category; 'entmoot' adds ENTMOOT's non-similarity 1 - "
          "S(a) between equal categories and 1 between different ones, so u stays positive at "
          "observed points.",
          "goodall4", {"goodall4", "hamming", "entmoot"}),
      sdk::ParamSpec::choice(
          "distance_as",
          "Distance uncertainty only: what the clipped distance is. 'variance': the variance "
          "u = min(max|y|^2 dist, zeta Var(y)), i.e. sigma = max|y| sqrt(dist) capped at "
          "sqrt(zeta Var(y)); the thesis's u is a variance (Eqs. 2.29, 3.2, 4.3) and both terms "
          "are then in units of y^2, so sigma scales with y. 'variance_literal': the variance "
          "u = min(max|y| dist, zeta Var(y)), Eq. 4.3 as printed (sigma does not scale with y). "
          "'stddev': that same u used as the standard deviation (variance u^2), the former "
          "default: with |y| << 1 EI underflows to 0 everywhere, with |y| >> 1 sigma is huge.",
          "variance", {"variance", "variance_literal", "stddev"}),
  };
  return specs;
}

MondrianForestSurrogate::MondrianForestSurrogate(const sdk::CreateArgs& args)
    : ctx_(args.context), space_(args.space) {
  const sdk::ParamSet& p = args.params;
  settings_.num_trees = static_cast<int>(p.get_int("num_trees"));
  const double lifetime = p.get_real("lifetime");
  // 0 stands for infinity: the thesis and scikit-garden have no lifetime (lambda = infinity),
  // and an infinite default would not survive JSON output of the parameter list.
  settings_.lifetime = lifetime > 0.0 ? lifetime : std::numeric_limits<double>::infinity();
  settings_.min_samples_split = static_cast<int>(p.get_int("min_samples_split"));
  settings_.max_depth = static_cast<int>(p.get_int("max_depth"));
  distance_ = p.get_string("uncertainty") == "distance";
  const std::string& scaling = p.get_string("distance_scaling");
  const std::string& categorical = p.get_string("categorical_distance");
  const std::string& units = p.get_string("distance_as");
  uncertainty_.configure(space_,
                         scaling == "standard" ? DistanceScaling::Standard
                         : scaling == "bounds" ? DistanceScaling::Bounds
                                               : DistanceScaling::None,
                         p.get_real("zeta"),
                         categorical == "goodall4"  ? CategoricalDistance::Goodall4
                         : categorical == "hamming" ? CategoricalDistance::Hamming
                                                    : CategoricalDistance::Entmoot,
                         units == "variance"           ? DistanceUnits::Variance
                         : units == "variance_literal" ? DistanceUnits::LiteralVariance
                                                       : DistanceUnits::StdDev);
}

void MondrianForestSurrogate::fit(const sdk::Dataset& data, const sdk::Metric& metric) {
  if (data.size() == 0) throw sdk::InvalidArgument("needs at least one row");
  // The raw values of the metric: constraints are regressed on their real values, not on
  // feasibility labels (thesis ch. 4).
  const Eigen::VectorXd y = data.target(metric);
  if (!y.allFinite()) {
    throw sdk::InvalidArgument(
        fmt::format("mondrian_forest: non-finite value in metric '{}'", metric.name));
  }
  if (!data.X.allFinite()) {
    throw sdk::InvalidArgument("non-finite coordinate in the data");
  }
  forest_.fit(data.X, y, settings_, ctx_.rng());
  if (distance_) uncertainty_.fit(data.X, y);
  dim_ = data.X.cols();
}

void MondrianForestSurrogate::predict(const Eigen::MatrixXd& X, Eigen::VectorXd& mean,
                                      Eigen::VectorXd& variance) const {
  if (dim_ < 0) throw sdk::Error("called before fit()");
  if (X.cols() != dim_) {
    throw sdk::InvalidArgument(fmt::format(
        "mondrian_forest: predict() got {} columns, the model was fitted on {}", X.cols(), dim_));
  }
  // Points as contiguous columns: one copy per call, none per point.
  const Eigen::MatrixXd Xt = X.transpose();
  forest_.predict(Xt, mean, variance);
  if (distance_) uncertainty_.evaluate(Xt, variance);
}

}  // namespace arbo::plugins
