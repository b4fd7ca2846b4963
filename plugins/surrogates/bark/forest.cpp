// SPDX-License-Identifier: MIT
#include "forest.hpp"

#include <bit>
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <boost/random/normal_distribution.hpp>
#include <boost/random/uniform_01.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <nlohmann/json.hpp>

#include <arbo/sdk/error.hpp>

namespace arbo::plugins::bark {

Domain Domain::from_space(const sdk::Space& space) {
  Domain d;
  for (std::size_t i = 0; i < space.size(); ++i) {
    const sdk::Parameter& p = space[i];
    FeatureDomain f;
    switch (p.type) {
      case sdk::ParamType::Real:
        f.kind = FeatureKind::Continuous;
        f.lower = space.lower()[static_cast<Eigen::Index>(i)];
        f.upper = space.upper()[static_cast<Eigen::Index>(i)];
        break;
      case sdk::ParamType::Integer:
        // Integer splits are drawn in user units (paper Sec. 5.1: both children non-empty);
        // a log-scaled integer is encoded as ln(value), so only the routing threshold is
        // moved to the log scale.
        f.kind = FeatureKind::Integer;
        f.lower = std::ceil(p.lower);
        f.upper = std::floor(p.upper);
        f.log_scale = p.log_scale;
        break;
      case sdk::ParamType::Binary:
        f.kind = FeatureKind::Integer;
        f.lower = 0.0;
        f.upper = 1.0;
        break;
      case sdk::ParamType::Categorical:
        if (p.choices.size() > 64) {
          throw sdk::InvalidArgument(
              fmt::format("surrogate/bark: categorical parameter '{}' has {} choices; the "
                          "category subsets of the splits hold at most 64",
                          p.name, p.choices.size()));
        }
        f.kind = FeatureKind::Categorical;
        f.num_categories = static_cast<int>(p.choices.size());
        f.lower = 0.0;
        f.upper = static_cast<double>(p.choices.size()) - 1.0;
        break;
    }
    d.features.push_back(f);
  }
  return d;
}

void Tree::reset() {
  nodes_.clear();
  free_.clear();
  nodes_.reserve(32);
  free_.reserve(32);
  nodes_.push_back(Node{});
}

int Tree::route(const double* x) const {
  int id = 0;
  for (;;) {
    const Node& n = nodes_[static_cast<std::size_t>(id)];
    if (n.left < 0) return id;
    const double v = x[n.feature];
    bool left = false;
    if (n.categories != 0) {
      const auto c = static_cast<long long>(std::llround(v));
      left = c >= 0 && c < 64 && ((n.categories >> c) & 1U) != 0;
    } else {
      // XGBoost's rule, as tree_gp's trees (tree_gp::TreeNode::goes_left): the MIP
      // formulation, the cells and their decoding are LEAF-GP's code (docs/decisions.md).
      left = static_cast<float>(v) < static_cast<float>(n.threshold);
    }
    id = left ? n.left : n.right;
  }
}

int Tree::allocate() {
  if (!free_.empty()) {
    const int id = free_.back();
    free_.pop_back();
    return id;
  }
  nodes_.push_back(Node{});
  return static_cast<int>(nodes_.size()) - 1;
}

int Tree::grow(int leaf, const Rule& rule, int& right) {
  const int l = allocate();
  const int r = allocate();
  Node& n = nodes_[static_cast<std::size_t>(leaf)];
  n.feature = rule.feature;
  n.value = rule.value;
  n.threshold = rule.threshold;
  n.categories = rule.categories;
  n.left = l;
  n.right = r;
  const int depth = n.depth + 1;
  for (int c : {l, r}) {
    Node& child = nodes_[static_cast<std::size_t>(c)];
    child = Node{};
    child.parent = leaf;
    child.depth = depth;
  }
  right = r;
  return l;
}

void Tree::prune(int id) {
  Node& n = nodes_[static_cast<std::size_t>(id)];
  for (int c : {n.left, n.right}) {
    nodes_[static_cast<std::size_t>(c)].parent = -2;
    nodes_[static_cast<std::size_t>(c)].left = -1;
    free_.push_back(c);
  }
  n.left = n.right = n.feature = -1;
  n.categories = 0;
}

void Tree::change(int id, const Rule& rule) {
  Node& n = nodes_[static_cast<std::size_t>(id)];
  n.feature = rule.feature;
  n.value = rule.value;
  n.threshold = rule.threshold;
  n.categories = rule.categories;
}

bool Tree::singly_internal(int id) const {
  const Node& n = nodes_[static_cast<std::size_t>(id)];
  if (n.is_free() || n.left < 0) return false;
  return nodes_[static_cast<std::size_t>(n.left)].left < 0 &&
         nodes_[static_cast<std::size_t>(n.right)].left < 0;
}

int Tree::num_leaves() const {
  int k = 0;
  for (const Node& n : nodes_) k += (!n.is_free() && n.left < 0) ? 1 : 0;
  return k;
}

int Tree::num_singly_internal() const {
  int k = 0;
  for (std::size_t i = 0; i < nodes_.size(); ++i) k += singly_internal(static_cast<int>(i)) ? 1 : 0;
  return k;
}

namespace {

void write_preorder(const Tree& t, int id, nlohmann::json& out) {
  const Node& n = t.node(id);
  if (n.is_leaf()) {
    out.push_back(nullptr);
    return;
  }
  if (n.categories != 0) {
    out.push_back(nlohmann::json::array({n.feature, "c", n.categories}));
  } else {
    out.push_back(nlohmann::json::array({n.feature, n.value}));
  }
  write_preorder(t, n.left, out);
  write_preorder(t, n.right, out);
}

[[noreturn]] void malformed(const std::string& why) {
  throw sdk::InvalidArgument(fmt::format("surrogate/bark: malformed tree state: {}", why));
}

void read_preorder(const nlohmann::json& j, std::size_t& pos, Tree& t, int id,
                   const Domain& domain) {
  if (pos >= j.size()) malformed("the pre-order list ends early");
  const nlohmann::json& e = j[pos++];
  if (e.is_null()) return;
  if (!e.is_array() || e.size() < 2 || !e[0].is_number_integer()) {
    malformed("a decision node is not [feature, value]");
  }
  Rule rule;
  rule.feature = e[0].get<std::int32_t>();
  if (rule.feature < 0 || static_cast<std::size_t>(rule.feature) >= domain.dim()) {
    malformed(
        fmt::format("feature {} outside the space of dimension {}", rule.feature, domain.dim()));
  }
  const FeatureDomain& f = domain.features[static_cast<std::size_t>(rule.feature)];
  if (f.kind == FeatureKind::Categorical) {
    if (e.size() != 3 || !e[2].is_number_unsigned()) malformed("a categorical node has no subset");
    rule.categories = e[2].get<std::uint64_t>();
    if (rule.categories == 0) malformed("a categorical node has an empty subset");
  } else {
    if (!e[1].is_number()) malformed("a numeric node has no value");
    rule.value = e[1].get<double>();
    rule.threshold = f.kind == FeatureKind::Integer ? integer_threshold(f, rule.value) : rule.value;
  }
  int right = -1;
  const int left = t.grow(id, rule, right);
  read_preorder(j, pos, t, left, domain);
  read_preorder(j, pos, t, right, domain);
}

}  // namespace

nlohmann::json Tree::to_json() const {
  nlohmann::json out = nlohmann::json::array();
  write_preorder(*this, 0, out);
  return out;
}

Tree Tree::from_json(const nlohmann::json& j, const Domain& domain) {
  if (!j.is_array()) malformed("a tree is not an array");
  Tree t;
  std::size_t pos = 0;
  read_preorder(j, pos, t, 0, domain);
  if (pos != j.size()) malformed("extra entries after the tree");
  return t;
}

double Rng::uniform() { return boost::random::uniform_01<double>()(engine); }
double Rng::normal() { return boost::random::normal_distribution<double>()(engine); }
int Rng::uniform_int(int n) {
  return boost::random::uniform_int_distribution<int>(0, n - 1)(engine);
}
std::int64_t Rng::uniform_int64(std::int64_t lo, std::int64_t hi) {
  return boost::random::uniform_int_distribution<std::int64_t>(lo, hi)(engine);
}

double integer_threshold(const FeatureDomain& f, double t) {
  return f.log_scale ? std::log(t + 0.5) : t + 0.5;
}

Subspace subspace_of(const Tree& tree, int id, int feature, const Domain& domain) {
  const FeatureDomain& f = domain.features[static_cast<std::size_t>(feature)];
  Subspace s;
  s.lower = f.lower;
  s.upper = f.upper;
  if (f.kind == FeatureKind::Categorical) {
    s.available =
        f.num_categories >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << f.num_categories) - 1U;
  }
  int child = id;
  int parent = tree.node(id).parent;
  while (parent >= 0) {
    const Node& a = tree.node(parent);
    if (a.feature == feature) {
      const bool left = a.left == child;
      switch (f.kind) {
        case FeatureKind::Continuous:
          if (left) {
            s.upper = std::min(s.upper, a.value);
          } else {
            s.lower = std::max(s.lower, a.value);
          }
          break;
        case FeatureKind::Integer:
          if (left) {
            s.upper = std::min(s.upper, a.value);
          } else {
            s.lower = std::max(s.lower, a.value + 1.0);
          }
          break;
        case FeatureKind::Categorical: s.available &= left ? a.categories : ~a.categories; break;
      }
    }
    child = parent;
    parent = a.parent;
  }
  return s;
}

