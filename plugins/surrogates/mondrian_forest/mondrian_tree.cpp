// SPDX-License-Identifier: MIT
#include "mondrian_tree.hpp"

#include <algorithm>
#include <cmath>

namespace arbo::plugins {
namespace {

// Uniform on [0, 1) from the top 53 bits: the same stream on every platform, unlike
// std::uniform_real_distribution, whose algorithm the standard leaves open.
using ConstArrayMap = Eigen::Map<const Eigen::ArrayXd>;

double uniform01(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

}  // namespace

void MondrianForest::fit(const Eigen::MatrixXd& X, const Eigen::VectorXd& y,
                         const MondrianSettings& settings, std::mt19937_64& rng) {
  settings_ = settings;
  d_ = X.cols();
  const Eigen::Index n = X.rows();
  nodes_.clear();
  lower_.clear();
  upper_.clear();
  roots_.clear();
  // Node statistics are stored relative to the training mean: the mixture variance
  // E[m^2 + v] - mu^2 then cancels far less for metrics with a large offset (G6: y ~ -7000).
  y_offset_ = n > 0 ? y.mean() : 0.0;
  y_centred_ = y.array() - y_offset_;
  X_ = &X;
  // About 2n nodes per tree when leaves hold single points.
  nodes_.reserve(static_cast<std::size_t>(settings.num_trees) * static_cast<std::size_t>(2 * n));
  for (int t = 0; t < settings.num_trees; ++t) {
    order_.resize(static_cast<std::size_t>(n));
    for (Eigen::Index i = 0; i < n; ++i)
      order_[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(i);
    roots_.push_back(build(0, static_cast<std::int32_t>(n), 0.0, 0, rng));
  }
  X_ = nullptr;
  y_centred_.resize(0);
}

std::int32_t MondrianForest::build(std::int32_t begin, std::int32_t end, double tau_parent,
                                   int depth, std::mt19937_64& rng) {
  const Eigen::MatrixXd& X = *X_;
  const auto id = static_cast<std::int32_t>(nodes_.size());
  nodes_.emplace_back();
  const std::size_t box = static_cast<std::size_t>(id) * static_cast<std::size_t>(d_);
  lower_.resize(box + static_cast<std::size_t>(d_));
  upper_.resize(box + static_cast<std::size_t>(d_));

  // The node's box is the bounding box of its own data, not of the domain (Mondrian process
  // restricted to the data, as in scikit-garden). Ambiguity: the thesis does not say how its
  // forests encode categorical inputs; every coordinate, a category index included, is
  // split as a number here (ENTMOOT's label encoding; arbo's encoded space is the index).
  double rate = 0.0;
  for (Eigen::Index k = 0; k < d_; ++k) {
    double lo = std::numeric_limits<double>::infinity();
    double hi = -lo;
    for (std::int32_t r = begin; r < end; ++r) {
      const double v = X(order_[static_cast<std::size_t>(r)], k);
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    lower_[box + static_cast<std::size_t>(k)] = lo;
    upper_[box + static_cast<std::size_t>(k)] = hi;
    rate += hi - lo;
  }

  // Empirical mean and population variance (scikit-garden's MSE impurity); two passes for
  // accuracy.
  const int count = end - begin;
  double mean = 0.0;
  for (std::int32_t r = begin; r < end; ++r)
    mean += y_centred_[order_[static_cast<std::size_t>(r)]];
  mean /= count;
  double var = 0.0;
  for (std::int32_t r = begin; r < end; ++r) {
    const double e = y_centred_[order_[static_cast<std::size_t>(r)]] - mean;
    var += e * e;
  }
  var /= count;
  nodes_[static_cast<std::size_t>(id)].mean = mean;
  nodes_[static_cast<std::size_t>(id)].second = mean * mean + var;

  // A box of zero linear dimension (all rows equal) has rate 0, i.e. E = infinity: a leaf.
  bool leaf = count < settings_.min_samples_split || !(rate > 0.0) ||
              (settings_.max_depth > 0 && depth >= settings_.max_depth);
  double tau = std::numeric_limits<double>::infinity();
  if (!leaf) {
    // E ~ Exponential(rate); 1 - U lies in (0, 1], so the log is finite.
    tau = tau_parent - std::log(1.0 - uniform01(rng)) / rate;
    leaf = !(tau < settings_.lifetime);
  }
  if (leaf) return id;

  // Split dimension with probability proportional to its range, then a threshold uniform in
  // [lower, upper). Both children are non-empty: the rows at `lower` go left, those at `upper`
  // go right.
  const double target = uniform01(rng) * rate;
  Eigen::Index feature = -1;
  double cumulative = 0.0;
  for (Eigen::Index k = 0; k < d_; ++k) {
    const double range =
        upper_[box + static_cast<std::size_t>(k)] - lower_[box + static_cast<std::size_t>(k)];
    if (!(range > 0.0)) continue;
    feature = k;  // the last positive range absorbs rounding at the end of the sum
    cumulative += range;
    if (target < cumulative) break;
  }
  const double lo = lower_[box + static_cast<std::size_t>(feature)];
  const double hi = upper_[box + static_cast<std::size_t>(feature)];
  double threshold = lo + uniform01(rng) * (hi - lo);
  if (!(threshold < hi)) threshold = std::nextafter(hi, lo);

  auto* first = order_.data() + begin;
  auto* mid = std::partition(first, order_.data() + end,
                             [&](std::int32_t row) { return X(row, feature) <= threshold; });
  const auto split = static_cast<std::int32_t>(begin + (mid - first));

  const std::int32_t left = build(begin, split, tau, depth + 1, rng);
  const std::int32_t right = build(split, end, tau, depth + 1, rng);
  Node& node = nodes_[static_cast<std::size_t>(id)];  // re-read: the recursion reallocated
  node.feature = static_cast<std::int32_t>(feature);
  node.threshold = threshold;
  node.delta = tau - tau_parent;
  node.left = left;
  node.right = right;
  return id;
}

void MondrianForest::predict(const Eigen::MatrixXd& Xt, Eigen::VectorXd& mean,
                             Eigen::VectorXd& variance) const {
  const Eigen::Index m = Xt.cols();
  mean.resize(m);
  variance.resize(m);
  const double trees = static_cast<double>(roots_.size());
  const auto d = static_cast<std::size_t>(d_);
  for (Eigen::Index i = 0; i < m; ++i) {
    const double* x = Xt.col(i).data();
    const ConstArrayMap xa(x, d_);
    double sum_mean = 0.0;
    double sum_second = 0.0;
    for (const std::int32_t root : roots_) {
      // Walk to the leaf; at each internal node the point "branches off" with probability
      // p_j = 1 - exp(-delta_j * eta_j(x)), eta = distance outside the node's data box, and
      // then takes that node's statistics; the leaf gets the remaining mass.
      double remaining = 1.0;
      double mu = 0.0;
      double second = 0.0;
      std::int32_t j = root;
      for (;;) {
        const Node& node = nodes_[static_cast<std::size_t>(j)];
        if (node.feature < 0) {
          mu += remaining * node.mean;
          second += remaining * node.second;
          break;
        }
        // Eigen vectorizes this reduction; a plain loop would not be without -ffast-math.
        const ConstArrayMap lo(lower_.data() + static_cast<std::size_t>(j) * d, d_);
        const ConstArrayMap hi(upper_.data() + static_cast<std::size_t>(j) * d, d_);
        const double eta = ((xa - hi).max(0.0) + (lo - xa).max(0.0)).sum();
        if (eta > 0.0) {
          const double w = remaining * -std::expm1(-node.delta * eta);
          mu += w * node.mean;
          second += w * node.second;
          remaining -= w;
        }
        j = x[node.feature] <= node.threshold ? node.left : node.right;
      }
      sum_mean += mu;
      sum_second += second;
    }
    const double mu = sum_mean / trees;
    mean[i] = mu + y_offset_;
    variance[i] = std::max(sum_second / trees - mu * mu, 0.0);
  }
}

}  // namespace arbo::plugins
