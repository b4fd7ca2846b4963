// SPDX-License-Identifier: MIT
#include "tree_function.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>

#include <fmt/format.h>

#include <arbo/sdk/error.hpp>

#include "portable_random.hpp"

namespace arbo::plugins {

namespace {

using Node = TreeForestProblem::Node;

constexpr double kAlpha = 0.95;
constexpr double kBeta = 2.0;
constexpr int kNumCategories = 5;
constexpr std::uint32_t kAllCategories = (1u << kNumCategories) - 1u;
// The prior dies out fast (P(depth >= 6) < 1e-6 per tree); the cap only bounds a pathological
// stream and never triggers for the default seeds.
constexpr int kMaxDepth = 16;
constexpr int kMaxDims = 32;

int grow(std::vector<Node>& tree, int depth, int num_features, int num_real,
         problems_common::PortableRng& rng) {
  const int index = static_cast<int>(tree.size());
  tree.emplace_back();
  const double split_probability = kAlpha * std::pow(1.0 + depth, -kBeta);
  if (rng.uniform() < split_probability && depth < kMaxDepth) {
    const int feature = static_cast<int>(rng.index(static_cast<std::uint64_t>(num_features)));
    tree[static_cast<std::size_t>(index)].feature = feature;
    if (feature < num_real) {
      tree[static_cast<std::size_t>(index)].threshold = rng.uniform();
    } else {
      // Masks 1 .. 2^K - 2 are exactly the non-empty proper subsets.
      tree[static_cast<std::size_t>(index)].subset =
          1u + static_cast<std::uint32_t>(rng.index(kAllCategories - 1u));
    }
    const int left = grow(tree, depth + 1, num_features, num_real, rng);
    const int right = grow(tree, depth + 1, num_features, num_real, rng);
    tree[static_cast<std::size_t>(index)].left = left;
    tree[static_cast<std::size_t>(index)].right = right;
  } else {
    tree[static_cast<std::size_t>(index)].value = rng.normal();
  }
  return index;
}

// The set of points still possible: per real feature an interval [lo, hi] or (lo, hi], per
// categorical feature a set of categories.
struct Cell {
  std::array<double, kMaxDims> lo{};
  std::array<double, kMaxDims> hi{};
  std::array<bool, kMaxDims> lo_open{};
  std::array<std::uint32_t, kMaxDims> categories{};
};

class ForestMinimizer {
 public:
  ForestMinimizer(const std::vector<std::vector<Node>>& trees, int num_real, int num_features)
      : trees_(trees), num_real_(num_real), num_features_(num_features) {
    order_.resize(trees.size());
    std::iota(order_.begin(), order_.end(), std::size_t{0});
    // Trees with the widest spread of leaf values decide the most; branching on them first
    // tightens the bound earliest.
    std::vector<double> spread(trees.size());
    for (std::size_t t = 0; t < trees.size(); ++t) {
      double lo = std::numeric_limits<double>::infinity(), hi = -lo;
      for (const Node& n : trees[t]) {
        if (n.feature < 0) {
          lo = std::min(lo, n.value);
          hi = std::max(hi, n.value);
        }
      }
      spread[t] = hi - lo;
    }
    std::stable_sort(order_.begin(), order_.end(),
                     [&](std::size_t a, std::size_t b) { return spread[a] > spread[b]; });
  }

  // Returns f* and the optimal cell.
  std::pair<double, Cell> run() {
    Cell cell;
    for (int f = 0; f < num_features_; ++f) {
      const auto i = static_cast<std::size_t>(f);
      cell.lo[i] = 0.0;
      cell.hi[i] = 1.0;
      cell.lo_open[i] = false;
      cell.categories[i] = kAllCategories;
    }
    search(0, cell, 0.0);
    return {best_, best_cell_};
  }

 private:
  // Narrows `cell` to one side of `node`'s split; false if that side is empty in `cell`.
  bool narrow(const Node& node, bool left, Cell& cell) const {
    const auto f = static_cast<std::size_t>(node.feature);
    if (node.feature < num_real_) {
      if (left) {
        cell.hi[f] = std::min(cell.hi[f], node.threshold);
      } else if (node.threshold >= cell.lo[f]) {
        cell.lo[f] = node.threshold;
        cell.lo_open[f] = true;
      }
      return cell.lo[f] < cell.hi[f] || (cell.lo[f] == cell.hi[f] && !cell.lo_open[f]);
    }
    cell.categories[f] &= left ? node.subset : ~node.subset;
    return cell.categories[f] != 0;
  }

  double reachable_min(const std::vector<Node>& tree, int index, Cell& cell) const {
    const Node& node = tree[static_cast<std::size_t>(index)];
    if (node.feature < 0) return node.value;
    double best = std::numeric_limits<double>::infinity();
    for (const bool left : {true, false}) {
      Cell narrowed = cell;
      if (narrow(node, left, narrowed)) {
        best = std::min(best, reachable_min(tree, left ? node.left : node.right, narrowed));
      }
    }
    return best;
  }

  void collect(const std::vector<Node>& tree, int index, const Cell& cell,
               std::vector<std::pair<double, Cell>>& out) const {
    const Node& node = tree[static_cast<std::size_t>(index)];
    if (node.feature < 0) {
      out.emplace_back(node.value, cell);
      return;
    }
    for (const bool left : {true, false}) {
      Cell narrowed = cell;
      if (narrow(node, left, narrowed)) collect(tree, left ? node.left : node.right, narrowed, out);
    }
  }

