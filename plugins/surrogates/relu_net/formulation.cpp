// SPDX-License-Identifier: MIT
#include "formulation.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include <arbo/sdk/error.hpp>

namespace arbo::plugins::relu_net {

namespace {

using sdk::LinearRow;
using sdk::LinearTerm;
using sdk::RowSense;

// One input of a layer: h = coef * x[var] + constant, with h in [lo, hi]; var = -1 for a
// constant input (a stably inactive neuron: h = 0). `main` indexes the formulated model,
// `relax` the bound-tightening LP.
struct Source {
  int main = -1;
  int relax = -1;
  double coef = 0.0;
  double constant = 0.0;
  double lo = 0.0;
  double hi = 0.0;
};

// Adds a neuron with pre-activation a = sum terms + c and bounds [L, U] to `m`: a variable y
// (y = a when stably active; 0 <= y <= U alpha, a <= y <= a + M1 (1 - alpha) with M1 = -L when
// unstable: App. A's (4')-(5') with M0 = U). Returns {y, alpha}.
std::pair<int, int> add_neuron(sdk::Model& m, const std::vector<LinearTerm>& terms, double c,
                               double L, double U, bool unstable, sdk::VarType alpha_type,
                               const std::string& name) {
  if (!unstable) {
    const int y = m.add_variable("nn_y_" + name, sdk::VarType::Continuous, L, U);
    LinearRow row{"nn_active_" + name, {{y, 1.0}}, RowSense::Equal, c};
    for (const LinearTerm& t : terms) row.terms.push_back({t.var, -t.coef});
    m.add_linear_row(std::move(row));
    return {y, -1};
  }
  const int y = m.add_variable("nn_y_" + name, sdk::VarType::Continuous, 0.0, U);
  const int alpha = m.add_variable("nn_a_" + name, alpha_type, 0.0, 1.0);
  m.add_linear_row({"nn_m0_" + name, {{y, 1.0}, {alpha, -U}}, RowSense::LessEqual, 0.0});
  LinearRow ge{"nn_ge_" + name, {{y, 1.0}}, RowSense::GreaterEqual, c};
  LinearRow m1{"nn_m1_" + name, {{y, 1.0}, {alpha, -L}}, RowSense::LessEqual, c - L};
  for (const LinearTerm& t : terms) {
    ge.terms.push_back({t.var, -t.coef});
    m1.terms.push_back({t.var, -t.coef});
  }
  m.add_linear_row(std::move(ge));
  m.add_linear_row(std::move(m1));
  return {y, alpha};
}

// max (sense = Maximize) or min of sum terms over the relaxation; nullopt when not solved.
std::optional<double> lp_bound(sdk::ModelSolver& solver, sdk::Model& relax,
                               const std::vector<LinearTerm>& terms, sdk::ObjectiveSense sense) {
  sdk::Objective obj;
  obj.sense = sense;
  obj.linear = terms;
  relax.set_objective(std::move(obj));
  sdk::SolveOptions options;
  options.time_limit_seconds = 60.0;
  const sdk::SolveResult res = solver.solve(relax, options);
  if (res.status != sdk::SolveStatus::Optimal || !std::isfinite(res.objective)) return std::nullopt;
  return res.objective;
}

}  // namespace

Formulation formulate(sdk::Model& model, const sdk::PointVariables& point, const sdk::Space& space,
                      const Encoding& encoding, const Network& net, double y_mean, double y_scale,
                      sdk::ModelSolver* solver, BoundMethod method) {
  if (space.has_conditions()) {
    throw sdk::Error(
        "surrogate/relu_net cannot formulate a space with conditional parameters (the network "
        "sees inactive coordinates at their defaults, which the model does not enforce); use a "
        "black-box inner solver");
  }
  if (point.x_vars.size() != space.size()) {
    throw sdk::InvalidArgument(fmt::format(
        "surrogate/relu_net: formulate got {} point variables for a space of dimension {}",
        point.x_vars.size(), space.size()));
  }
  const bool use_lp = method == BoundMethod::Lp && solver != nullptr;
  Formulation f;
  f.onehot.resize(space.size());
  f.binary.assign(space.size(), -1);
  sdk::Model relax;  // the LP relaxation the bounds of layers >= 2 are computed on

  // Inputs (Sec. 3.2): one-hot binaries with sum z = 1 and x = sum v_j z_j; binaries as they
  // are; scaled coordinates as an affine function of their point variable.
  std::vector<Source> h(encoding.width());
  std::vector<int> group(encoding.width(), -1);  // one-hot coordinate of each input, or -1
  for (std::size_t i = 0; i < space.size(); ++i) {
    const CoordinateEncoding& c = encoding[i];
    const int xv = point.x_vars[i];
    switch (c.kind) {
      case InputKind::OneHot: {
        LinearRow one{fmt::format("nn_onehot_{}", i), {}, RowSense::Equal, 1.0};
        LinearRow link{fmt::format("nn_link_{}", i), {{xv, 1.0}}, RowSense::Equal, 0.0};
        LinearRow relax_one = one;
        for (std::size_t k = 0; k < c.width; ++k) {
          const int z =
              model.add_variable(fmt::format("nn_z_{}_{}", i, k), sdk::VarType::Binary, 0.0, 1.0);
          const int zr = relax.add_variable(fmt::format("nn_z_{}_{}", i, k),
                                            sdk::VarType::Continuous, 0.0, 1.0);
          f.onehot[i].push_back(z);
          one.terms.push_back({z, 1.0});
          relax_one.terms.push_back({zr, 1.0});
          if (c.values[k] != 0.0) link.terms.push_back({z, -c.values[k]});
          h[c.offset + k] = {z, zr, 1.0, 0.0, 0.0, 1.0};
          group[c.offset + k] = static_cast<int>(i);
        }
        model.add_linear_row(std::move(one));
        model.add_linear_row(std::move(link));
        relax.add_linear_row(std::move(relax_one));
        // Exclusion cuts ([proposal] exclude_evaluated) reuse these instead of adding their own.
        model.declare_value_indicators({xv, c.values, f.onehot[i]});
        break;
      }
      case InputKind::Binary: {
        f.binary[i] = xv;
        const int xr =
            relax.add_variable(fmt::format("nn_x_{}", i), sdk::VarType::Continuous, 0.0, 1.0);
        h[c.offset] = {xv, xr, 1.0, 0.0, 0.0, 1.0};
        break;
      }
      case InputKind::Scaled: {
        const auto j = static_cast<Eigen::Index>(i);
        const int xr = relax.add_variable(fmt::format("nn_x_{}", i), sdk::VarType::Continuous,
                                          space.lower()[j], space.upper()[j]);
        h[c.offset] = {xv, xr, 1.0 / c.range, -c.lower / c.range, 0.0, 1.0};
        break;
      }
    }
  }

  const std::size_t hidden = net.architecture().hidden.size();
  f.neurons.resize(hidden);
  std::vector<LinearTerm> terms, relax_terms;
  for (std::size_t l = 0; l <= hidden; ++l) {
    const auto W = net.weight(l);
    const auto b = net.bias(l);
    std::vector<Source> next(static_cast<std::size_t>(W.rows()));
    for (Eigen::Index j = 0; j < W.rows(); ++j) {
      terms.clear();
      relax_terms.clear();
      double c = b[j];
      double upper = b[j], lower = b[j];  // interval arithmetic
      // Layer 1: exactly one input of a one-hot group is 1, so the group adds its largest
      // (smallest) weight to U (L): the LP optimum over the product of simplices, in closed form.
      if (l == 0) {
        for (std::size_t g = 0; g < space.size(); ++g) {
          const CoordinateEncoding& e = encoding[g];
          if (e.kind != InputKind::OneHot) continue;
          const auto block = W.row(j).segment(static_cast<Eigen::Index>(e.offset),
                                              static_cast<Eigen::Index>(e.width));
          upper += block.maxCoeff();
          lower += block.minCoeff();
        }
      }
      for (std::size_t k = 0; k < h.size(); ++k) {
        const double w = W(j, static_cast<Eigen::Index>(k));
        const Source& s = h[k];
        if (w == 0.0) continue;
        c += w * s.constant;
        if (s.main >= 0) {
          terms.push_back({s.main, w * s.coef});
          relax_terms.push_back({s.relax, w * s.coef});
        }
        if (l != 0 || group[k] < 0) {
          upper += std::max(w * s.lo, w * s.hi);
          lower += std::min(w * s.lo, w * s.hi);
        }
      }
      if (l == hidden) {
        // The output: mean = y_mean + y_scale * (w'h + b).
        for (const LinearTerm& t : terms) f.output.mean.push_back({t.var, y_scale * t.coef});
        f.output.mean_constant = y_mean + y_scale * c;
        f.output.mean_offset = y_mean;  // a shift; the bias part c is the network's own
        break;
      }
      if (use_lp && l > 0) {
        const auto hi = lp_bound(*solver, relax, relax_terms, sdk::ObjectiveSense::Maximize);
        const auto lo = lp_bound(*solver, relax, relax_terms, sdk::ObjectiveSense::Minimize);
        f.lp_solves += 2;
        // A small margin keeps the bounds valid against the LP's tolerances.
        if (hi) upper = std::min(upper, *hi + c + 1e-7 * (1.0 + std::abs(*hi + c)));
        if (lo) lower = std::max(lower, *lo + c - 1e-7 * (1.0 + std::abs(*lo + c)));
      }
      NeuronVars nv;
      nv.lower = lower;
      nv.upper = upper;
      const std::string name = fmt::format("{}_{}", l, j);
      Source& out = next[static_cast<std::size_t>(j)];
      if (upper <= 0.0) {
        nv.status = NeuronVars::Status::Inactive;  // y = 0: a constant input of the next layer
      } else {
        const bool unstable = lower < 0.0;
        nv.status = unstable ? NeuronVars::Status::Unstable : NeuronVars::Status::Active;
        const auto [y, alpha] =
            add_neuron(model, terms, c, lower, upper, unstable, sdk::VarType::Binary, name);
        const auto yr = add_neuron(relax, relax_terms, c, lower, upper, unstable,
                                   sdk::VarType::Continuous, name);
        nv.y = y;
        nv.alpha = alpha;
        out = {y, yr.first, 1.0, 0.0, std::max(0.0, lower), upper};
      }
      f.neurons[l].push_back(nv);
    }
    h = std::move(next);
  }
  return f;
}

void decode(const Formulation& f, const Encoding& encoding, const std::vector<double>& solution,
            Eigen::VectorXd& x) {
  for (std::size_t i = 0; i < encoding.dim(); ++i) {
    const auto j = static_cast<Eigen::Index>(i);
    if (!f.onehot[i].empty()) {
      std::size_t best = 0;
      for (std::size_t k = 1; k < f.onehot[i].size(); ++k) {
        if (solution[static_cast<std::size_t>(f.onehot[i][k])] >
            solution[static_cast<std::size_t>(f.onehot[i][best])]) {
          best = k;
        }
      }
      x[j] = encoding[i].values[best];
    } else if (f.binary[i] >= 0) {
      x[j] = x[j] > 0.5 ? 1.0 : 0.0;
    }
  }
}

}  // namespace arbo::plugins::relu_net
