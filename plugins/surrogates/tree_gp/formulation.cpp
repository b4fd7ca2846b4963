// SPDX-License-Identifier: MIT
#include "formulation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string>

#include <fmt/format.h>

#include <arbo/sdk/error.hpp>

namespace arbo::plugins::tree_gp {

namespace {

using sdk::LinearRow;
using sdk::LinearTerm;
using sdk::RowSense;

constexpr double kMaxIntegerParentValues = 256;

// Left side of a numeric split in closed MIP form: x <= left_bound, right: x >= right_bound.
// XGBoost sends x < v left, so for an integer x the left side is x <= ceil(v) - 1.
struct Cut {
  double left_bound;
  double right_bound;
};

Cut cut_of(const sdk::Parameter& p, double threshold) {
  if (integral_coordinate(p)) {
    const double k = std::ceil(threshold);
    return {k - 1.0, k};
  }
  return {threshold, threshold};
}

// The whole domain as a cell: every category allowed.
Cell domain_cell(const sdk::Space& space) {
  Cell cell;
  cell.lower = space.lower();
  cell.upper = space.upper();
  cell.upper_open.assign(space.size(), false);
  cell.allowed.resize(space.size());
  for (std::size_t i = 0; i < space.size(); ++i) {
    if (space[i].type != sdk::ParamType::Categorical) continue;
    for (std::size_t c = 0; c < space[i].choices.size(); ++c) {
      cell.allowed[i].push_back(static_cast<int>(c));
    }
  }
  return cell;
}

// Intersects `cell` with the box of leaf `l` (position in Tree::leaves) of `tree`.
void narrow_to_leaf(Cell& cell, const sdk::Space& space, const Tree& tree, std::size_t l) {
  for (const PathStep& step : tree.paths[l]) {
    const TreeNode& n = tree.nodes[static_cast<std::size_t>(step.node)];
    const auto i = static_cast<std::size_t>(n.feature);
    const auto j = static_cast<Eigen::Index>(i);
    if (n.categorical) {
      auto& a = cell.allowed[i];
      a.erase(std::remove_if(a.begin(), a.end(),
                             [&](int c) {
                               const bool right = std::binary_search(n.right_categories.begin(),
                                                                     n.right_categories.end(), c);
                               return right == step.left;
                             }),
              a.end());
    } else {
      const Cut cut = cut_of(space[i], n.threshold);
      if (step.left) {
        if (cut.left_bound <= cell.upper[j]) {
          cell.upper[j] = cut.left_bound;
          cell.upper_open[i] = !integral_coordinate(space[i]);
        }
      } else {
        cell.lower[j] = std::max(cell.lower[j], cut.right_bound);
      }
    }
  }
}

}  // namespace

bool integral_coordinate(const sdk::Parameter& p) {
  return p.type == sdk::ParamType::Binary || (p.type == sdk::ParamType::Integer && !p.log_scale);
}

namespace {

// What the GPs of one formulation share: the one-hot binaries of categorical coordinates and
// one binary per distinct numeric cut (Misic's y_{i,j}), over the trees of every GP.
struct SharedVars {
  std::vector<std::vector<int>> onehot;   // per coordinate: one binary per category, or empty
  std::vector<std::map<double, int>> nu;  // per coordinate: cut's right bound -> binary
};

SharedVars add_shared(sdk::Model& model, const sdk::PointVariables& point, const sdk::Space& space,
                      const std::vector<const TreeKernelGp*>& gps) {
  const std::size_t d = space.size();
  const auto& lower = space.lower();
  const auto& upper = space.upper();
  SharedVars v;
  // Which categorical coordinates need one-hot binaries: those split on, and condition parents.
  std::vector<bool> needs_onehot(d, false);
  for (const TreeKernelGp* gp : gps) {
    for (int t : gp->active_trees()) {
      for (const TreeNode& n : gp->ensemble().trees[static_cast<std::size_t>(t)].nodes) {
        if (!n.is_leaf() && n.categorical)
          needs_onehot.at(static_cast<std::size_t>(n.feature)) = true;
      }
    }
  }
  for (std::size_t i = 0; i < d; ++i) {
    if (!space[i].condition) continue;
    const auto parent = space.index_of(space[i].condition->parent);
    if (parent && space[*parent].type == sdk::ParamType::Categorical) needs_onehot[*parent] = true;
  }
  v.onehot.resize(d);
  for (std::size_t i = 0; i < d; ++i) {
    if (!needs_onehot[i]) continue;
    const sdk::Parameter& p = space[i];
    if (p.type != sdk::ParamType::Categorical) {
      throw sdk::Error(
          fmt::format("the trees split on '{}' as a category but it is not categorical", p.name));
    }
    LinearRow sum{fmt::format("tg_onehot_{}", i), {}, RowSense::Equal, 1.0};
    LinearRow link{fmt::format("tg_cat_{}", i), {{point.x_vars[i], 1.0}}, RowSense::Equal, 0.0};
    for (std::size_t c = 0; c < p.choices.size(); ++c) {
      const int var =
          model.add_variable(fmt::format("tg_nu_{}_{}", i, c), sdk::VarType::Binary, 0, 1);
      v.onehot[i].push_back(var);
      sum.terms.push_back({var, 1.0});
      if (c > 0) link.terms.push_back({var, -static_cast<double>(c)});
    }
    model.add_linear_row(std::move(sum));
    model.add_linear_row(std::move(link));
    // nu_c = 1 iff x = c: declared, so that exclusion cuts reuse these binaries and a solver
    // completing a start fixes them from x (interval propagation over the link row cannot).
    sdk::ValueIndicators ind{point.x_vars[i], {}, v.onehot[i]};
    for (std::size_t c = 0; c < p.choices.size(); ++c) ind.values.push_back(static_cast<double>(c));
    model.declare_value_indicators(std::move(ind));
  }

  // Numeric thresholds, shared across trees (of every GP): one binary nu per distinct cut of a
  // coordinate, nu = 1 iff x is on the cut's left side.
  v.nu.resize(d);
  for (const TreeKernelGp* gp : gps) {
    for (int t : gp->active_trees()) {
      for (const TreeNode& n : gp->ensemble().trees[static_cast<std::size_t>(t)].nodes) {
        if (n.is_leaf() || n.categorical) continue;
        const auto i = static_cast<std::size_t>(n.feature);
        const Cut cut = cut_of(space[i], n.threshold);
        v.nu.at(i).emplace(cut.right_bound, -1);
      }
    }
  }
  for (std::size_t i = 0; i < d; ++i) {
    const double lb = lower[static_cast<Eigen::Index>(i)];
    const double ub = upper[static_cast<Eigen::Index>(i)];
    int prev = -1;
    int count = 0;
    for (auto& [key, var] : v.nu[i]) {
      const Cut cut = integral_coordinate(space[i]) ? Cut{key - 1.0, key} : Cut{key, key};
      // A cut outside the domain fixes its side: every x is right of it, or left of it.
      const bool always_right = cut.right_bound <= lb;
      const bool always_left =
          !always_right && (integral_coordinate(space[i]) ? cut.left_bound >= ub : key > ub);
      const double nlo = always_left ? 1.0 : 0.0;
      const double nhi = always_right ? 0.0 : 1.0;
      var = model.add_variable(fmt::format("tg_le_{}_{}", i, count++), sdk::VarType::Binary, nlo,
                               nhi);
      if (nlo != nhi) {
        // x >= lb + (R - lb)(1 - nu)  and  x <= ub + (L - ub) nu.
        model.add_linear_row({"tg_link_lo",
                              {{point.x_vars[i], 1.0}, {var, cut.right_bound - lb}},
                              RowSense::GreaterEqual,
                              cut.right_bound});
        model.add_linear_row({"tg_link_hi",
                              {{point.x_vars[i], 1.0}, {var, ub - cut.left_bound}},
                              RowSense::LessEqual,
                              ub});
      }
      if (prev >= 0)
        model.add_linear_row({"tg_order", {{prev, 1.0}, {var, -1.0}}, RowSense::LessEqual, 0.0});
      prev = var;
    }
  }
  return v;
}

// One GP over the shared variables: its trees' leaves and split rows, the agreement with each
// training point, the mean and the standard deviation's hypograph. `tag` tells the GPs of one
// model apart in variable names ("" for a single one).
Formulation add_gp(sdk::Model& model, const sdk::Space& space, const SharedVars& shared,
                   const TreeKernelGp& gp, const std::string& tag, bool with_stddev) {
  Formulation f;
  const std::vector<int>& active = gp.active_trees();
  const Ensemble& ensemble = gp.ensemble();
  const double T = gp.tree_count();
  // Leaves and Misic's split rows. z is continuous as in the paper's Eq. 3g: once the split
  // binaries are integral every leaf but one of each tree is on a closed side of some split,
  // so z is integral too, and the search branches only on splits (measured: as fast as binary
  // z with reliability branching, bench/solver/README.md).
  f.z.resize(active.size());
  for (std::size_t k = 0; k < active.size(); ++k) {
    const Tree& tree = ensemble.trees[static_cast<std::size_t>(active[k])];
    LinearRow one{fmt::format("tg{}_tree_{}", tag, k), {}, RowSense::Equal, 1.0};
    for (std::size_t l = 0; l < tree.leaves.size(); ++l) {
      const int v = model.add_variable(fmt::format("tg{}_z_{}_{}", tag, k, tree.leaves[l]),
                                       sdk::VarType::Continuous, 0, 1);
      f.z[k].push_back(v);
      one.terms.push_back({v, 1.0});
    }
    model.add_linear_row(std::move(one));
    // Numeric splits: one pair of rows per distinct cut of the tree, over every leaf of the tree
    // whose box lies on that side of the cut, not only the leaves below the splitting node
    // (Misic's rows). A leaf left of a smaller cut of the same coordinate is also left of this
    // one; summing it here instead of bounding it by the smaller cut's binary keeps the LP
    // from using both sides of one coordinate in different branches of the same tree.
    std::vector<Cell> box(tree.leaves.size(), domain_cell(space));
    for (std::size_t l = 0; l < tree.leaves.size(); ++l) narrow_to_leaf(box[l], space, tree, l);
    std::set<std::pair<int, double>> done;  // (coordinate, cut) pairs written
    std::map<int, std::pair<std::vector<int>, std::vector<int>>> sides;  // node -> (left, right)
    for (std::size_t l = 0; l < tree.leaves.size(); ++l) {
      for (const PathStep& step : tree.paths[l]) {
        const TreeNode& n = tree.nodes[static_cast<std::size_t>(step.node)];
        if (!n.categorical) continue;
        auto& [left, right] = sides[step.node];
        (step.left ? left : right).push_back(f.z[k][l]);
      }
    }
    for (const TreeNode& n : tree.nodes) {
      if (n.is_leaf() || n.categorical) continue;
      const auto i = static_cast<std::size_t>(n.feature);
      const Cut cut = cut_of(space[i], n.threshold);
      if (!done.emplace(n.feature, cut.right_bound).second) continue;
      const int v = shared.nu[i].at(cut.right_bound);
      LinearRow left{fmt::format("tg{}_left_{}_{}_{}", tag, k, i, v), {}, RowSense::LessEqual, 0.0};
      LinearRow right{
          fmt::format("tg{}_right_{}_{}_{}", tag, k, i, v), {}, RowSense::LessEqual, 1.0};
      const auto j = static_cast<Eigen::Index>(i);
      for (std::size_t l = 0; l < tree.leaves.size(); ++l) {
        if (box[l].upper[j] <= cut.left_bound) left.terms.push_back({f.z[k][l], 1.0});
        if (box[l].lower[j] >= cut.right_bound) right.terms.push_back({f.z[k][l], 1.0});
      }
      left.terms.push_back({v, -1.0});
      right.terms.push_back({v, 1.0});
      model.add_linear_row(std::move(left));
      model.add_linear_row(std::move(right));
    }
    for (const auto& [node, lr] : sides) {
      const TreeNode& n = tree.nodes[static_cast<std::size_t>(node)];
      const auto i = static_cast<std::size_t>(n.feature);
      LinearRow left{fmt::format("tg{}_left_{}_{}", tag, k, node), {}, RowSense::LessEqual, 0.0};
      LinearRow right{fmt::format("tg{}_right_{}_{}", tag, k, node), {}, RowSense::LessEqual, 0.0};
      for (int v : lr.first) left.terms.push_back({v, 1.0});
      for (int v : lr.second) right.terms.push_back({v, 1.0});
      for (std::size_t c = 0; c < shared.onehot[i].size(); ++c) {
        const bool goes_right = std::binary_search(n.right_categories.begin(),
                                                   n.right_categories.end(), static_cast<int>(c));
        (goes_right ? right : left).terms.push_back({shared.onehot[i][c], -1.0});
      }
      model.add_linear_row(std::move(left));
      model.add_linear_row(std::move(right));
    }
  }

  // Agreement with every training point: s_i = (1/T) (sum_t z_{t, leaf_t(x_i)} + n_null),
  // T = gp.tree_count(); trees without a split (n_null of them, when the kernel counts them)
  // put every point in their one leaf.
  const std::size_t m = gp.size();
  f.s.resize(m);
  const double null_agreement = static_cast<double>(gp.null_trees()) / T;
  for (std::size_t i = 0; i < m; ++i) {
    f.s[i] =
        model.add_variable(fmt::format("tg{}_s_{}", tag, i), sdk::VarType::Continuous, 0.0, 1.0);
    LinearRow row{
        fmt::format("tg{}_agree_{}", tag, i), {{f.s[i], 1.0}}, RowSense::Equal, null_agreement};
    for (std::size_t k = 0; k < active.size(); ++k) {
      const Tree& tree = ensemble.trees[static_cast<std::size_t>(active[k])];
      const int l = tree.leaf_index(gp.training_leaf(k, i));
      row.terms.push_back({f.z[k][static_cast<std::size_t>(l)], -1.0 / T});
    }
    model.add_linear_row(std::move(row));
  }

  // Mean (metric units): y_mean + y_scale * sigma0^2 * alpha' s.
  const double s0 = gp.signal_variance();
  const double scale = gp.y_scale();
  for (std::size_t i = 0; i < m; ++i) {
    const double c = scale * s0 * gp.alpha()[static_cast<Eigen::Index>(i)];
    if (c != 0.0) f.output.mean.push_back({f.s[i], c});
  }
  f.output.mean_constant = gp.y_mean();
  // The standardized model (the papers' Gurobi models) has no y_mean: it only shifts.
  f.output.mean_offset = gp.y_mean();

  // Standard deviation hypograph (metric units): S^2 / y_scale^2 + sigma0^4 s' Kinv s <= prior.
  // Divided by y_scale^2 so that the row's scale does not depend on the metric's units.
  const double prior = gp.prior_variance();
  if (with_stddev) {
    const int sd = model.add_variable(fmt::format("tg{}_stddev", tag), sdk::VarType::Continuous,
                                      0.0, scale * std::sqrt(prior) * (1.0 + 1e-9));
    sdk::QuadraticRow q;
    q.name = fmt::format("tg{}_variance", tag);
    q.convex = true;
    q.rhs = prior;
    q.quad.push_back({sd, sd, 1.0 / (scale * scale)});
    const Eigen::MatrixXd& kinv = gp.k_inverse();
    const double s04 = s0 * s0;
    for (std::size_t i = 0; i < m; ++i) {
      for (std::size_t j = i; j < m; ++j) {
        const double v = s04 * kinv(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j));
        if (v == 0.0) continue;
        q.quad.push_back({f.s[i], f.s[j], i == j ? v : 2.0 * v});
      }
    }
    model.add_quadratic_row(std::move(q));
    f.output.stddev_var = sd;
  }

