// SPDX-License-Identifier: MIT
// Primal heuristics, which find the incumbents: every relaxation point and its rounding are
// offered, fix-and-resolve re-solves the continuous part with the integers fixed, polishing
// projects a relaxation point onto the linearized quadratic rows, and the user's starts are
// completed by short searches before the main one.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <arbo/sdk/error.hpp>

#include "search.hpp"

namespace arbo::plugins::glpk::bnb {

namespace {

// Fix-and-resolve runs at the root and then every this many nodes.
constexpr std::int64_t kFixEvery = 50;
// Starts get at most this share of the time limit, and each completion this many nodes.
constexpr double kStartTimeShare = 0.1;
constexpr std::int64_t kStartNodes = 100;

// A start fixes the point's variables, and bound propagation then fixes most of the rest (a
// tree's split and leaf indicators, the agreement and mean variables), which leaves a few
// continuous variables (the variance epigraphs) to solve for. The fixed model as it is would
// carry every row into each LP of its completion: about 1 s a start on BARK's 16 x 50-tree
// models at N = 40, more than a 10 s solve gives its starts. The reduced model holds only the
// free variables and the rows that still involve them; a row left without any is checked
// instead. Substituting values into a convex quadratic row leaves it convex.
struct Reduced {
  sdk::Model model;
  std::vector<double> value;  // per variable of the fixed model: its value, NaN if free
  std::vector<int> index;     // per variable of the fixed model: its column in `model`, or -1
};

// The reduced form of `fixed`, or nullopt when propagation or a row left constant shows that
// no completion exists.
std::optional<Reduced> reduce(const sdk::Model& fixed, double tol) {
  const Prepared p = prepare(fixed);
  if (p.infeasible) return std::nullopt;
  const auto& vars = fixed.variables();
  Reduced r;
  r.value.assign(vars.size(), std::numeric_limits<double>::quiet_NaN());
  r.index.assign(vars.size(), -1);
  for (std::size_t j = 0; j < vars.size(); ++j) {
    const double lo = p.lo[j], up = p.up[j];
    if (up - lo <= tol * std::max(1.0, std::abs(lo))) {
      r.value[j] = p.integer[j] ? std::round(lo) : 0.5 * (lo + up);
    } else {
      r.index[j] = r.model.add_variable(vars[j].name, vars[j].type, lo, up);
    }
  }
  // Splits terms into those over free variables and a constant.
  const auto linear = [&](const std::vector<sdk::LinearTerm>& in, std::vector<sdk::LinearTerm>& out,
                          double& constant) {
    for (const sdk::LinearTerm& t : in) {
      const auto j = static_cast<std::size_t>(t.var);
      if (r.index[j] >= 0) {
        out.push_back({r.index[j], t.coef});
      } else {
        constant += t.coef * r.value[j];
      }
    }
  };
  const auto quadratic = [&](const std::vector<sdk::QuadTerm>& in, std::vector<sdk::QuadTerm>& quad,
                             std::vector<sdk::LinearTerm>& lin, double& constant) {
    for (const sdk::QuadTerm& t : in) {
      const auto a = static_cast<std::size_t>(t.var1), b = static_cast<std::size_t>(t.var2);
      if (r.index[a] >= 0 && r.index[b] >= 0) {
        quad.push_back({r.index[a], r.index[b], t.coef});
      } else if (r.index[a] >= 0) {
        lin.push_back({r.index[a], t.coef * r.value[b]});
      } else if (r.index[b] >= 0) {
        lin.push_back({r.index[b], t.coef * r.value[a]});
      } else {
        constant += t.coef * r.value[a] * r.value[b];
      }
    }
  };
  // A row without free variables: its constant activity must satisfy it (scaled tolerance,
  // as the search's own check of a point).
  const auto holds = [&](double activity, sdk::RowSense sense, double rhs) {
    const double slack = tol * std::max(1.0, std::abs(rhs));
    if (sense != sdk::RowSense::GreaterEqual && activity > rhs + slack) return false;
    if (sense != sdk::RowSense::LessEqual && activity < rhs - slack) return false;
    return true;
  };
  for (const sdk::LinearRow& row : fixed.linear_rows()) {
    sdk::LinearRow out{row.name, {}, row.sense, row.rhs};
    double constant = 0.0;
    linear(row.terms, out.terms, constant);
    if (out.terms.empty()) {
      if (!holds(constant, row.sense, row.rhs)) return std::nullopt;
      continue;
    }
    out.rhs -= constant;
    r.model.add_linear_row(std::move(out));
  }
  for (const sdk::QuadraticRow& row : fixed.quadratic_rows()) {
    sdk::QuadraticRow out{row.name, {}, {}, row.sense, row.rhs, row.convex};
    double constant = 0.0;
    quadratic(row.quad, out.quad, out.linear, constant);
    linear(row.linear, out.linear, constant);
    if (out.quad.empty() && out.linear.empty()) {
      if (!holds(constant, row.sense, row.rhs)) return std::nullopt;
      continue;
    }
    out.rhs -= constant;
    if (out.quad.empty()) {
      r.model.add_linear_row({out.name, std::move(out.linear), out.sense, out.rhs});
    } else {
      r.model.add_quadratic_row(std::move(out));
    }
  }
  sdk::Objective objective{
      fixed.objective().sense, {}, {}, fixed.objective().constant, fixed.objective().offset};
  quadratic(fixed.objective().quad, objective.quad, objective.linear, objective.constant);
  linear(fixed.objective().linear, objective.linear, objective.constant);
  r.model.set_objective(std::move(objective));
  return r;
}

}  // namespace

void Search::snap(const std::vector<double>& x, std::vector<double>& out) const {
  const auto& vars = model_.variables();
  out.resize(vars.size());
  for (std::size_t j = 0; j < vars.size(); ++j) {
    double v = x[j];
    if (P_.integer[j]) v = std::round(v);
    out[j] = std::clamp(v, vars[j].lower, vars[j].upper);
  }
}

double Search::true_objective(const std::vector<double>& xs) const {
  double z = P_.cost_const;
  for (const auto& t : model_.objective().linear)
    z += P_.sense * t.coef * xs[static_cast<std::size_t>(t.var)];
  for (const auto& t : model_.objective().quad) {
    z += P_.sense * t.coef * xs[static_cast<std::size_t>(t.var1)] *
         xs[static_cast<std::size_t>(t.var2)];
  }
  return z;
}

bool Search::consider(const std::vector<double>& x, const char* source) {
  std::vector<double> xs;
  snap(x, xs);
  const sdk::ModelEvaluation ev = model_.evaluate(xs);
  if (ev.max_violation() > opt_.feasibility_tolerance) return false;
  const double z = P_.sense * ev.objective;
  if (z < inc_obj_) {
    inc_obj_ = z;
    inc_x_ = std::move(xs);
    log(sdk::LogLevel::Debug, "glpk_bnb: incumbent {:.10g} from {} after {} nodes ({:.3f} s)",
        P_.sense * z, source, nodes_, elapsed());
  }
  return true;
}

void Search::primal_heuristics(int depth, const std::vector<double>& x, const Branch& br,
                               bool can_branch, const std::vector<double>& lo,
                               const std::vector<double>& up, const SavedBasis& saved) {
  // Primal heuristics, then the LP is put back to this node's state for the children.
  bool moved = false;
  if (br.integer && br.frac > 0) {
    std::vector<double> xr = x;
    for (int j = 0; j < P_.n_orig; ++j) {
      if (P_.integer[static_cast<std::size_t>(j)])
        xr[static_cast<std::size_t>(j)] = std::round(xr[static_cast<std::size_t>(j)]);
    }
    consider(xr, "rounding");
  }
  const bool has_ints = std::any_of(P_.integer.begin(), P_.integer.begin() + P_.n_orig,
                                    [](char c) { return c != 0; });
  if (has_ints && (depth == 0 || nodes_ % kFixEvery == 0) && can_branch) {
    fix_and_resolve(lo, up, x);
    moved = true;
  }
  if (can_branch && !br.integer && !P_.products.empty() && nodes_ - last_polish_ >= kPolishEvery) {
    polish(x);
  }
  if (moved) {
    load_bounds(lo, up);
    restore_basis(saved);  // fix-and-resolve may have undone a failed cut round: new layout
  }
}

void Search::fix_and_resolve(const std::vector<double>& lo, const std::vector<double>& up,
                             const std::vector<double>& x) {
  std::vector<double> flo = lo, fup = up;
  bool any = false;
  for (int j = 0; j < P_.n_orig; ++j) {
    const auto k = static_cast<std::size_t>(j);
    if (!P_.integer[k]) continue;
    const double v = std::clamp(std::round(x[k]), lo[k], up[k]);
    flo[k] = fup[k] = v;
    any = true;
  }
  if (!any) return;
  bound_products(flo, fup);
  for (const Product& p : P_.products) {
    if (flo[static_cast<std::size_t>(p.w)] > fup[static_cast<std::size_t>(p.w)]) return;
  }
  load_bounds(flo, fup);
  double obj = 0;
  const LpStatus st = solve_relaxation(false, obj);
  if (st == LpStatus::Optimal) {
    const std::vector<double> xf = x_;
    if (!consider(xf, "fix-and-resolve") && !P_.products.empty()) polish(xf);
  }
}

void Search::build_polish_lp() {
  polish_lp_ = std::make_unique<Lp>(session_);
  const int n = P_.n_orig;
  std::vector<double> lo(static_cast<std::size_t>(n)), up(static_cast<std::size_t>(n)),
      cost(static_cast<std::size_t>(n), 0.0);
  for (int j = 0; j < n; ++j) {
    lo[static_cast<std::size_t>(j)] = root_lo_[static_cast<std::size_t>(j)];
    up[static_cast<std::size_t>(j)] = root_up_[static_cast<std::size_t>(j)];
  }
  polish_lp_->add_cols(lo, up, cost);
  // Deviation pairs x_j - p_j + m_j = anchor_j, weighted by the variable's scale.
  std::vector<double> dlo(2 * static_cast<std::size_t>(n), 0.0),
      dup(2 * static_cast<std::size_t>(n), kInfinity), dcost(2 * static_cast<std::size_t>(n));
  for (int j = 0; j < n; ++j) {
    const auto k = static_cast<std::size_t>(j);
    const double w = root_up_[k] - root_lo_[k];
    const double c = std::isfinite(w) && w > 0 ? 1.0 / w : 1.0;
    dcost[2 * k] = dcost[2 * k + 1] = c;
  }
  polish_lp_->add_cols(dlo, dup, dcost);
  std::vector<SparseRow> rows;
  std::vector<double> rlo, rup;
  for (const auto& r : model_.linear_rows()) {
    SparseRow row;
    for (const auto& t : r.terms) add_term(row, t.var, t.coef);
    double l = -kInfinity, u = kInfinity;
    if (r.sense != sdk::RowSense::LessEqual) l = r.rhs;
    if (r.sense != sdk::RowSense::GreaterEqual) u = r.rhs;
    if (!std::isfinite(l) && !std::isfinite(u)) continue;
    rows.push_back(std::move(row));
    rlo.push_back(l);
    rup.push_back(u);
  }
  // Placeholders for the linearized quadratic rows and the deviation rows; set per call.
  const std::size_t nq = model_.quadratic_rows().size();
  rows.resize(rows.size() + nq + static_cast<std::size_t>(n));
  rlo.resize(rows.size(), -kInfinity);
  rup.resize(rows.size(), kInfinity);
  polish_lp_->add_rows(rows, rlo, rup);
}

void Search::polish(const std::vector<double>& x) {
  // Newton-like projection: linearize every quadratic row at the current point, move to the
  // nearest point (weighted L1) of the linearization, repeat. From a relaxation point that is
  // nearly feasible this converges to a feasible point next to it in a few steps.
  last_polish_ = nodes_;
  if (!polish_lp_) build_polish_lp();
  const auto& qrows = model_.quadratic_rows();
  const int n = P_.n_orig;
  const int first_q = polish_lp_->num_rows() - static_cast<int>(qrows.size()) - n;
  std::vector<double> xk(x.begin(), x.begin() + n);
  for (int j = 0; j < n; ++j) {
    const auto k = static_cast<std::size_t>(j);
    xk[k] = std::clamp(P_.integer[k] ? std::round(xk[k]) : xk[k], root_lo_[k], root_up_[k]);
  }
  {
    // Integers stay where the relaxation put them.
    std::vector<int> which;
    std::vector<double> lo, up;
    for (int j = 0; j < n; ++j) {
      const auto k = static_cast<std::size_t>(j);
      which.push_back(j);
      lo.push_back(P_.integer[k] ? xk[k] : root_lo_[k]);
      up.push_back(P_.integer[k] ? xk[k] : root_up_[k]);
    }
    polish_lp_->set_col_bounds(which, lo, up);
  }
  std::vector<int> which;
  std::vector<SparseRow> rows;
  std::vector<double> rlo, rup, sol;
  for (int iter = 0; iter < 12; ++iter) {
    which.clear();
    rows.clear();
    rlo.clear();
    rup.clear();
    for (std::size_t r = 0; r < qrows.size(); ++r) {
      const auto& q = qrows[r];
      SparseRow g;  // the gradient at xk, one entry per variable
      double value = 0.0, grad_dot_x = 0.0;
      for (const auto& t : q.linear) {
        add_term(g, t.var, t.coef);
        value += t.coef * xk[static_cast<std::size_t>(t.var)];
      }
      for (const auto& t : q.quad) {
        const double a = xk[static_cast<std::size_t>(t.var1)],
                     b = xk[static_cast<std::size_t>(t.var2)];
        value += t.coef * a * b;
        add_term(g, t.var1, t.coef * b);
        add_term(g, t.var2, t.coef * a);
      }
      SparseRow row;
      for (std::size_t e = 0; e < g.idx.size(); ++e) {
        const int v = g.idx[e];
        const double c = g.val[e];
        if (c == 0.0) continue;
        row.idx.push_back(v);
        row.val.push_back(c);
        grad_dot_x += c * xk[static_cast<std::size_t>(v)];
      }
      // q(x) ~ value + grad'(y - x): the row becomes grad'y (sense) rhs - value + grad'x.
      const double shift = -value + grad_dot_x;
      double l = -kInfinity, u = kInfinity;
      if (q.sense != sdk::RowSense::LessEqual) l = q.rhs + shift;
      if (q.sense != sdk::RowSense::GreaterEqual) u = q.rhs + shift;
      which.push_back(first_q + static_cast<int>(r));
      rows.push_back(std::move(row));
      rlo.push_back(l);
      rup.push_back(u);
    }
    for (int j = 0; j < n; ++j) {
      which.push_back(first_q + static_cast<int>(qrows.size()) + j);
      SparseRow row;
      row.idx = {j, n + 2 * j, n + 2 * j + 1};
      row.val = {1.0, -1.0, 1.0};
      rows.push_back(std::move(row));
      rlo.push_back(xk[static_cast<std::size_t>(j)]);
      rup.push_back(xk[static_cast<std::size_t>(j)]);
    }
    polish_lp_->set_rows(which, rows, rlo, rup);
    if (polish_lp_->solve(ms_left()) != LpStatus::Optimal) return;
    polish_lp_->primal(sol);
    for (int j = 0; j < n; ++j) xk[static_cast<std::size_t>(j)] = sol[static_cast<std::size_t>(j)];
    if (consider(xk, "polishing")) return;
  }
}

std::vector<std::vector<double>> complete_starts(const sdk::Model& model,
                                                 const sdk::SolveOptions& options,
                                                 const BnbConfig& config) {
  std::vector<std::vector<double>> out;
  if (options.starts.empty()) return out;
  const auto start = Clock::now();
  const double budget = kStartTimeShare * options.time_limit_seconds;
  // 100-node searches: a helper thread would cost more to start than it saves.
  BnbConfig single = config;
  single.threads = 1;
  const double tol = options.feasibility_tolerance;
  for (std::size_t k = 0; k < options.starts.size(); ++k) {
    const std::vector<double>& s = options.starts[k];
    if (s.size() != model.num_variables()) {
      throw sdk::InvalidArgument(
          fmt::format("glpk_bnb: start {} has {} entries, the model has {} variables", k, s.size(),
                      model.num_variables()));
    }
    const double left = budget - std::chrono::duration<double>(Clock::now() - start).count();
    if (left <= 0) break;
    sdk::Model fixed = model;
    bool inside = true;
    for (std::size_t j = 0; j < s.size() && inside; ++j) {
      if (std::isnan(s[j])) continue;
      sdk::Variable& v = fixed.variable(static_cast<int>(j));
      const double x = v.type == sdk::VarType::Continuous ? s[j] : std::round(s[j]);
      inside = x >= v.lower - tol && x <= v.upper + tol;
      v.lower = v.upper = std::clamp(x, v.lower, v.upper);
      // A variable's declared one-hot indicators follow from its value; interval propagation
      // over x = sum_v v * b_v alone cannot fix them.
      if (const sdk::ValueIndicators* ind = model.value_indicators(static_cast<int>(j))) {
        bool matched = false;
        for (std::size_t i = 0; i < ind->values.size(); ++i) {
          const bool on = std::abs(ind->values[i] - v.lower) <= tol;
          matched = matched || on;
          sdk::Variable& b = fixed.variable(ind->binaries[i]);
          b.lower = b.upper = on ? 1.0 : 0.0;
        }
        inside = matched;
      }
    }
    if (!inside) continue;
    const std::optional<Reduced> reduced = reduce(fixed, tol);
    if (!reduced) continue;
    if (config.log) {
      config.log(sdk::LogLevel::Debug,
                 fmt::format("glpk_bnb: start {} leaves {} free variables, {} linear and {} "
                             "quadratic rows",
                             k, reduced->model.num_variables(), reduced->model.linear_rows().size(),
                             reduced->model.quadratic_rows().size()));
    }
    std::vector<double> x = reduced->value;
    if (reduced->model.num_variables() > 0) {
      sdk::SolveOptions sub = options;
      sub.starts.clear();
      sub.time_limit_seconds = left;
      sub.node_limit = kStartNodes;
      const sdk::SolveResult r = solve_model(reduced->model, sub, single);
      if (r.x.empty()) continue;
      for (std::size_t j = 0; j < x.size(); ++j) {
        if (reduced->index[j] >= 0) x[j] = r.x[static_cast<std::size_t>(reduced->index[j])];
      }
    }
    out.push_back(std::move(x));  // the search checks it against the whole model
  }
  return out;
}

}  // namespace arbo::plugins::glpk::bnb
