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
          "Predictive variance: 'distance' is the thesis's metric u(x) = min(max|y| * "
          "min_i dist(x, x_i), zeta * Var(y)), dist = squared Euclidean on scaled continuous "
          "coordinates + Goodall4 non-similarity on categorical/binary ones; 'variance' is the "
          "forest's mixture variance of the path-weighted tree predictions.",
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
          "Distance uncertainty only: per categorical/binary coordinate, 'goodall4' adds the "
          "Goodall4 non-similarity 1 - S(a, b) between different categories (S = 0 there, so 1) "
          "and 0 between equal ones, which keeps u = 0 at observed points; 'entmoot' adds "
          "1 - S(a, b) literally, also 1 - c(a)(c(a)-1)/(n(n-1)) > 0 between equal categories, so "
          "u stays positive at observed points of mixed spaces.",
          "goodall4", {"goodall4", "entmoot"}),
      sdk::ParamSpec::choice(
          "distance_as",
          "Distance uncertainty only: 'stddev' returns variance = u^2, so acquisitions use u as "
          "the standard deviation (the thesis plugs u into EI/PoF as sigma); 'variance' returns "
          "variance = u.",
          "stddev", {"stddev", "variance"}),
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
  distance_is_stddev_ = p.get_string("distance_as") == "stddev";
  const std::string& scaling = p.get_string("distance_scaling");
  uncertainty_.configure(space_,
                         scaling == "standard" ? DistanceScaling::Standard
                         : scaling == "bounds" ? DistanceScaling::Bounds
                                               : DistanceScaling::None,
                         p.get_real("zeta"), p.get_string("categorical_distance") == "entmoot");
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
  if (distance_) {
    // Ambiguity (sigma vs sigma^2): u is clipped at a variance, Var(y) (Eq. 4.3), yet the
    // thesis uses it as the standard deviation in EI and PoF; by default it is returned squared so
    // that acquisitions, which take sqrt(variance), see sigma = u.
    uncertainty_.evaluate(Xt, variance);
    if (distance_is_stddev_) variance = variance.array().square().matrix();
  }
}

}  // namespace arbo::plugins
