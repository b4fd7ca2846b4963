// SPDX-License-Identifier: MIT
#include "tree_ensemble.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <memory>
#include <string_view>

#include <fmt/format.h>
#include <xgboost/c_api.h>
#include <nlohmann/json.hpp>

#include <arbo/sdk/error.hpp>

namespace arbo::plugins::tree_gp {

namespace {

void check(int rc, const char* what) {
  if (rc != 0) {
    throw sdk::Error(
        fmt::format("surrogate/tree_gp: XGBoost failed in {}: {}", what, XGBGetLastError()));
  }
}

struct DMatrix {
  DMatrixHandle h = nullptr;
  ~DMatrix() {
    if (h != nullptr) XGDMatrixFree(h);
  }
};
struct Booster {
  BoosterHandle h = nullptr;
  ~Booster() {
    if (h != nullptr) XGBoosterFree(h);
  }
};

double number(const nlohmann::json& v) {
  // XGBoost writes NaN for the split condition of categorical nodes (nulled before parsing).
  return v.is_null() ? std::nan("") : v.get<double>();
}

}  // namespace

bool TreeNode::goes_left(double value) const {
  if (std::isnan(value)) return default_left;
  if (categorical) {
    // XGBoost: categories in the node's set go right; negative or non-integral values are
    // invalid categories, which XGBoost sends left.
    if (value < 0.0 || value != std::floor(value)) return true;
    const int c = static_cast<int>(value);
    return !std::binary_search(right_categories.begin(), right_categories.end(), c);
  }
  return static_cast<float>(value) < static_cast<float>(threshold);
}

int Tree::leaf_of(const double* x) const {
  int node = 0;
  while (!nodes[static_cast<std::size_t>(node)].is_leaf()) {
    const TreeNode& n = nodes[static_cast<std::size_t>(node)];
    node = n.goes_left(x[n.feature]) ? n.left : n.right;
  }
  return node;
}

int Tree::leaf_index(int node) const {
  const auto it = std::lower_bound(leaves.begin(), leaves.end(), node);
  if (it == leaves.end() || *it != node) return -1;
  return static_cast<int>(it - leaves.begin());
}

double Ensemble::predict(const double* x) const {
  // XGBoost accumulates in float; so does this, so that predictions agree to the last bit
  // in the common case.
  float sum = static_cast<float>(base_score);
  for (const Tree& t : trees) {
    sum += static_cast<float>(t.nodes[static_cast<std::size_t>(t.leaf_of(x))].leaf_value);
  }
  return sum;
}

namespace {

// XGBoost writes non-finite numbers as bare words (NaN, nan, Infinity, inf, maybe signed),
// which are not JSON: each becomes null. One pass over the words outside strings.
std::string null_non_finite(const std::string& json) {
  std::string out;
  out.reserve(json.size());
  bool in_string = false;
  for (std::size_t i = 0; i < json.size();) {
    const char c = json[i];
    if (in_string || c == '"') {
      const bool escaped = in_string && c == '\\' && i + 1 < json.size();
      out.append(json, i, escaped ? 2 : 1);
      if (!escaped) in_string = c == '"' ? !in_string : in_string;
      i += escaped ? 2 : 1;
      continue;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) == 0) {
      out += c;
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < json.size() && std::isalnum(static_cast<unsigned char>(json[end])) != 0) ++end;
    const std::string_view word(json.data() + i, end - i);
    if (word == "NaN" || word == "nan" || word == "Infinity" || word == "inf") {
      if (!out.empty() && (out.back() == '-' || out.back() == '+')) out.pop_back();
      out += "null";
    } else {
      out += word;
    }
    i = end;
  }
  return out;
}

}  // namespace

Ensemble parse_ensemble_json(const std::string& json) {
  const nlohmann::json doc = nlohmann::json::parse(null_non_finite(json));
  Ensemble e;
  e.model_json = json;
  const auto& learner = doc.at("learner");
  e.base_score = std::stod(learner.at("learner_model_param").at("base_score").get<std::string>());
  const auto& booster = learner.at("gradient_booster");
  if (booster.at("name").get<std::string>() != "gbtree") {
    throw sdk::Error("surrogate/tree_gp: expected a gbtree booster in the XGBoost model");
  }
  for (const auto& jt : booster.at("model").at("trees")) {
    Tree t;
    const auto& left = jt.at("left_children");
    const auto& right = jt.at("right_children");
    const auto& feat = jt.at("split_indices");
    const auto& cond = jt.at("split_conditions");
    const auto& dleft = jt.at("default_left");
    const std::size_t n = left.size();
    t.nodes.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      TreeNode& node = t.nodes[i];
      node.left = left[i].get<int>();
      node.right = right[i].get<int>();
      node.feature = feat[i].get<int>();
      node.default_left = dleft[i].get<int>() != 0;
      if (node.is_leaf()) {
        node.leaf_value = number(cond[i]);
        node.feature = -1;
      } else {
        node.threshold = number(cond[i]);
      }
    }
    if (jt.contains("split_type")) {
      const auto& types = jt.at("split_type");
      for (std::size_t i = 0; i < n && i < types.size(); ++i) {
        t.nodes[i].categorical = types[i].get<int>() == 1;
      }
      const auto& cats = jt.at("categories");
      const auto& cnodes = jt.at("categories_nodes");
      const auto& csegs = jt.at("categories_segments");
      const auto& csizes = jt.at("categories_sizes");
      for (std::size_t k = 0; k < cnodes.size(); ++k) {
        const auto node = cnodes[k].get<std::size_t>();
        const auto beg = csegs[k].get<std::size_t>();
        const auto size = csizes[k].get<std::size_t>();
        std::vector<int>& set = t.nodes.at(node).right_categories;
        for (std::size_t j = beg; j < beg + size; ++j) set.push_back(cats.at(j).get<int>());
        std::sort(set.begin(), set.end());
      }
    }
    fill_paths(t);
    e.trees.push_back(std::move(t));
  }
  return e;
}

