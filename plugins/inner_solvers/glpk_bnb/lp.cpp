// SPDX-License-Identifier: MIT
#include "lp.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <glpk.h>

namespace arbo::plugins::glpk {

namespace {

int bound_type(double lo, double up) noexcept {
  const bool has_lo = std::isfinite(lo);
  const bool has_up = std::isfinite(up);
  if (has_lo && has_up) return lo == up ? GLP_FX : GLP_DB;
  if (has_lo) return GLP_LO;
  if (has_up) return GLP_UP;
  return GLP_FR;
}

double finite_or_zero(double v) noexcept { return std::isfinite(v) ? v : 0.0; }

}  // namespace

Lp::Lp(GlpkSession& session) : session_(session) {
  glp_prob* created = nullptr;
  session_.run("glp_create_prob", [&]() noexcept {
    created = glp_create_prob();
    glp_set_obj_dir(created, GLP_MIN);
  });
  prob_ = created;
  generation_ = GlpkSession::generation();
}

Lp::~Lp() {
  // After a GLPK failure the environment, and this problem with it, is already freed.
  if (prob_ == nullptr || generation_ != GlpkSession::generation()) return;
  glp_prob* p = prob_;
  try {
    session_.run("glp_delete_prob", [p]() noexcept { glp_delete_prob(p); });
  } catch (...) {
  }
}

void Lp::check_alive() const {
  if (prob_ == nullptr || generation_ != GlpkSession::generation()) {
    throw GlpkError("GLPK problem used after a GLPK failure reset the environment");
  }
}

void Lp::add_cols(const std::vector<double>& lo, const std::vector<double>& up,
                  const std::vector<double>& obj) {
  check_alive();
  const int n = static_cast<int>(lo.size());
  if (n == 0) return;
  glp_prob* p = prob_;
  const int first = cols_ + 1;
  const double* l = lo.data();
  const double* u = up.data();
  const double* c = obj.data();
  session_.run("adding columns", [=]() noexcept {
    glp_add_cols(p, n);
    for (int k = 0; k < n; ++k) {
      glp_set_col_bnds(p, first + k, bound_type(l[k], u[k]), finite_or_zero(l[k]),
                       finite_or_zero(u[k]));
      glp_set_obj_coef(p, first + k, c[k]);
    }
  });
  cols_ += n;
}

int Lp::add_rows(const std::vector<SparseRow>& rows, const std::vector<double>& lo,
                 const std::vector<double>& up) {
  check_alive();
  const int first = rows_;
  if (rows.empty()) return first;
  std::vector<int> which(rows.size());
  glp_prob* p = prob_;
  const int n = static_cast<int>(rows.size());
  session_.run("adding rows", [=]() noexcept { glp_add_rows(p, n); });
  rows_ += n;
  for (int k = 0; k < n; ++k) which[static_cast<std::size_t>(k)] = first + k;
  set_rows(which, rows, lo, up);
  return first;
}

void Lp::set_rows(const std::vector<int>& which, const std::vector<SparseRow>& rows,
                  const std::vector<double>& lo, const std::vector<double>& up) {
  check_alive();
  // Flatten into one 1-based buffer so that one guarded call sets every row.
  std::size_t total = 0;
  for (const auto& r : rows) total += r.idx.size();
  ind_.assign(total + 1, 0);
  val_.assign(total + 1, 0.0);
  std::vector<int> start(rows.size() + 1, 0);
  std::size_t pos = 0;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    start[k] = static_cast<int>(pos);
    for (std::size_t t = 0; t < rows[k].idx.size(); ++t) {
      ind_[pos + 1] = rows[k].idx[t] + 1;
      val_[pos + 1] = rows[k].val[t];
      ++pos;
    }
  }
  start[rows.size()] = static_cast<int>(pos);
  glp_prob* p = prob_;
  const int n = static_cast<int>(rows.size());
  const int* w = which.data();
  const int* s = start.data();
  int* ind = ind_.data();
  double* val = val_.data();
  const double* l = lo.data();
  const double* u = up.data();
  const double* sjj = col_scale_.empty() ? nullptr : col_scale_.data();
  session_.run("setting rows", [=]() noexcept {
    for (int k = 0; k < n; ++k) {
      const int i = w[k] + 1;
      // glp_set_mat_row reads ind[1..len], so pass the buffer shifted to this row's start.
      glp_set_mat_row(p, i, s[k + 1] - s[k], ind + s[k], val + s[k]);
      if (sjj != nullptr) {
        // Cuts and McCormick envelopes change after scale(): a row keeping a stale factor
        // (or GLPK's 1 for a new row) can span ten orders of magnitude (Alkylation's lifted
        // products), which left bases with condition numbers near 1e14.
        double big = 0.0;
        for (int t = s[k] + 1; t <= s[k + 1]; ++t) {
          big = std::max(big, std::abs(val[t]) * sjj[ind[t] - 1]);
        }
        glp_set_rii(p, i, big > 0.0 ? 1.0 / big : 1.0);
      }
      glp_set_row_bnds(p, i, bound_type(l[k], u[k]), finite_or_zero(l[k]), finite_or_zero(u[k]));
    }
  });
}

