// SPDX-License-Identifier: MIT
/// @file
/// @brief A forest of Mondrian trees in flat arrays: sampling (Lakshminarayanan et al. 2014,
/// as in scikit-garden) and path-weighted prediction.
#pragma once

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include <Eigen/Core>

namespace arbo::plugins {

/// Settings of the tree sampler.
struct MondrianSettings {
  int num_trees = 20;
  /// Lifetime lambda; +infinity grows each tree until the stopping rules below.
  double lifetime = std::numeric_limits<double>::infinity();
  /// A node with fewer samples is a leaf (scikit-garden's min_samples_split).
  int min_samples_split = 2;
  /// Depth limit (root = 0); 0 means none.
  int max_depth = 0;
};

/// T Mondrian trees fitted on the same data (no bootstrap), stored node by node in flat
/// arrays shared by all trees; nothing is allocated per node or per predicted point.
class MondrianForest {
 public:
  /// Samples `settings.num_trees` trees on rows of `X` (n x d) against `y`, drawing every
  /// random number from `rng`, tree after tree.
  void fit(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const MondrianSettings& settings,
           std::mt19937_64& rng);

  /// Forest mean and mixture variance at the columns of `Xt` (d x m, one point per column).
  void predict(const Eigen::MatrixXd& Xt, Eigen::VectorXd& mean, Eigen::VectorXd& variance) const;

  std::size_t num_trees() const noexcept { return roots_.size(); }
  std::size_t num_nodes() const noexcept { return nodes_.size(); }

 private:
  struct Node {
    std::int32_t feature = -1;  // -1 for a leaf
    std::int32_t left = -1;
    std::int32_t right = -1;
    double threshold = 0.0;
    double delta = 0.0;   // tau_j - tau_parent(j); unused for leaves (their tau is +infinity)
    double mean = 0.0;    // mean of the node's y, centred on the training mean
    double second = 0.0;  // mean^2 + population variance of the node's y (same centring)
  };

  // Builds the subtree of rows order_[begin, end) and returns its node index.
  std::int32_t build(std::int32_t begin, std::int32_t end, double tau_parent, int depth,
                     std::mt19937_64& rng);

  MondrianSettings settings_;
  Eigen::Index d_ = 0;
  const Eigen::MatrixXd* X_ = nullptr;  // valid during fit only
  Eigen::VectorXd y_centred_;           // during fit only
  std::vector<std::int32_t> order_;     // row permutation, partitioned in place during fit
  double y_offset_ = 0.0;               // training mean, added back in predict
  std::vector<Node> nodes_;
  std::vector<double> lower_, upper_;  // node data boxes, d values per node
  std::vector<std::int32_t> roots_;
};

}  // namespace arbo::plugins