  return f;
}

// Hierarchies, shared by every GP of the model.
void add_hierarchy(sdk::Model& model, const sdk::PointVariables& point, const sdk::Space& space,
                   const SharedVars& shared) {
  const std::size_t d = space.size();
  const auto& lower = space.lower();
  const auto& upper = space.upper();
  const auto& onehot = shared.onehot;
  // Hierarchies: an inactive parameter sits at its default (indicator rows as big-M on the
  // parent's activity). An integer parent gets one binary per value (x_p = sum v b_v), so that
  // "active iff x_p in V" is sum over V of b_v; parents with more than kMaxIntegerParentValues
  // values, and log-scaled ones (continuous in the model), are left to the kernel's snapping.
  std::vector<std::vector<int>> int_onehot(d);
  for (std::size_t i = 0; i < d; ++i) {
    if (!space[i].condition) continue;
    const sdk::Condition& cond = *space[i].condition;
    const auto parent = space.index_of(cond.parent);
    if (!parent) continue;
    const sdk::Parameter& pp = space[*parent];
    std::vector<LinearTerm> act;
    double act_const = 0.0;
    if (pp.type == sdk::ParamType::Binary) {
      bool on = false, off = false;
      for (const sdk::Value& v : cond.values) {
        if (const bool* b = std::get_if<bool>(&v)) (*b ? on : off) = true;
        if (const auto* n = std::get_if<std::int64_t>(&v)) (*n != 0 ? on : off) = true;
      }
      if (on == off) continue;  // always or never active: nothing to force
      const int b = point.x_vars[*parent];
      if (on) {
        act.push_back({b, 1.0});
      } else {
        act.push_back({b, -1.0});
        act_const = 1.0;
      }
    } else if (pp.type == sdk::ParamType::Categorical) {
      for (const sdk::Value& v : cond.values) {
        const std::string* name = std::get_if<std::string>(&v);
        if (name == nullptr) continue;
        const auto it = std::find(pp.choices.begin(), pp.choices.end(), *name);
        if (it == pp.choices.end()) continue;
        act.push_back({onehot[*parent][static_cast<std::size_t>(it - pp.choices.begin())], 1.0});
      }
      if (act.empty()) continue;
    } else if (pp.type == sdk::ParamType::Integer && !pp.log_scale) {
      const double plo = lower[static_cast<Eigen::Index>(*parent)];
      const double pup = upper[static_cast<Eigen::Index>(*parent)];
      if (pup - plo + 1.0 > kMaxIntegerParentValues) continue;
      std::vector<int>& values = int_onehot[*parent];
      if (values.empty()) {
        LinearRow sum{fmt::format("tg_ivals_{}", *parent), {}, RowSense::Equal, 1.0};
        LinearRow link{fmt::format("tg_ival_{}", *parent),
                       {{point.x_vars[*parent], 1.0}},
                       RowSense::Equal,
                       0.0};
        for (double v = plo; v <= pup; v += 1.0) {
          const int b = model.add_variable(fmt::format("tg_iv_{}_{}", *parent, v),
                                           sdk::VarType::Binary, 0, 1);
          values.push_back(b);
          sum.terms.push_back({b, 1.0});
          link.terms.push_back({b, -v});
        }
        model.add_linear_row(std::move(sum));
        model.add_linear_row(std::move(link));
      }
      for (const sdk::Value& v : cond.values) {
        double value = std::numeric_limits<double>::quiet_NaN();
        if (const auto* n = std::get_if<std::int64_t>(&v)) value = static_cast<double>(*n);
        if (const auto* r = std::get_if<double>(&v)) value = *r;
        if (!(value >= plo && value <= pup) || value != std::round(value)) continue;
        act.push_back({values[static_cast<std::size_t>(value - plo)], 1.0});
      }
      if (act.empty()) continue;
    } else {
      continue;
    }
    const double def = space.default_encoded(i);
    const double lb = lower[static_cast<Eigen::Index>(i)];
    const double ub = upper[static_cast<Eigen::Index>(i)];
    // x <= def + (ub - def) a   and   x >= def - (def - lb) a,  a = act_const + act.
    LinearRow hi{fmt::format("tg_cond_hi_{}", i),
                 {{point.x_vars[i], 1.0}},
                 RowSense::LessEqual,
                 def + (ub - def) * act_const};
    LinearRow lo{fmt::format("tg_cond_lo_{}", i),
                 {{point.x_vars[i], 1.0}},
                 RowSense::GreaterEqual,
                 def - (def - lb) * act_const};
    for (const LinearTerm& t : act) {
      if (ub - def != 0.0) hi.terms.push_back({t.var, -(ub - def) * t.coef});
      if (def - lb != 0.0) lo.terms.push_back({t.var, (def - lb) * t.coef});
    }
    model.add_linear_row(std::move(hi));
    model.add_linear_row(std::move(lo));
  }
}

void check_point(const sdk::PointVariables& point, const sdk::Space& space) {
  if (point.x_vars.size() != space.size()) {
    throw sdk::InvalidArgument(fmt::format("{} point variables for a space of {} parameters",
                                           point.x_vars.size(), space.size()));
  }
}

}  // namespace