bool draw_rule(const Tree& tree, int id, const Domain& domain, Rng& rng, Rule& rule) {
  const int feature = rng.uniform_int(static_cast<int>(domain.dim()));
  const FeatureDomain& f = domain.features[static_cast<std::size_t>(feature)];
  const Subspace s = subspace_of(tree, id, feature, domain);
  rule = Rule{};
  rule.feature = feature;
  switch (f.kind) {
    case FeatureKind::Continuous: {
      if (!(s.upper > s.lower)) return false;
      // A float32 threshold (routing compares in float32, as XGBoost); one that rounds onto
      // the subspace's ends would leave a side empty, and is rejected like an unsplittable
      // draw (probability about 1e-7 times the subspace's inverse width).
      rule.value =
          static_cast<double>(static_cast<float>(s.lower + rng.uniform() * (s.upper - s.lower)));
      if (!(rule.value > s.lower && rule.value < s.upper)) return false;
      rule.threshold = rule.value;
      return true;
    }
    case FeatureKind::Integer: {
      if (!(s.upper - s.lower >= 1.0)) return false;
      const auto lo = static_cast<std::int64_t>(s.lower);
      const auto hi = static_cast<std::int64_t>(s.upper) - 1;
      rule.value = static_cast<double>(rng.uniform_int64(lo, hi));
      rule.threshold = integer_threshold(f, rule.value);
      return true;
    }
    case FeatureKind::Categorical: {
      if (std::popcount(s.available) < 2) return false;
      // Uniform over the 2^k - 2 non-trivial subsets: uniform over all 2^k by independent
      // fair bits, rejecting the empty and the full set (at most half the draws, k = 2).
      std::uint64_t subset = 0;
      do {
        subset = rng.bits() & s.available;
      } while (subset == 0 || subset == s.available);
      rule.categories = subset;
      return true;
    }
  }
  return false;
}

