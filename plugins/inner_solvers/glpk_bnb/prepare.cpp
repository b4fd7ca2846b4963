// SPDX-License-Identifier: MIT
#include "prepare.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <utility>

#include <fmt/format.h>
#include <Eigen/Cholesky>

#include <arbo/sdk/error.hpp>

namespace arbo::plugins::glpk {

namespace {

using sdk::kInfinity;

void add_linear(std::map<int, double>& out, const std::vector<sdk::LinearTerm>& terms,
                double scale) {
  for (const auto& t : terms) out[t.var] += scale * t.coef;
}

void add_quad(std::map<QuadKey, double>& out, const std::vector<sdk::QuadTerm>& terms,
              double scale) {
  for (const auto& t : terms) {
    out[{std::min(t.var1, t.var2), std::max(t.var1, t.var2)}] += scale * t.coef;
  }
}

template <class Map>
void drop_zeros(Map& m) {
  for (auto it = m.begin(); it != m.end();) {
    it = (it->second == 0.0) ? m.erase(it) : std::next(it);
  }
}

// (lo, up) of a row `activity sense rhs`; false when no activity can satisfy it.
bool row_range(sdk::RowSense sense, double rhs, double& lo, double& up) {
  lo = -kInfinity;
  up = kInfinity;
  switch (sense) {
    case sdk::RowSense::LessEqual: up = rhs; return rhs != -kInfinity;
    case sdk::RowSense::GreaterEqual: lo = rhs; return rhs != kInfinity;
    case sdk::RowSense::Equal: lo = up = rhs; return std::isfinite(rhs);
  }
  return true;
}

// 0 * inf is NaN in IEEE; in interval products it means 0 (the factor is exactly zero).
double safe_mul(double a, double b) { return (a == 0.0 || b == 0.0) ? 0.0 : a * b; }

void interval_product(double li, double ui, double lj, double uj, bool square, double& lo,
                      double& up) {
  if (square) {
    const double a = std::abs(li), b = std::abs(ui);
    up = std::max(safe_mul(a, a), safe_mul(b, b));
    lo = (li <= 0.0 && ui >= 0.0) ? 0.0 : std::min(safe_mul(a, a), safe_mul(b, b));
    return;
  }
  const double p[4] = {safe_mul(li, lj), safe_mul(li, uj), safe_mul(ui, lj), safe_mul(ui, uj)};
  lo = std::min(std::min(p[0], p[1]), std::min(p[2], p[3]));
  up = std::max(std::max(p[0], p[1]), std::max(p[2], p[3]));
}

Eigen::MatrixXd dense_q(const std::map<QuadKey, double>& quad, const std::vector<int>& vars) {
  const auto n = static_cast<Eigen::Index>(vars.size());
  Eigen::MatrixXd Q = Eigen::MatrixXd::Zero(n, n);
  auto pos = [&](int v) {
    return static_cast<Eigen::Index>(std::lower_bound(vars.begin(), vars.end(), v) - vars.begin());
  };
  for (const auto& [key, c] : quad) {
    const Eigen::Index a = pos(key.first), b = pos(key.second);
    if (a == b) {
      Q(a, a) += c;
    } else {
      Q(a, b) += 0.5 * c;
      Q(b, a) += 0.5 * c;
    }
  }
  return Q;
}

std::vector<int> quad_vars(const std::map<QuadKey, double>& quad) {
  std::vector<int> v;
  for (const auto& [key, c] : quad) {
    v.push_back(key.first);
    v.push_back(key.second);
  }
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

// Splits a quadratic form into blocks over disjoint variable sets (connected components of
// its sparsity graph). A separable form is outer-approximated far faster block by block:
// each block gets its own epigraph variable and its own tangents.
std::vector<std::map<QuadKey, double>> blocks_of(const std::map<QuadKey, double>& quad) {
  std::map<int, int> parent;
  std::function<int(int)> find = [&](int v) {
    auto it = parent.find(v);
    if (it == parent.end()) {
      parent[v] = v;
      return v;
    }
    if (it->second == v) return v;
    const int root = find(it->second);
    parent[v] = root;
    return root;
  };
  for (const auto& [key, c] : quad) {
    const int a = find(key.first), b = find(key.second);
    if (a != b) parent[a] = b;
  }
  std::map<int, std::map<QuadKey, double>> by_root;
  for (const auto& [key, c] : quad) by_root[find(key.first)][key] = c;
  std::vector<std::map<QuadKey, double>> out;
  for (auto& [root, block] : by_root) out.push_back(std::move(block));
  return out;
}

}  // namespace

bool propagate(const std::vector<ExprRow>& rows, const std::vector<sdk::Variable>& vars,
               std::vector<double>& lo, std::vector<double>& up, const std::vector<char>& integer,
               std::string& why, int max_rounds) {
  auto tighten = [&](int v, double nlo, double nup, bool& changed) -> bool {
    const auto k = static_cast<std::size_t>(v);
    // A margin of a few ulps keeps round-off from cutting off points that satisfy a row
    // exactly; a larger one would let solutions overshoot the row the bound came from.
    if (std::isfinite(nlo)) nlo -= 1e-12 * (1.0 + std::abs(nlo));
    if (std::isfinite(nup)) nup += 1e-12 * (1.0 + std::abs(nup));
    if (integer[k]) {
      if (std::isfinite(nlo)) nlo = std::ceil(nlo - 1e-6);
      if (std::isfinite(nup)) nup = std::floor(nup + 1e-6);
    }
    const double width = up[k] - lo[k];
    const double min_gain = std::isfinite(width) ? 1e-3 * width + 1e-9 : 0.0;
    if (nlo > lo[k]) {
      if (!std::isfinite(lo[k]) || nlo - lo[k] > min_gain) changed = true;
      lo[k] = nlo;
    }
    if (nup < up[k]) {
      if (!std::isfinite(up[k]) || up[k] - nup > min_gain) changed = true;
      up[k] = nup;
    }
    if (lo[k] > up[k]) {
      if (lo[k] - up[k] <= 1e-6 * (1.0 + std::abs(lo[k]))) {
        const double mid = 0.5 * (lo[k] + up[k]);
        lo[k] = up[k] = integer[k] ? std::round(mid) : mid;
      } else {
        why = fmt::format("bounds of '{}' cross after propagation: [{}, {}]", vars[k].name, lo[k],
                          up[k]);
        return false;
      }
    }
    return true;
  };

  struct TermRange {
    double lo, up;
  };
  std::vector<TermRange> ranges;
  for (int round = 0; round < max_rounds; ++round) {
    bool changed = false;
    for (const ExprRow& row : rows) {
      ranges.clear();
      double sum_lo = 0.0, sum_up = 0.0;
      int inf_lo = 0, inf_up = 0;
      auto account = [&](double tl, double tu) {
        ranges.push_back({tl, tu});
        if (std::isfinite(tl))
          sum_lo += tl;
        else
          ++inf_lo;
        if (std::isfinite(tu))
          sum_up += tu;
        else
          ++inf_up;
      };
      for (const auto& [v, a] : row.lin) {
        const auto k = static_cast<std::size_t>(v);
        account(a > 0 ? safe_mul(a, lo[k]) : safe_mul(a, up[k]),
                a > 0 ? safe_mul(a, up[k]) : safe_mul(a, lo[k]));
      }
      for (const auto& [key, c] : row.quad) {
        const auto i = static_cast<std::size_t>(key.first);
        const auto j = static_cast<std::size_t>(key.second);
        double pl = 0, pu = 0;
        interval_product(lo[i], up[i], lo[j], up[j], i == j, pl, pu);
        account(c > 0 ? safe_mul(c, pl) : safe_mul(c, pu),
                c > 0 ? safe_mul(c, pu) : safe_mul(c, pl));
      }
      std::size_t t = 0;
      auto bounds_for_term = [&](double& tmin, double& tmax) {
        const TermRange r = ranges[t++];
        const int rest_inf_lo = inf_lo - (std::isfinite(r.lo) ? 0 : 1);
        const int rest_inf_up = inf_up - (std::isfinite(r.up) ? 0 : 1);
        const double rest_lo =
            rest_inf_lo > 0 ? -kInfinity : sum_lo - (std::isfinite(r.lo) ? r.lo : 0.0);
        const double rest_up =
            rest_inf_up > 0 ? kInfinity : sum_up - (std::isfinite(r.up) ? r.up : 0.0);
        tmax = (std::isfinite(row.up) && std::isfinite(rest_lo)) ? row.up - rest_lo : kInfinity;
        tmin = (std::isfinite(row.lo) && std::isfinite(rest_up)) ? row.lo - rest_up : -kInfinity;
      };
      for (const auto& [v, a] : row.lin) {
        double tmin = 0, tmax = 0;
        bounds_for_term(tmin, tmax);
        if (!std::isfinite(tmin) && !std::isfinite(tmax)) continue;
        const double nlo = a > 0 ? tmin / a : tmax / a;
        const double nup = a > 0 ? tmax / a : tmin / a;
        if (!tighten(v, nlo, nup, changed)) return false;
      }
      for (const auto& [key, c] : row.quad) {
        double tmin = 0, tmax = 0;
        bounds_for_term(tmin, tmax);
        if (key.first != key.second) continue;  // bilinear terms are not inverted
        const double sq_up = c > 0 ? tmax / c : tmin / c;
        const double sq_lo = c > 0 ? tmin / c : tmax / c;
        const int v = key.first;
        const auto k = static_cast<std::size_t>(v);
        if (std::isfinite(sq_up)) {
          if (sq_up < -1e-9 * (1.0 + std::abs(sq_up))) {
            why = fmt::format("row '{}' needs a negative square of '{}'", row.name, vars[k].name);
            return false;
          }
          const double r = std::sqrt(std::max(0.0, sq_up));
          if (!tighten(v, -r, r, changed)) return false;
        }
        if (std::isfinite(sq_lo) && sq_lo > 0) {
          const double r = std::sqrt(sq_lo);
          if (lo[k] >= 0 && !tighten(v, r, kInfinity, changed)) return false;
          if (up[k] <= 0 && !tighten(v, -kInfinity, -r, changed)) return false;
        }
      }
    }
    if (!changed) break;
  }
  return true;
}

void product_bounds(double li, double ui, double lj, double uj, bool square, double& lo,
                    double& up) {
  interval_product(li, ui, lj, uj, square, lo, up);
}

void envelope(const Product& p, double li, double ui, double lj, double uj, SparseRow rows[4],
              double lo[4], double up[4]) {
  for (int k = 0; k < 4; ++k) {
    rows[k].idx.clear();
    rows[k].val.clear();
    lo[k] = -kInfinity;
    up[k] = kInfinity;
  }
  const bool finite =
      std::isfinite(li) && std::isfinite(ui) && std::isfinite(lj) && std::isfinite(uj);
  if (!finite) return;  // a free row constrains nothing; prepare() rejects such products
  auto set = [&](int k, double ci, double cj, double rlo, double rup) {
    rows[k].idx = {p.w};
    rows[k].val = {1.0};
    if (p.i == p.j) {
      if (ci + cj != 0.0) {
        rows[k].idx.push_back(p.i);
        rows[k].val.push_back(ci + cj);
      }
    } else {
      if (ci != 0.0) {
        rows[k].idx.push_back(p.i);
        rows[k].val.push_back(ci);
      }
      if (cj != 0.0) {
        rows[k].idx.push_back(p.j);
        rows[k].val.push_back(cj);
      }
    }
    lo[k] = rlo;
    up[k] = rup;
  };
  if (p.i == p.j) {
    const double m = 0.5 * (li + ui);
    // w >= 2 a x - a^2 (tangents at both ends and the middle), w <= (l + u) x - l u.
    set(0, -2.0 * li, 0.0, -li * li, kInfinity);
    set(1, -2.0 * ui, 0.0, -ui * ui, kInfinity);
    set(2, -(li + ui), 0.0, -kInfinity, -li * ui);
    set(3, -2.0 * m, 0.0, -m * m, kInfinity);
    return;
  }
  // x = x_i in [li, ui], y = x_j in [lj, uj]:
  // w >= lx y + ly x - lx ly, w >= ux y + uy x - ux uy,
  // w <= ux y + ly x - ux ly, w <= lx y + uy x - lx uy.
  set(0, -lj, -li, -li * lj, kInfinity);
  set(1, -uj, -ui, -ui * uj, kInfinity);
  set(2, -lj, -ui, -kInfinity, -ui * lj);
  set(3, -uj, -li, -kInfinity, -li * uj);
}

bool is_psd(const Eigen::MatrixXd& Q, std::string& detail) {
  if (Q.size() == 0) return true;
  const double scale = std::max(1.0, Q.cwiseAbs().maxCoeff());
  Eigen::LDLT<Eigen::MatrixXd> ldlt(Q);
  if (ldlt.info() != Eigen::Success) {
    detail = "the LDLT factorization failed";
    return false;
  }
  const Eigen::VectorXd d = ldlt.vectorD();
  const double min_d = d.minCoeff();
  if (min_d < -1e-9 * scale) {
    detail = fmt::format("LDLT pivot {:.6g} < 0", min_d);
    return false;
  }
  // Without 2x2 pivots an indefinite matrix can factor into garbage with d >= 0; the
  // reconstruction catches that.
  const double err = (ldlt.reconstructedMatrix() - Q).cwiseAbs().maxCoeff();
  if (err > 1e-8 * scale * static_cast<double>(Q.rows())) {
    detail = "the matrix has no LDLT factorization with a nonnegative diagonal (indefinite)";
    return false;
  }
  return true;
}

Prepared prepare(const sdk::Model& model) {
  Prepared P;
  const auto& vars = model.variables();
  P.n_orig = static_cast<int>(vars.size());
  P.sense = model.objective().sense == sdk::ObjectiveSense::Maximize ? -1.0 : 1.0;
  P.lo.resize(vars.size());
  P.up.resize(vars.size());
  P.integer.resize(vars.size());
  for (std::size_t j = 0; j < vars.size(); ++j) {
    const auto& v = vars[j];
    if (v.lower == kInfinity || v.upper == -kInfinity || std::isnan(v.lower) ||
        std::isnan(v.upper)) {
      throw sdk::InvalidArgument(
          fmt::format("variable '{}' has invalid bounds [{}, {}]", v.name, v.lower, v.upper));
    }
    P.integer[j] = v.type != sdk::VarType::Continuous;
    P.lo[j] = P.integer[j] && std::isfinite(v.lower) ? std::ceil(v.lower - 1e-9) : v.lower;
    P.up[j] = P.integer[j] && std::isfinite(v.upper) ? std::floor(v.upper + 1e-9) : v.upper;
    if (P.lo[j] > P.up[j]) {
      P.infeasible = true;
      P.infeasible_reason =
          fmt::format("integer variable '{}' has no integer in [{}, {}]", v.name, v.lower, v.upper);
    }
  }

  // Rows as merged expressions, for propagation and classification.
  std::vector<ExprRow> linear_rows, quad_rows;
  for (const auto& r : model.linear_rows()) {
    ExprRow e;
    e.name = r.name;
    add_linear(e.lin, r.terms, 1.0);
    drop_zeros(e.lin);
    if (!row_range(r.sense, r.rhs, e.lo, e.up)) {
      P.infeasible = true;
      P.infeasible_reason = fmt::format("row '{}' has an impossible right-hand side", r.name);
    }
    linear_rows.push_back(std::move(e));
  }
  for (const auto& r : model.quadratic_rows()) {
    ExprRow e;
    e.name = r.name;
    add_linear(e.lin, r.linear, 1.0);
    add_quad(e.quad, r.quad, 1.0);
    drop_zeros(e.lin);
    drop_zeros(e.quad);
    if (!row_range(r.sense, r.rhs, e.lo, e.up)) {
      P.infeasible = true;
      P.infeasible_reason = fmt::format("row '{}' has an impossible right-hand side", r.name);
    }
    quad_rows.push_back(std::move(e));
  }
  for (const auto* group : {&linear_rows, &quad_rows}) {
    for (const ExprRow& e : *group) {
      if (e.lin.empty() && e.quad.empty() && (e.lo > 1e-9 || e.up < -1e-9)) {
        P.infeasible = true;
        P.infeasible_reason = fmt::format("row '{}' has no terms and excludes 0", e.name);
      }
    }
  }
  if (P.infeasible) return P;

  {
    std::vector<ExprRow> all = linear_rows;
    all.insert(all.end(), quad_rows.begin(), quad_rows.end());
    std::string why;
    if (!propagate(all, vars, P.lo, P.up, P.integer, why)) {
      P.infeasible = true;
      P.infeasible_reason = why;
      return P;
    }
    P.model_rows = std::move(all);
  }

  P.ncols = P.n_orig;
  P.cost.assign(vars.size(), 0.0);
  for (const auto& t : model.objective().linear) {
    P.cost[static_cast<std::size_t>(t.var)] += P.sense * t.coef;
  }
  P.cost_const = P.sense * model.objective().constant;
  P.cost_offset = P.sense * model.objective().offset;

  std::map<QuadKey, int> product_index;
  auto new_column = [&](double lo, double up) {
    P.lo.push_back(lo);
    P.up.push_back(up);
    P.integer.push_back(0);
    P.cost.push_back(0.0);
    return P.ncols++;
  };
  auto product_of = [&](QuadKey key, double coef, const std::string& where) {
    auto it = product_index.find(key);
    if (it == product_index.end()) {
      for (int v : {key.first, key.second}) {
        const auto k = static_cast<std::size_t>(v);
        if (!std::isfinite(P.lo[k]) || !std::isfinite(P.up[k])) {
          throw sdk::InvalidArgument(fmt::format(
              "{} has a nonconvex quadratic term over variable '{}', which has no finite {} "
              "bound (none given and none implied by the rows); McCormick relaxations need "
              "finite bounds on every factor of a nonconvex term",
              where, vars[k].name, std::isfinite(P.lo[k]) ? "upper" : "lower"));
        }
      }
      double plo = 0, pup = 0;
      interval_product(
          P.lo[static_cast<std::size_t>(key.first)], P.up[static_cast<std::size_t>(key.first)],
          P.lo[static_cast<std::size_t>(key.second)], P.up[static_cast<std::size_t>(key.second)],
          key.first == key.second, plo, pup);
      Product p;
      p.w = new_column(plo, pup);
      p.i = key.first;
      p.j = key.second;
      P.products.push_back(p);
      it = product_index.emplace(key, static_cast<int>(P.products.size() - 1)).first;
    }
    Product& p = P.products[static_cast<std::size_t>(it->second)];
    p.weight = std::max(p.weight, std::abs(coef));
    return it->second;
  };

  // A column s >= q(x) for one PSD block, bounded below by interval arithmetic so that the
  // first LP is bounded whenever the variables are.
  auto add_epigraph = [&](const std::map<QuadKey, double>& block, const std::string& name,
                          bool objective) {
    double qlo = 0.0;
    for (const auto& [key, c] : block) {
      double pl = 0, pu = 0;
      interval_product(P.lo[static_cast<std::size_t>(key.first)],
                       P.up[static_cast<std::size_t>(key.first)],
                       P.lo[static_cast<std::size_t>(key.second)],
                       P.up[static_cast<std::size_t>(key.second)], key.first == key.second, pl, pu);
      qlo += c > 0 ? safe_mul(c, pl) : safe_mul(c, pu);
    }
    const int t = new_column(std::isfinite(qlo) ? qlo : -kInfinity, kInfinity);
    ConvexRow c;
    c.name = name;
    c.qvars = quad_vars(block);
    c.Q = dense_q(block, c.qvars);
    c.lin_idx = {t};
    c.lin_val = {-1.0};
    c.rhs = 0.0;
    c.objective = objective;
    P.convex.push_back(std::move(c));
    return t;
  };

  // Linear rows pass through.
  for (const ExprRow& e : linear_rows) {
    if (e.lin.empty()) continue;
    if (!std::isfinite(e.lo) && !std::isfinite(e.up)) continue;
    SparseRow row;
    for (const auto& [v, a] : e.lin) {
      row.idx.push_back(v);
      row.val.push_back(a);
    }
    P.rows.push_back(std::move(row));
    P.row_lo.push_back(e.lo);
    P.row_up.push_back(e.up);
  }

  // Quadratic rows: convex ones (one side, PSD) are outer-approximated, the rest lifted.
  const auto& qrows = model.quadratic_rows();
  P.quad_row_products.resize(qrows.size());
  P.quad_row_convex.assign(qrows.size(), 0);
  for (std::size_t r = 0; r < qrows.size(); ++r) {
    const ExprRow& e = quad_rows[r];
    const std::string where = fmt::format("quadratic row '{}'", e.name);
    if (!std::isfinite(e.lo) && !std::isfinite(e.up)) continue;
    const bool one_sided = !std::isfinite(e.lo) || !std::isfinite(e.up);
    bool convex = false;
    double sign = 1.0;  // the convex form is sign * (row) <= sign * bound
    std::string detail;
    if (!e.quad.empty() && one_sided) {
      sign = std::isfinite(e.up) ? 1.0 : -1.0;
      const std::vector<int> qv = quad_vars(e.quad);
      Eigen::MatrixXd Q = dense_q(e.quad, qv) * sign;
      convex = is_psd(Q, detail);
      if (convex) {
        std::map<QuadKey, double> signed_quad = e.quad;
        for (auto& [key, c] : signed_quad) c *= sign;
        const double rhs = sign > 0 ? e.up : -e.lo;
        const auto blocks = blocks_of(signed_quad);
        if (blocks.size() == 1) {
          ConvexRow c;
          c.name = e.name;
          c.qvars = qv;
          c.Q = std::move(Q);
          for (const auto& [v, a] : e.lin) {
            c.lin_idx.push_back(v);
            c.lin_val.push_back(sign * a);
          }
          c.rhs = rhs;
          P.convex.push_back(std::move(c));
        } else {
          // sum_b s_b + a'x <= rhs with s_b >= q_b(x_b).
          SparseRow row;
          for (const auto& [v, a] : e.lin) {
            row.idx.push_back(v);
            row.val.push_back(sign * a);
          }
          for (const auto& block : blocks) {
            const int s_b = add_epigraph(block, e.name, false);
            row.idx.push_back(s_b);
            row.val.push_back(1.0);
          }
          P.rows.push_back(std::move(row));
          P.row_lo.push_back(-kInfinity);
          P.row_up.push_back(rhs);
        }
        P.quad_row_convex[r] = 1;
        continue;
      }
    }
    if (qrows[r].convex) {
      throw sdk::InvalidArgument(fmt::format(
          "{} is declared convex but is not: {}", where,
          e.quad.empty()
              ? "it has no quadratic terms"
              : (one_sided ? fmt::format("its Hessian is not positive semidefinite ({})", detail)
                           : std::string("it is an equality"))));
    }
    std::map<int, double> coefs = e.lin;
    for (const auto& [key, c] : e.quad) {
      const int p = product_of(key, c, where);
      P.quad_row_products[r].push_back(p);
      coefs[P.products[static_cast<std::size_t>(p)].w] += c;
    }
    SparseRow row;
    for (const auto& [v, a] : coefs) {
      if (a == 0.0) continue;
      row.idx.push_back(v);
      row.val.push_back(a);
    }
    P.rows.push_back(std::move(row));
    P.row_lo.push_back(e.lo);
    P.row_up.push_back(e.up);
  }

  // Quadratic objective: epigraph of a convex one, lifted products otherwise.
  std::map<QuadKey, double> obj_quad;
  add_quad(obj_quad, model.objective().quad, P.sense);
  drop_zeros(obj_quad);
  if (!obj_quad.empty()) {
    const std::vector<int> qv = quad_vars(obj_quad);
    Eigen::MatrixXd Q = dense_q(obj_quad, qv);
    std::string detail;
    if (is_psd(Q, detail)) {
      for (const auto& block : blocks_of(obj_quad)) {
        const int t = add_epigraph(block, "objective", true);
        P.cost[static_cast<std::size_t>(t)] = 1.0;
        if (P.epigraph < 0) P.epigraph = t;
      }
    } else {
      for (const auto& [key, c] : obj_quad) {
        const int p = product_of(key, c, "the objective");
        P.objective_products.push_back(p);
        P.cost[static_cast<std::size_t>(P.products[static_cast<std::size_t>(p)].w)] += c;
      }
    }
  }

  P.products_of_var.assign(static_cast<std::size_t>(P.ncols), {});
  for (std::size_t p = 0; p < P.products.size(); ++p) {
    const Product& pr = P.products[p];
    P.products_of_var[static_cast<std::size_t>(pr.i)].push_back(static_cast<int>(p));
    if (pr.j != pr.i)
      P.products_of_var[static_cast<std::size_t>(pr.j)].push_back(static_cast<int>(p));
  }
  return P;
}

}  // namespace arbo::plugins::glpk