std::vector<Formulation> formulate(sdk::Model& model, const sdk::PointVariables& point,
                                   const sdk::Space& space,
                                   const std::vector<const TreeKernelGp*>& gps, bool with_stddev) {
  check_point(point, space);
  const SharedVars shared = add_shared(model, point, space, gps);
  std::vector<Formulation> out;
  out.reserve(gps.size());
  for (std::size_t b = 0; b < gps.size(); ++b) {
    out.push_back(add_gp(model, space, shared, *gps[b],
                         gps.size() == 1 ? std::string() : fmt::format("{}", b), with_stddev));
  }
  add_hierarchy(model, point, space, shared);
  return out;
}

Formulation formulate(sdk::Model& model, const sdk::PointVariables& point, const sdk::Space& space,
                      const TreeKernelGp& gp, bool with_stddev) {
  return std::move(formulate(model, point, space, {&gp}, with_stddev).front());
}

std::vector<int> active_leaves(const std::vector<Formulation>& fs,
                               const std::vector<const TreeKernelGp*>& gps,
                               const std::vector<double>& solution) {
  std::vector<int> out;
  for (std::size_t g = 0; g < gps.size() && g < fs.size(); ++g) {
    const Formulation& f = fs[g];
    const std::vector<int>& active = gps[g]->active_trees();
    for (std::size_t k = 0; k < f.z.size(); ++k) {
      std::size_t best = 0;
      for (std::size_t l = 1; l < f.z[k].size(); ++l) {
        if (solution.at(static_cast<std::size_t>(f.z[k][l])) >
            solution.at(static_cast<std::size_t>(f.z[k][best]))) {
          best = l;
        }
      }
      out.push_back(gps[g]->ensemble().trees[static_cast<std::size_t>(active[k])].leaves[best]);
    }
  }
  return out;
}