double log_rule_density(const Tree& tree, int id, const Rule& rule, const Domain& domain) {
  const FeatureDomain& f = domain.features[static_cast<std::size_t>(rule.feature)];
  const Subspace s = subspace_of(tree, id, rule.feature, domain);
  const double log_d = std::log(static_cast<double>(domain.dim()));
  switch (f.kind) {
    case FeatureKind::Continuous:
    case FeatureKind::Integer: return -log_d - std::log(s.upper - s.lower);
    case FeatureKind::Categorical: {
      const int k = std::popcount(s.available);
      return -log_d - std::log(std::ldexp(1.0, k) - 2.0);
    }
  }
  return -std::numeric_limits<double>::infinity();
}

double log_tree_prior(const Tree& tree, const Domain& domain, double alpha, double beta) {
  double lp = 0.0;
  for (std::size_t i = 0; i < tree.nodes().size(); ++i) {
    const Node& n = tree.nodes()[i];
    if (n.is_free()) continue;
    const double p = alpha * std::pow(1.0 + n.depth, -beta);
    if (n.is_leaf()) {
      lp += std::log1p(-p);
    } else {
      Rule r;
      r.feature = n.feature;
      r.value = n.value;
      r.categories = n.categories;
      lp += std::log(p) + log_rule_density(tree, static_cast<int>(i), r, domain);
    }
  }
  return lp;
}

}  // namespace arbo::plugins::bark