void Lp::get_rows(const std::vector<int>& which, std::vector<SparseRow>& rows,
                  std::vector<double>& lo, std::vector<double>& up) const {
  check_alive();
  const int n = static_cast<int>(which.size());
  if (n == 0) return;
  const std::size_t base = rows.size();
  rows.resize(base + static_cast<std::size_t>(n));
  lo.resize(base + static_cast<std::size_t>(n));
  up.resize(base + static_cast<std::size_t>(n));
  ind_.assign(static_cast<std::size_t>(cols_) + 1, 0);
  val_.assign(static_cast<std::size_t>(cols_) + 1, 0.0);
  std::vector<int> len(static_cast<std::size_t>(n));
  std::vector<int> type(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) {
    glp_prob* p = prob_;
    const int i = which[static_cast<std::size_t>(k)] + 1;
    int* ind = ind_.data();
    double* val = val_.data();
    int* l = &len[static_cast<std::size_t>(k)];
    int* t = &type[static_cast<std::size_t>(k)];
    double* rlo = &lo[base + static_cast<std::size_t>(k)];
    double* rup = &up[base + static_cast<std::size_t>(k)];
    // glp_get_mat_row returns the coefficients as set, whatever the scaling.
    session_.run("reading rows", [=]() noexcept {
      *l = glp_get_mat_row(p, i, ind, val);
      *t = glp_get_row_type(p, i);
      *rlo = glp_get_row_lb(p, i);
      *rup = glp_get_row_ub(p, i);
    });
    SparseRow& row = rows[base + static_cast<std::size_t>(k)];
    row.idx.assign(ind_.begin() + 1, ind_.begin() + 1 + *l);
    for (int& j : row.idx) j -= 1;
    row.val.assign(val_.begin() + 1, val_.begin() + 1 + *l);
    if (*t == GLP_FR || *t == GLP_UP) *rlo = -std::numeric_limits<double>::infinity();
    if (*t == GLP_FR || *t == GLP_LO) *rup = std::numeric_limits<double>::infinity();
  }
}

void Lp::delete_rows(std::vector<int> which) {
  check_alive();
  if (which.empty()) return;
  std::vector<int> num(which.size() + 1, 0);
  for (std::size_t k = 0; k < which.size(); ++k) num[k + 1] = which[k] + 1;
  glp_prob* p = prob_;
  const int n = static_cast<int>(which.size());
  const int* nm = num.data();
  session_.run("deleting rows", [=]() noexcept { glp_del_rows(p, n, nm); });
  rows_ -= n;
}

void Lp::set_col_bounds(const std::vector<int>& which, const std::vector<double>& lo,
                        const std::vector<double>& up) {
  check_alive();
  if (which.empty()) return;
  glp_prob* p = prob_;
  const int n = static_cast<int>(which.size());
  const int* w = which.data();
  const double* l = lo.data();
  const double* u = up.data();
  session_.run("setting column bounds", [=]() noexcept {
    for (int k = 0; k < n; ++k) {
      glp_set_col_bnds(p, w[k] + 1, bound_type(l[k], u[k]), finite_or_zero(l[k]),
                       finite_or_zero(u[k]));
    }
  });
}

void Lp::scale() {
  check_alive();
  glp_prob* p = prob_;
  const int n = cols_;
  col_scale_.assign(static_cast<std::size_t>(n), 1.0);
  double* sjj = col_scale_.data();
  session_.run("scaling", [=]() noexcept {
    glp_scale_prob(p, GLP_SF_AUTO);
    for (int j = 0; j < n; ++j) sjj[j] = glp_get_sjj(p, j + 1);
  });
}