std::vector<int> active_leaves(const Formulation& f, const TreeKernelGp& gp,
                               const std::vector<double>& solution) {
  return active_leaves(std::vector<Formulation>{f}, {&gp}, solution);
}

std::vector<int> leaves_of(const std::vector<const TreeKernelGp*>& gps, const Eigen::VectorXd& x) {
  std::vector<int> out;
  for (const TreeKernelGp* gp : gps) {
    for (int t : gp->active_trees())
      out.push_back(gp->ensemble().trees[static_cast<std::size_t>(t)].leaf_of(x.data()));
  }
  return out;
}

std::vector<int> leaves_of(const TreeKernelGp& gp, const Eigen::VectorXd& x) {
  return leaves_of(std::vector<const TreeKernelGp*>{&gp}, x);
}

double Cell::closed_upper(Eigen::Index j) const {
  if (!upper_open[static_cast<std::size_t>(j)]) return upper[j];
  return static_cast<double>(
      std::nextafter(static_cast<float>(upper[j]), -std::numeric_limits<float>::infinity()));
}

bool Cell::empty() const {
  for (Eigen::Index i = 0; i < lower.size(); ++i) {
    if (lower[i] > closed_upper(i)) return true;
  }
  return false;
}

bool Cell::contains(const sdk::Space& space, const Eigen::VectorXd& x, double tol) const {
  for (std::size_t i = 0; i < space.size(); ++i) {
    const auto j = static_cast<Eigen::Index>(i);
    if (space[i].type == sdk::ParamType::Categorical) {
      const auto c = static_cast<int>(std::lround(x[j]));
      if (std::find(allowed[i].begin(), allowed[i].end(), c) == allowed[i].end()) return false;
    } else if (x[j] < lower[j] - tol || x[j] > closed_upper(j) + tol) {
      return false;
    }
  }
  return true;
}