Ensemble train_ensemble(const Eigen::MatrixXd& X, const Eigen::VectorXd& y,
                        const std::vector<bool>& categorical, const BoostConfig& config) {
  const auto n = static_cast<bst_ulong>(X.rows());
  const auto d = static_cast<bst_ulong>(X.cols());
  std::vector<float> data(static_cast<std::size_t>(n * d));
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    for (Eigen::Index j = 0; j < X.cols(); ++j) {
      data[static_cast<std::size_t>(i) * d + static_cast<std::size_t>(j)] =
          static_cast<float>(X(i, j));
    }
  }
  std::vector<float> label(y.data(), y.data() + y.size());
  DMatrix dm;
  check(XGDMatrixCreateFromMat(data.data(), n, d, std::nanf(""), &dm.h), "XGDMatrixCreateFromMat");
  check(XGDMatrixSetFloatInfo(dm.h, "label", label.data(), n), "XGDMatrixSetFloatInfo");
  const bool any_categorical =
      std::find(categorical.begin(), categorical.end(), true) != categorical.end();
  if (any_categorical) {
    std::vector<const char*> types;
    for (bool c : categorical) types.push_back(c ? "c" : "q");
    check(XGDMatrixSetStrFeatureInfo(dm.h, "feature_type", types.data(), d),
          "XGDMatrixSetStrFeatureInfo");
  }
  Booster b;
  check(XGBoosterCreate(&dm.h, 1, &b.h), "XGBoosterCreate");
  // Native categorical splits exist only in the histogram methods; without categoricals the
  // exact method puts thresholds at midpoints between training values, as LightGBM's binning
  // does on small data.
  std::string method = config.tree_method;
  if (method == "auto") method = any_categorical ? "hist" : "exact";
  if (method == "exact" && any_categorical) method = "hist";
  const double mean = y.size() > 0 ? y.mean() : 0.0;
  const std::vector<std::pair<std::string, std::string>> params{
      {"booster", "gbtree"},
      {"objective", "reg:squarederror"},
      {"tree_method", method},
      {"nthread", "1"},
      {"seed", fmt::format("{}", config.seed & 0x7fffffffULL)},
      {"max_depth", fmt::format("{}", config.max_depth)},
      {"eta", fmt::format("{:.17g}", config.learning_rate)},
      {"min_child_weight", fmt::format("{:.17g}", config.min_child_weight)},
      {"lambda", fmt::format("{:.17g}", config.reg_lambda)},
      {"alpha", "0"},
      {"gamma", "0"},
      {"subsample", "1"},
      {"colsample_bytree", "1"},
      {"max_bin", fmt::format("{}", config.max_bin)},
      {"max_cat_to_onehot", fmt::format("{}", config.max_cat_to_onehot)},
      // LightGBM's boost_from_average: start from the mean of y.
      {"base_score", fmt::format("{:.17g}", mean)},
      {"verbosity", "0"}};
  for (const auto& [k, v] : params) check(XGBoosterSetParam(b.h, k.c_str(), v.c_str()), k.c_str());
  for (int it = 0; it < config.rounds; ++it) {
    check(XGBoosterUpdateOneIter(b.h, it, dm.h), "XGBoosterUpdateOneIter");
  }
  bst_ulong len = 0;
  const char* buf = nullptr;
  check(XGBoosterSaveModelToBuffer(b.h, R"({"format": "json"})", &len, &buf),
        "XGBoosterSaveModelToBuffer");
  return parse_ensemble_json(std::string(buf, len));
}

void fill_paths(Tree& tree) {
  tree.leaves.clear();
  tree.paths.clear();
  std::vector<PathStep> path;
  // Iterative DFS: trees are shallow, but a malformed model must not recurse forever.
  struct Item {
    int node;
    std::size_t depth;
    PathStep step;
  };
  std::vector<Item> stack{{0, 0, {}}};
  std::vector<std::pair<int, std::vector<PathStep>>> found;
  while (!stack.empty()) {
    Item it = stack.back();
    stack.pop_back();
    path.resize(it.depth);
    if (it.depth > 0) path[it.depth - 1] = it.step;
    if (it.node < 0 || static_cast<std::size_t>(it.node) >= tree.nodes.size() ||
        it.depth > tree.nodes.size()) {
      throw sdk::Error("malformed tree: a child outside the node list, or a cycle");
    }
    const TreeNode& n = tree.nodes[static_cast<std::size_t>(it.node)];
    if (n.is_leaf()) {
      found.emplace_back(it.node, path);
      continue;
    }
    stack.push_back({n.right, it.depth + 1, {it.node, false}});
    stack.push_back({n.left, it.depth + 1, {it.node, true}});
  }
  std::sort(found.begin(), found.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [node, p] : found) {
    tree.leaves.push_back(node);
    tree.paths.push_back(std::move(p));
  }
}

}  // namespace arbo::plugins::tree_gp