LpStatus Lp::solve(double time_limit_ms, int iteration_limit) {
  check_alive();
  glp_prob* p = prob_;
  int rc = 0;
  int status = 0;
  int iterations = 0;
  const int tm_lim = (time_limit_ms < 0 || time_limit_ms > 2e9)
                         ? std::numeric_limits<int>::max()
                         : std::max(1, static_cast<int>(time_limit_ms));
  session_.run("glp_simplex", [&]() noexcept {
    glp_smcp parm;
    glp_init_smcp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    parm.meth = GLP_DUALP;
    parm.tm_lim = tm_lim;
    // Without a limit of the caller's, a cap far above any healthy solve (LEAF-GP nodes take
    // about 100 iterations, their roots a few thousand): under numerical instability GLPK's
    // simplex can cycle without end, and a solve without a time limit (a node-limited one)
    // then never returned. The node is then treated like a numerical failure.
    parm.it_lim = iteration_limit > 0 ? iteration_limit : 10000 + 50 * (rows_ + cols_);
    if (glp_get_num_rows(p) > 0 && !glp_bf_exists(p)) {
      // A basis that cannot be factorized (rows deleted, statuses restored from another
      // node) is replaced rather than failing the solve.
      if (glp_factorize(p) != 0) glp_adv_basis(p, 0);
    }
    rc = glp_simplex(p, &parm);
    if (rc == GLP_EITLIM) {
      iterations = glp_get_it_cnt(p);
      return;
    }
    if (rc == GLP_EBADB || rc == GLP_ESING || rc == GLP_ECOND || rc == GLP_EFAIL) {
      glp_adv_basis(p, 0);
      parm.meth = GLP_PRIMAL;
      rc = glp_simplex(p, &parm);
    }
    if (rc == GLP_EFAIL || rc == GLP_ESING || rc == GLP_ECOND) {
      glp_std_basis(p);
      parm.meth = GLP_PRIMAL;
      rc = glp_simplex(p, &parm);
    }
    status = glp_get_status(p);
    // The dual simplex proves infeasibility only from a dual feasible basis; any other
    // non-optimal ending is settled by the primal simplex from where it stopped.
    if (rc == 0 && status != GLP_OPT &&
        !(status == GLP_NOFEAS && glp_get_dual_stat(p) == GLP_FEAS)) {
      parm.meth = GLP_PRIMAL;
      rc = glp_simplex(p, &parm);
      status = glp_get_status(p);
    }
    iterations = glp_get_it_cnt(p);
  });
  iterations_ = iterations;
  if (rc == GLP_ETMLIM) return LpStatus::TimeLimit;
  if (rc == GLP_EITLIM) return LpStatus::IterationLimit;
  if (rc != 0) return LpStatus::Failed;
  switch (status) {
    case GLP_OPT: return LpStatus::Optimal;
    case GLP_NOFEAS: return LpStatus::Infeasible;
    case GLP_UNBND: return LpStatus::Unbounded;
    default: return LpStatus::Failed;
  }
}

double Lp::objective() const {
  check_alive();
  glp_prob* p = prob_;
  double z = 0.0;
  session_.run("glp_get_obj_val", [&]() noexcept { z = glp_get_obj_val(p); });
  return z;
}

void Lp::primal(std::vector<double>& x) const {
  check_alive();
  x.resize(static_cast<std::size_t>(cols_));
  glp_prob* p = prob_;
  double* out = x.data();
  const int n = cols_;
  session_.run("reading the primal solution", [=]() noexcept {
    for (int j = 0; j < n; ++j) out[j] = glp_get_col_prim(p, j + 1);
  });
}

void Lp::reduced_costs(std::vector<double>& d) const {
  check_alive();
  d.resize(static_cast<std::size_t>(cols_));
  glp_prob* p = prob_;
  double* out = d.data();
  const int n = cols_;
  session_.run("reading reduced costs", [=]() noexcept {
    for (int j = 0; j < n; ++j) out[j] = glp_get_col_dual(p, j + 1);
  });
}

Basis Lp::basis() const {
  check_alive();
  Basis b;
  b.rows.resize(static_cast<std::size_t>(rows_));
  b.cols.resize(static_cast<std::size_t>(cols_));
  glp_prob* p = prob_;
  signed char* r = b.rows.data();
  signed char* c = b.cols.data();
  const int m = rows_;
  const int n = cols_;
  session_.run("reading the basis", [=]() noexcept {
    for (int i = 0; i < m; ++i) r[i] = static_cast<signed char>(glp_get_row_stat(p, i + 1));
    for (int j = 0; j < n; ++j) c[j] = static_cast<signed char>(glp_get_col_stat(p, j + 1));
  });
  return b;
}

void Lp::set_basis(const Basis& b) {
  check_alive();
  glp_prob* p = prob_;
  const signed char* r = b.rows.data();
  const signed char* c = b.cols.data();
  // Rows appended since the basis was saved (cuts) enter as basic, which keeps the number of
  // basic variables equal to the number of rows.
  const int saved_m = static_cast<int>(b.rows.size());
  const int m = rows_;
  const int n = std::min(cols_, static_cast<int>(b.cols.size()));
  session_.run("restoring a basis", [=]() noexcept {
    for (int i = 0; i < m; ++i) glp_set_row_stat(p, i + 1, i < saved_m ? r[i] : GLP_BS);
    for (int j = 0; j < n; ++j) glp_set_col_stat(p, j + 1, c[j]);
  });
}

}  // namespace arbo::plugins::glpk