  void search(std::size_t depth, Cell& cell, double sum) {
    if (depth == order_.size()) {
      if (sum < best_) {
        best_ = sum;
        best_cell_ = cell;
      }
      return;
    }
    double bound = sum;
    for (std::size_t k = depth; k < order_.size(); ++k) {
      bound += reachable_min(trees_[order_[k]], 0, cell);
    }
    if (bound >= best_) return;
    std::vector<std::pair<double, Cell>> leaves;
    collect(trees_[order_[depth]], 0, cell, leaves);
    std::stable_sort(leaves.begin(), leaves.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& [value, leaf_cell] : leaves) search(depth + 1, leaf_cell, sum + value);
  }

  const std::vector<std::vector<Node>>& trees_;
  int num_real_;
  int num_features_;
  std::vector<std::size_t> order_;
  double best_ = std::numeric_limits<double>::infinity();
  Cell best_cell_;
};

sdk::Space forest_space(int num_real, int num_categorical) {
  std::vector<sdk::Parameter> p;
  for (int i = 0; i < num_real; ++i)
    p.push_back(sdk::Parameter::real(fmt::format("x_{}", i), 0.0, 1.0));
  for (int i = 0; i < num_categorical; ++i) {
    p.push_back(sdk::Parameter::categorical(fmt::format("c_{}", i), {"a", "b", "c", "d", "e"}));
  }
  return sdk::Space(std::move(p));
}

}  // namespace

const sdk::ParamSpecList& TreeForestProblem::params() {
  static const sdk::ParamSpecList specs = {
      sdk::ParamSpec::integer("seed",
                              "Seed of the forest (PortableRng: std::mt19937_64 with the "
                              "plugin's own transforms, identical on every machine)",
                              1, 0, 4294967295.0),
      sdk::ParamSpec::integer("num_trees", "Number of trees m (50 in the BARK paper)", 50, 1, 100)
          .as_advanced(),
  };
  return specs;
}

TreeForestProblem::TreeForestProblem(std::string id, int num_real, int num_categorical,
                                     const sdk::ParamSet& values)
    : BenchmarkProblem(std::move(id), forest_space(num_real, num_categorical)),
      num_real_(num_real),
      num_categorical_(num_categorical),
      seed_(static_cast<std::uint64_t>(values.get_int("seed"))) {
  const auto num_trees = static_cast<int>(values.get_int("num_trees"));
  const int num_features = num_real + num_categorical;
  problems_common::PortableRng rng(seed_);
  trees_.resize(static_cast<std::size_t>(num_trees));
  for (auto& tree : trees_) grow(tree, 0, num_features, num_real, rng);
  minimize();
}

void TreeForestProblem::minimize() {
  const int num_features = num_real_ + num_categorical_;
  auto [best, cell] = ForestMinimizer(trees_, num_real_, num_features).run();
  optimizer_.resize(num_features);
  for (int f = 0; f < num_features; ++f) {
    const auto i = static_cast<std::size_t>(f);
    if (f < num_real_) {
      // The centre of the cell, away from the closed/open boundaries.
      optimizer_[f] = cell.lo[i] == cell.hi[i] ? cell.lo[i] : 0.5 * (cell.lo[i] + cell.hi[i]);
    } else {
      int c = 0;
      while (((cell.categories[i] >> c) & 1u) == 0u) ++c;
      optimizer_[f] = c;
    }
  }
  // Reported as evaluated, so f(x*) == f* holds bit for bit (same summation order).
  optimum_ = value_at(optimizer_);
  if (std::abs(optimum_ - best) > 1e-9) {
    throw sdk::Error(
        fmt::format("problem/{}: the optimal cell's centre evaluates to {} but the "
                    "branch and bound found {}",
                    id(), optimum_, best));
  }
}

double TreeForestProblem::value_at(const Eigen::VectorXd& x) const {
  double f = 0.0;
  for (const auto& tree : trees_) {
    int index = 0;
    while (tree[static_cast<std::size_t>(index)].feature >= 0) {
      const Node& node = tree[static_cast<std::size_t>(index)];
      bool left;
      if (node.feature < num_real_) {
        left = x[node.feature] <= node.threshold;
      } else {
        const auto c = static_cast<int>(std::lround(x[node.feature]));
        left = ((node.subset >> c) & 1u) != 0u;
      }
      index = left ? node.left : node.right;
    }
    f += tree[static_cast<std::size_t>(index)].value;
  }
  return f;
}

sdk::ProblemInfo TreeForestProblem::info() const {
  sdk::ProblemInfo i;
  i.source = fmt::format(
      "BARK (Boyne et al.), Table 5 TreeFunction{}: a forest of {} trees drawn from the BART "
      "prior (alpha 0.95, beta 2), leaf values N(0,1); own instance from seed {} "
      "(BARK Sec. 7.2, Table 5); f* exact by branch and bound over the cells",
      num_categorical_ > 0 ? "Cat" : "", trees_.size(), seed_);
  i.optimum = optimum_;
  i.optimizers = {optimizer_};
  return i;
}

void TreeForestProblem::evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) {
  prepare(x, out);
  out.objective = value_at(x);
}

TreeFunction::TreeFunction(const sdk::CreateArgs& args)
    : TreeForestProblem("tree_function", 10, 0, args.params) {}

TreeFunctionCat::TreeFunctionCat(const sdk::CreateArgs& args)
    : TreeForestProblem("tree_function_cat", 10, 10, args.params) {}

}  // namespace arbo::plugins
