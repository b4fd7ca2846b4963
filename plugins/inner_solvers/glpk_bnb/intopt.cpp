// SPDX-License-Identifier: MIT
// Pure MILPs through GLPK's own branch-and-cut (glp_intopt), with the same result contract.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <vector>

#include <fmt/format.h>
#include <glpk.h>

#include <arbo/sdk/error.hpp>

#include "bnb.hpp"
#include "glpk_session.hpp"
#include "prepare.hpp"

namespace arbo::plugins::glpk {

namespace {

using sdk::kInfinity;

int bound_type(double lo, double up) noexcept {
  const bool has_lo = std::isfinite(lo), has_up = std::isfinite(up);
  if (has_lo && has_up) return lo == up ? GLP_FX : GLP_DB;
  if (has_lo) return GLP_LO;
  if (has_up) return GLP_UP;
  return GLP_FR;
}

double finite_or_zero(double v) noexcept { return std::isfinite(v) ? v : 0.0; }

// Plain data shared with the branch-and-cut callback, which runs inside the guarded section.
struct CallbackData {
  double abs_gap;
  double rel_gap;
  const Prepared* prepared;  // its cost_const is the constant term GLPK's objective lacks
  long long node_limit;
  const BnbConfig* config;
  double best_bound;  // of the minimization
  int have_bound;
  int nodes;
  int iterations;
  int stopped;  // 1: node limit, 2: gap, 3: cancelled
};

bool cancelled(const BnbConfig* config) noexcept {
  try {
    return config->cancelled && config->cancelled();
  } catch (...) {
    return false;
  }
}

void callback(glp_tree* tree, void* info) noexcept {
  auto* d = static_cast<CallbackData*>(info);
  int a = 0, n = 0, t = 0;
  glp_ios_tree_size(tree, &a, &n, &t);
  d->nodes = t;
  glp_prob* p = glp_ios_get_prob(tree);
  d->iterations = glp_get_it_cnt(p);
  const int best = glp_ios_best_node(tree);
  if (best != 0) {
    d->best_bound = glp_ios_node_bound(tree, best);
    d->have_bound = 1;
  }
  if (glp_ios_reason(tree) != GLP_ISELECT) return;
  if (d->node_limit >= 0 && t >= d->node_limit) {
    d->stopped = 1;
    glp_ios_terminate(tree);
  } else if (d->have_bound && glp_mip_status(p) == GLP_FEAS &&
             glp_mip_obj_val(p) - d->best_bound <=
                 std::max(d->abs_gap,
                          d->rel_gap * gap_base(*d->prepared,
                                                glp_mip_obj_val(p) + d->prepared->cost_const))) {
    d->stopped = 2;
    glp_ios_terminate(tree);
  } else if (cancelled(d->config)) {
    d->stopped = 3;
    glp_ios_terminate(tree);
  }
}

}  // namespace

sdk::SolveResult solve_milp_intopt(const sdk::Model& model, const sdk::SolveOptions& options,
                                   const BnbConfig& config) {
  if (!model.is_linear()) {
    throw sdk::InvalidArgument(
        "glp_intopt solves linear models only; this one has quadratic terms");
  }
  const auto start = std::chrono::steady_clock::now();
  const Prepared P = prepare(model);
  sdk::SolveResult res;
  auto seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  if (P.infeasible) {
    res.status = sdk::SolveStatus::Infeasible;
    res.objective = res.best_bound = P.sense > 0 ? kInfinity : -kInfinity;
    res.message = "infeasible: " + P.infeasible_reason;
    res.seconds = seconds();
    return res;
  }

  // Flatten everything GLPK needs into plain arrays (1-based where GLPK wants it).
  const int n = P.ncols;
  const int m = static_cast<int>(P.rows.size());
  std::vector<int> ia(1, 0), ja(1, 0);
  std::vector<double> ar(1, 0.0);
  for (int i = 0; i < m; ++i) {
    const SparseRow& r = P.rows[static_cast<std::size_t>(i)];
    for (std::size_t k = 0; k < r.idx.size(); ++k) {
      ia.push_back(i + 1);
      ja.push_back(r.idx[k] + 1);
      ar.push_back(r.val[k]);
    }
  }
  std::vector<double> x(static_cast<std::size_t>(n), 0.0);
  const int nnz = static_cast<int>(ar.size()) - 1;
  const double* lo = P.lo.data();
  const double* up = P.up.data();
  const double* cost = P.cost.data();
  const char* integer = P.integer.data();
  const double* rlo = P.row_lo.data();
  const double* rup = P.row_up.data();
  const int* pia = ia.data();
  const int* pja = ja.data();
  const double* par = ar.data();
  double* px = x.data();
  const int tm_lim =
      std::isfinite(options.time_limit_seconds)
          ? static_cast<int>(std::min(2e9, std::max(1.0, 1000.0 * options.time_limit_seconds)))
          : std::numeric_limits<int>::max();
  CallbackData data{options.absolute_gap,
                    options.relative_gap,
                    &P,
                    options.node_limit,
                    &config,
                    -kInfinity,
                    0,
                    0,
                    0,
                    0};
  CallbackData* pdata = &data;
  int rc = 0, status = 0;
  double obj = 0.0;

  GlpkSession session([&config](std::string_view line) {
    if (config.log) config.log(sdk::LogLevel::Debug, fmt::format("glpk: {}", line));
  });
  session.run("glp_intopt", [&]() noexcept {
    glp_prob* p = glp_create_prob();
    glp_set_obj_dir(p, GLP_MIN);
    if (m > 0) glp_add_rows(p, m);
    if (n > 0) glp_add_cols(p, n);
    for (int i = 0; i < m; ++i) {
      glp_set_row_bnds(p, i + 1, bound_type(rlo[i], rup[i]), finite_or_zero(rlo[i]),
                       finite_or_zero(rup[i]));
    }
    for (int j = 0; j < n; ++j) {
      glp_set_col_bnds(p, j + 1, bound_type(lo[j], up[j]), finite_or_zero(lo[j]),
                       finite_or_zero(up[j]));
      glp_set_obj_coef(p, j + 1, cost[j]);
      if (integer[j]) glp_set_col_kind(p, j + 1, GLP_IV);
    }
    if (nnz > 0) glp_load_matrix(p, nnz, pia, pja, par);
    glp_iocp parm;
    glp_init_iocp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    parm.presolve = GLP_ON;
    parm.tm_lim = tm_lim;
    // The relative gap is the callback's (sdk::SolveOptions's measure, constant term included);
    // GLPK's own mip_gap would measure it without the constant.
    parm.mip_gap = 0.0;
    parm.gmi_cuts = GLP_ON;
    parm.mir_cuts = GLP_ON;
    parm.cov_cuts = GLP_ON;
    parm.clq_cuts = GLP_ON;
    parm.cb_func = callback;
    parm.cb_info = pdata;
    rc = glp_intopt(p, &parm);
    status = glp_mip_status(p);
    if (status == GLP_OPT || status == GLP_FEAS) {
      obj = glp_mip_obj_val(p);
      for (int j = 0; j < n; ++j) px[j] = glp_mip_col_val(p, j + 1);
    }
    glp_delete_prob(p);
  });

  res.nodes = data.nodes;
  res.lp_iterations = data.iterations;
  res.seconds = seconds();
  const bool have_x = status == GLP_OPT || status == GLP_FEAS;
  if (rc == GLP_ENODFS) {
    res.status = sdk::SolveStatus::Unbounded;
    res.objective = res.best_bound = P.sense > 0 ? -kInfinity : kInfinity;
    res.message = "the LP relaxation is unbounded: the model is unbounded";
    return res;
  }
  if (rc == GLP_ENOPFS || status == GLP_NOFEAS) {
    res.status = sdk::SolveStatus::Infeasible;
    res.objective = res.best_bound = P.sense > 0 ? kInfinity : -kInfinity;
    res.message = "infeasible (glp_intopt)";
    return res;
  }
  const bool finished = (rc == 0 && status == GLP_OPT) || rc == GLP_EMIPGAP || data.stopped == 2;
  double bound = -kInfinity;
  if (rc == 0 && status == GLP_OPT) {
    bound = obj;
  } else if (data.have_bound) {
    bound = data.have_bound ? std::min(data.best_bound, have_x ? obj : kInfinity) : -kInfinity;
  }
  if (have_x) {
    std::vector<double> xs(static_cast<std::size_t>(P.n_orig));
    for (int j = 0; j < P.n_orig; ++j) {
      const auto k = static_cast<std::size_t>(j);
      xs[k] = P.integer[k] ? std::round(x[k]) : x[k];
    }
    res.x = std::move(xs);
    res.objective = model.evaluate(res.x).objective;
    // GLPK's objective lacks the constant term (sdk::SolveOptions's measure).
    const double diff = std::max(0.0, obj - bound);
    res.gap = relative_gap(P, obj + P.cost_const, diff);
  } else {
    res.objective = P.sense > 0 ? kInfinity : -kInfinity;
  }
  // The bound of GLPK's objective plus the constant term it does not have.
  res.best_bound = P.sense * (bound + P.cost_const);
  if (finished && have_x) {
    res.status = sdk::SolveStatus::Optimal;
  } else if (rc == 0 || rc == GLP_ETMLIM || rc == GLP_ESTOP || rc == GLP_EMIPGAP) {
    res.status = sdk::SolveStatus::LimitReached;
  } else {
    res.status = sdk::SolveStatus::Error;
  }
  res.message =
      fmt::format("{} (glp_intopt rc {}): {} nodes, {} LP iterations, {:.3f} s",
                  sdk::to_string(res.status), rc, res.nodes, res.lp_iterations, res.seconds);
  return res;
}

}  // namespace arbo::plugins::glpk
