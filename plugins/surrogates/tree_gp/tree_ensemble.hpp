// SPDX-License-Identifier: MIT
/// @file
/// @brief Gradient-boosted tree ensembles trained with XGBoost's C API and read back as plain
/// node lists, so that the tree-kernel GP and its MIP formulation see exactly the partition
/// XGBoost predicts with.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <Eigen/Core>

namespace arbo::plugins::tree_gp {

/// One node, in XGBoost's own numbering (node 0 is the root).
struct TreeNode {
  int left = -1;  ///< -1 for a leaf
  int right = -1;
  int feature = -1;
  bool categorical = false;
  /// Numeric split: x goes left iff float(x) < threshold (XGBoost's rule; equality goes
  /// right). The value is the exact float32 XGBoost stores, widened to double.
  double threshold = 0.0;
  /// Categorical split: categories in this sorted set go RIGHT, all others left (XGBoost's
  /// `common::Decision`).
  std::vector<int> right_categories;
  bool default_left = false;  ///< where a missing (NaN) value goes
  double leaf_value = 0.0;    ///< leaves only

  bool is_leaf() const noexcept { return left < 0; }
  /// True when `value` goes left at this (internal) node.
  bool goes_left(double value) const;
};

/// One step of a root-to-leaf path: the node and the side taken.
struct PathStep {
  int node = -1;
  bool left = false;
};

struct Tree {
  std::vector<TreeNode> nodes;
  std::vector<int> leaves;                   ///< node ids of the leaves, ascending
  std::vector<std::vector<PathStep>> paths;  ///< per entry of `leaves`: root-to-leaf path

  /// Node id of the leaf `x` falls in.
  int leaf_of(const double* x) const;
  /// Position of leaf node `node` in `leaves`.
  int leaf_index(int node) const;
  /// A tree without a split carries no partition; the kernel ignores it.
  bool degenerate() const noexcept { return nodes.size() <= 1; }
};

/// Computes `tree.leaves` and `tree.paths` from `tree.nodes` (reachable from node 0).
/// @throws sdk::Error for a child outside the node list or a cycle.
void fill_paths(Tree& tree);

struct Ensemble {
  std::vector<Tree> trees;
  double base_score = 0.0;
  std::string model_json;  ///< XGBoost's JSON model, as saved

  /// base_score + sum of the leaf values: XGBoost's prediction for squared-error regression.
  double predict(const double* x) const;
};

/// Training settings, mapped from LEAF-GP's LightGBM settings (Thebelt et al. 2022, App. C.1:
/// 50 trees, depth 3, min_data_in_leaf 1) and LightGBM's defaults otherwise.
struct BoostConfig {
  int rounds = 50;
  int max_depth = 3;
  double learning_rate = 0.1;
  double min_child_weight = 1.0;
  double reg_lambda = 0.0;
  int max_cat_to_onehot = 4;
  int max_bin = 256;
  std::string tree_method = "auto";  ///< "auto", "exact" or "hist"
  std::uint64_t seed = 0;
};

/// Trains squared-error boosting on the rows of `X` (encoded points) against `y`, with
/// `categorical[j]` marking features split natively as categories (encoded 0..k-1).
/// Single-threaded and deterministic for a given seed. @throws sdk::Error on an XGBoost error.
Ensemble train_ensemble(const Eigen::MatrixXd& X, const Eigen::VectorXd& y,
                        const std::vector<bool>& categorical, const BoostConfig& config);

/// Parses XGBoost's JSON model (as saved by XGBoosterSaveModelToBuffer). NaN and infinity
/// literals, which XGBoost writes for categorical split conditions, are accepted.
Ensemble parse_ensemble_json(const std::string& json);

}  // namespace arbo::plugins::tree_gp
