// SPDX-License-Identifier: MIT
/// @file
/// @brief BARK's trees: node arrays, the input domain seen by the split rule, the
/// uniform-in-node-subspace split rule, routing, and compact serialization.
///
/// Boyne et al., "BARK: A Fully Bayesian Tree Kernel for Black-box Optimization": Sec. 5.1
/// (the uniform splitting rule), Sec. 2 (the BART tree prior, eqs. 3-5).
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <nlohmann/json_fwd.hpp>

#include <arbo/sdk/space.hpp>

namespace arbo::plugins::bark {

/// How the split rule treats one encoded coordinate.
enum class FeatureKind : std::uint8_t {
  Continuous,   ///< Real parameter: threshold t ~ U(lb, ub) in encoded units (ln if log-scaled)
  Integer,      ///< Integer or Binary: t uniform in {lb, ..., ub - 1}, in user units
  Categorical,  ///< category index 0..k-1: a non-trivial subset of the available categories
};

/// The split rule's view of one coordinate.
struct FeatureDomain {
  FeatureKind kind = FeatureKind::Continuous;
  double lower = 0.0;      ///< Continuous: encoded bound; Integer: user-unit integer bound
  double upper = 1.0;      ///< likewise
  bool log_scale = false;  ///< Integer only: the encoded coordinate is ln(value)
  int num_categories = 0;  ///< Categorical only (at most 64)
};

/// Every coordinate of the encoded space, in order.
struct Domain {
  std::vector<FeatureDomain> features;
  std::size_t dim() const noexcept { return features.size(); }
  /// From the SDK space. Inactive conditional coordinates hold their default after snapping
  /// (space.hpp), so trees split on them like on any value, as tree_gp and mondrian_forest do.
  /// @throws sdk::InvalidArgument for a categorical parameter with more than 64 choices.
  static Domain from_space(const sdk::Space& space);
};

/// One node of a tree. Leaves have `left == right == -1`; a node's id is its index in
/// `Tree::nodes` (leaf ids are node ids). Routing: numeric features go left iff
/// float32(x[feature]) < float32(threshold), XGBoost's rule, which tree_gp's formulation and
/// cells assume (the paper's x <= t differs on a set of measure zero: continuous thresholds
/// are float32 values, integer ones t + 1/2); categorical ones iff bit x[feature] of
/// `categories` is set.
struct Node {
  std::int32_t feature = -1;
  std::int32_t left = -1;
  std::int32_t right = -1;
  std::int32_t parent = -1;  ///< -1 for the root, -2 for a free slot
  std::int32_t depth = 0;    ///< root depth 0
  /// Continuous: the threshold (encoded units). Integer: the split integer t in user units
  /// (left iff value <= t); the left child's subspace ends at t, the right child's starts at
  /// t + 1.
  double value = 0.0;
  /// Numeric routing threshold in encoded units. Integer: t + 1/2 (ln(t + 1/2) if log-scaled),
  /// which is "value <= t" on every snapped point and agrees with the SDK's rounding for
  /// points between grid values.
  double threshold = 0.0;
  std::uint64_t categories = 0;  ///< Categorical: the left subset (bit c = category c)

  bool is_leaf() const noexcept { return left < 0; }
  bool is_free() const noexcept { return parent == -2; }
};

/// A split rule: what a grow or change move writes into a node.
struct Rule {
  std::int32_t feature = -1;
  double value = 0.0;
  double threshold = 0.0;
  std::uint64_t categories = 0;
};

/// A binary tree in a node array with a free list (node 0 is always the root).
class Tree {
 public:
  Tree() { reset(); }
  /// Back to a single root leaf (keeps the capacity).
  void reset();
  const std::vector<Node>& nodes() const noexcept { return nodes_; }
  const Node& node(int id) const { return nodes_[static_cast<std::size_t>(id)]; }
  /// Leaf id holding x (pointer to d encoded coordinates). O(depth).
  int route(const double* x) const;
  /// Turns leaf `leaf` into a decision node with `rule`; returns the id of its left child
  /// (the right one is returned through `right`). Precondition: `leaf` is a leaf.
  int grow(int leaf, const Rule& rule, int& right);
  /// Turns decision node `node`, whose children are both leaves, into a leaf.
  void prune(int node);
  /// Replaces the rule of decision node `node`.
  void change(int node, const Rule& rule);
  /// Number of leaves (w0) and of singly-internal nodes (decision nodes whose two children are
  /// leaves, w1). O(nodes).
  int num_leaves() const;
  int num_singly_internal() const;
  /// True when node `id` is a decision node with two leaf children.
  bool singly_internal(int id) const;

