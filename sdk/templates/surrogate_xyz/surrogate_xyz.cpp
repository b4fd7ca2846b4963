// SPDX-License-Identifier: MIT
#include "surrogate_xyz.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <arbo/sdk/error.hpp>

namespace xyz {

const arbo::sdk::ParamSpecList& SurrogateXyz::params() {
  static const arbo::sdk::ParamSpecList specs{
      arbo::sdk::ParamSpec::integer("k", "Number of nearest observations averaged.", 5, 1, 1000),
      arbo::sdk::ParamSpec::real(
          "distance_weight",
          "Weight of the distance term of the variance: at the largest possible distance the "
          "variance gains this many times the variance of all targets.",
          1.0, 0.0)};
  return specs;
}

SurrogateXyz::SurrogateXyz(const arbo::sdk::CreateArgs& args)
    : k_(args.params.get_int("k")), distance_weight_(args.params.get_real("distance_weight")) {
  const arbo::sdk::Space& space = args.space;
  lower_ = space.lower();
  // A degenerate range (lower == upper) would divide by zero; any scale works there.
  scale_ = (space.upper() - space.lower()).cwiseMax(1e-12).cwiseInverse();
}

void SurrogateXyz::fit(const arbo::sdk::Dataset& data, const arbo::sdk::Metric& metric) {
  if (data.size() == 0) throw arbo::sdk::Error("the dataset is empty");
  if (data.X.cols() != lower_.size()) {
    throw arbo::sdk::Error("points do not match the space's dimension");
  }
  train_ = (data.X.rowwise() - lower_.transpose()).array().rowwise() * scale_.transpose().array();
  target_ = data.target(metric);
  const double mean = target_.mean();
  target_variance_ = (target_.array() - mean).square().mean();
}

void SurrogateXyz::predict(const Eigen::MatrixXd& X, Eigen::VectorXd& mean,
                           Eigen::VectorXd& variance) const {
  const Eigen::Index n = train_.rows();
  const Eigen::Index k = std::min<Eigen::Index>(k_, n);
  const double max_dist = std::sqrt(static_cast<double>(std::max<Eigen::Index>(1, X.cols())));
  mean.resize(X.rows());
  variance.resize(X.rows());
  // Scratch reused for every row: the hot-path rule is "no allocation per point".
  Eigen::VectorXd dist(n), x(X.cols());
  std::vector<Eigen::Index> order(static_cast<std::size_t>(n));
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    x = (X.row(i).transpose() - lower_).cwiseProduct(scale_);
    dist = (train_.rowwise() - x.transpose()).rowwise().norm();
    std::iota(order.begin(), order.end(), Eigen::Index{0});
    // Ties broken by index so that predictions do not depend on the sort's implementation.
    std::partial_sort(order.begin(), order.begin() + k, order.end(),
                      [&](Eigen::Index a, Eigen::Index b) {
                        return dist[a] < dist[b] || (dist[a] == dist[b] && a < b);
                      });
    double sum = 0.0, sum_sq = 0.0, sum_dist = 0.0;
    for (Eigen::Index r = 0; r < k; ++r) {
      const Eigen::Index j = order[static_cast<std::size_t>(r)];
      sum += target_[j];
      sum_sq += target_[j] * target_[j];
      sum_dist += dist[j];
    }
    const double mu = sum / static_cast<double>(k);
    const double spread = std::max(0.0, sum_sq / static_cast<double>(k) - mu * mu);
    const double dbar = sum_dist / static_cast<double>(k) / max_dist;
    mean[i] = mu;
    variance[i] = spread + distance_weight_ * target_variance_ * dbar * dbar;
  }
}

}  // namespace xyz