Cell cell_of(const sdk::Space& space, const std::vector<const TreeKernelGp*>& gps,
             const std::vector<int>& leaves) {
  Cell cell = domain_cell(space);
  std::size_t k = 0;
  for (const TreeKernelGp* gp : gps) {
    for (int t : gp->active_trees()) {
      if (k >= leaves.size()) return cell;
      const Tree& tree = gp->ensemble().trees[static_cast<std::size_t>(t)];
      const int l = tree.leaf_index(leaves[k++]);
      if (l < 0) throw sdk::Error("decoding met an unknown leaf");
      narrow_to_leaf(cell, space, tree, static_cast<std::size_t>(l));
    }
  }
  return cell;
}

Cell cell_of(const sdk::Space& space, const TreeKernelGp& gp, const std::vector<int>& leaves) {
  return cell_of(space, std::vector<const TreeKernelGp*>{&gp}, leaves);
}

Eigen::VectorXd cell_centre(const sdk::Space& space, const Cell& cell, std::mt19937_64& rng) {
  Eigen::VectorXd x(static_cast<Eigen::Index>(space.size()));
  for (std::size_t i = 0; i < space.size(); ++i) {
    const auto j = static_cast<Eigen::Index>(i);
    const sdk::Parameter& p = space[i];
    if (p.type == sdk::ParamType::Categorical) {
      const auto& a = cell.allowed[i];
      if (a.empty()) {
        x[j] = space.default_encoded(i);
      } else {
        std::uniform_int_distribution<std::size_t> pick(0, a.size() - 1);
        x[j] = a[pick(rng)];
      }
      continue;
    }
    const double mid = 0.5 * (cell.lower[j] + cell.upper[j]);
    if (integral_coordinate(p)) {
      const double lo = std::floor(mid), hi = std::ceil(mid);
      // A true coin flip between floor and ceiling (the reference code's banker's rounding
      // biases it); both lie in the cell because its integer bounds are integral.
      x[j] = lo == hi ? lo : (std::bernoulli_distribution(0.5)(rng) ? hi : lo);
    } else {
      x[j] = std::min(mid, cell.closed_upper(j));
    }
  }
  return x;
}

}  // namespace arbo::plugins::tree_gp