  /// Pre-order form: a leaf is `null`, a decision node `[feature, value]` (numeric) or
  /// `[feature, "c", categories]` (categorical), followed by its left then right subtree.
  nlohmann::json to_json() const;
  /// Inverse of `to_json`; thresholds are recomputed from `domain`.
  /// @throws sdk::InvalidArgument for a malformed array or a feature outside the domain.
  static Tree from_json(const nlohmann::json& j, const Domain& domain);

 private:
  int allocate();
  std::vector<Node> nodes_;
  std::vector<int> free_;
};

/// The portable random source of the MCMC (Boost.Random distributions over a 64-bit
/// Mersenne Twister, so that draws are the same on every standard library).
struct Rng {
  explicit Rng(std::uint64_t seed) : engine(seed) {}
  std::mt19937_64 engine;
  double uniform();        ///< U[0, 1)
  double normal();         ///< N(0, 1)
  int uniform_int(int n);  ///< uniform in {0, ..., n - 1}; n >= 1
  std::int64_t uniform_int64(std::int64_t lo, std::int64_t hi);  ///< in {lo, ..., hi}
  std::uint64_t bits() { return engine(); }
};

/// The subspace of `feature` at node `id`: the domain's bounds (or all categories) narrowed by
/// the rules of the node's ancestors on that feature. For Integer, bounds in user units.
struct Subspace {
  double lower = 0.0;
  double upper = 0.0;
  std::uint64_t available = 0;  ///< Categorical: bit c set iff category c can reach the node
};
Subspace subspace_of(const Tree& tree, int id, int feature, const Domain& domain);

/// Routing threshold (encoded) of integer split t for domain feature `f`: t + 1/2, or
/// ln(t + 1/2) when log-scaled.
double integer_threshold(const FeatureDomain& f, double t);

/// Draws a rule from the splitting-rule prior at node `id` (paper Sec. 5.1): feature uniform
/// over all d coordinates, then a threshold uniform over the node's subspace of it
/// (continuous: U(lb, ub); integer: {lb..ub-1}; categorical: uniform over the 2^k - 2
/// non-trivial subsets of the k available categories). Returns false, with no rule, when the
/// drawn feature cannot be split there (lb = ub, or k < 2): the caller rejects the move
/// rather than redrawing, as the reference code does, so that the prior is the BART one
/// restricted to trees without unsplittable rules.
bool draw_rule(const Tree& tree, int id, const Domain& domain, Rng& rng, Rule& rule);

/// log of the rule's prior density at node `id` given its feature: -log d - log(ub - lb)
/// (continuous), -log d - log(ub - lb) (integer, ub - lb choices), -log d - log(2^k - 2)
/// (categorical). For tests and diagnostics (the moves never need it: it cancels).
double log_rule_density(const Tree& tree, int id, const Rule& rule, const Domain& domain);

/// log of the BART tree prior (paper eqs. 3-5) with the uniform split rule:
/// sum over decision nodes of log(alpha (1+d)^-beta) + log_rule_density, plus sum over leaves
/// of log(1 - alpha (1+d)^-beta). Tests compare move ratios with differences of it.
double log_tree_prior(const Tree& tree, const Domain& domain, double alpha, double beta);

/// Writes encoded point `x` (length d) of a column-major matrix row into `out`.
inline void copy_row(const Eigen::MatrixXd& X, Eigen::Index i, double* out) {
  for (Eigen::Index j = 0; j < X.cols(); ++j) out[j] = X(i, j);
}

}  // namespace arbo::plugins::bark
