// SPDX-License-Identifier: MIT
/// @file
/// @brief problem/tree_function and problem/tree_function_cat: sums of trees drawn from the
/// BART prior (BARK paper, Sec. 7.2 and Table 5, "TreeFunction"), with the exact minimum found
/// at construction.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "benchmark_problem.hpp"

namespace arbo::plugins {

/// f(x) = sum over m trees of the value of the leaf x falls in. Structure from the BART depth
/// prior P(split at depth d) = 0.95 (1 + d)^-2; split feature uniform over all D inputs; a real
/// split has threshold ~ U(0, 1) and sends x left iff x <= threshold; a categorical split has a
/// uniform non-empty proper subset C of the categories and sends x left iff x is in C; leaf
/// values ~ N(0, 1). Thresholds and subsets are not restricted to the node's subspace (as in
/// the reference code), so some leaves are empty. Generated from `seed` by PortableRng in
/// pre-order (at each node: the split draw, then feature and threshold/subset, then the left
/// subtree, then the right one; a leaf draws its value where it is created).
///
/// The global minimum is computed exactly at construction by branch and bound over the trees'
/// cells (the bound is the sum of the smallest leaf of every remaining tree that the current
/// cell can still reach), so `info()` reports f* and the centre of an optimal cell.
class TreeForestProblem : public problems_common::BenchmarkProblem {
 public:
  /// `seed` (the forest's PortableRng seed) and `num_trees` (m), for both members of the family.
  static const sdk::ParamSpecList& params();

  sdk::ProblemInfo info() const override;
  void evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) override;

  struct Node {
    int feature = -1;          // -1 for a leaf
    double threshold = 0.0;    // real split
    std::uint32_t subset = 0;  // categorical split: bit c set = category c goes left
    int left = -1;
    int right = -1;
    double value = 0.0;  // leaf value
  };

 protected:
  /// Draws the forest from `values` (of `params()`) and finds its minimum.
  TreeForestProblem(std::string id, int num_real, int num_categorical, const sdk::ParamSet& values);

 private:
  double value_at(const Eigen::VectorXd& x) const;
  void minimize();

  int num_real_;
  int num_categorical_;
  std::uint64_t seed_;
  std::vector<std::vector<Node>> trees_;
  double optimum_ = 0.0;
  Eigen::VectorXd optimizer_;
};

/// D = 10 reals in [0, 1] (BARK Table 5, "TreeFunction").
class TreeFunction final : public TreeForestProblem {
 public:
  explicit TreeFunction(const sdk::CreateArgs& args);
};

/// D = 20: 10 reals in [0, 1] and 10 categoricals with 5 categories (BARK Table 5,
/// "TreeFunctionCat"), with real subset splits on the categoricals.
class TreeFunctionCat final : public TreeForestProblem {
 public:
  explicit TreeFunctionCat(const sdk::CreateArgs& args);
};

}  // namespace arbo::plugins
