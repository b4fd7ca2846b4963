// SPDX-License-Identifier: MIT
/// @file
/// @brief From the SDK's model to what the branch-and-bound works on: a minimization LP with
/// static rows, convex rows to outer-approximate, and products to relax with McCormick.
#pragma once

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include <arbo/sdk/model.hpp>

#include "lp.hpp"

namespace arbo::plugins::glpk {

using QuadKey = std::pair<int, int>;

/// One model row in the form lo <= lin'x + sum c_ij x_i x_j <= up, with merged terms, over the
/// model's variables.
struct ExprRow {
  std::string name;
  std::map<int, double> lin;
  std::map<QuadKey, double> quad;
  double lo = -sdk::kInfinity;
  double up = sdk::kInfinity;
};

/// `x_q' Q x_q + lin'x <= rhs` with Q positive semidefinite.
struct ConvexRow {
  std::string name;
  std::vector<int> qvars;    ///< columns of Q
  Eigen::MatrixXd Q;         ///< symmetric
  std::vector<int> lin_idx;  ///< linear part, merged
  std::vector<double> lin_val;
  double rhs = 0.0;
  bool objective = false;  ///< the epigraph row of a convex quadratic objective
};

/// Column `w` stands for x_i * x_j (i == j: a square).
struct Product {
  int w = -1;
  int i = -1;
  int j = -1;
  double weight = 0.0;  ///< largest |coefficient| of the product in any row or the objective
};

/// The prepared problem. Columns 0..n_orig-1 are the model's variables, then the epigraph
/// variable (if any), then one column per product.
struct Prepared {
  int n_orig = 0;
  int ncols = 0;
  double sense = 1.0;  ///< internal objective = sense * model objective (internal minimizes)
  std::vector<double> lo, up;
  std::vector<char> integer;
  std::vector<double> cost;
  double cost_const = 0.0;
  double cost_offset = 0.0;  ///< sense * Objective::offset; NaN when the model declares none
  int epigraph = -1;

  std::vector<SparseRow> rows;  ///< static rows: linear rows and lifted nonconvex rows
  std::vector<double> row_lo, row_up;
  std::vector<ConvexRow> convex;
  std::vector<Product> products;
  std::vector<std::vector<int>> products_of_var;  ///< column -> products it is a factor of
  /// Per quadratic row of the model: the products of its lifted form (empty if convex).
  std::vector<std::vector<int>> quad_row_products;
  std::vector<int> objective_products;
  std::vector<char> quad_row_convex;

  /// Every linear and quadratic row of the model, for bound propagation at the nodes.
  std::vector<ExprRow> model_rows;

  bool infeasible = false;  ///< detected while preparing (bounds cross, impossible row)
  std::string infeasible_reason;
};

/// Validates and prepares `model`. Bounds are tightened by interval propagation over every row;
/// products get finite bounds from their factors.
/// @throws sdk::InvalidArgument for a non-PSD row declared convex, a nonconvex term over a
/// variable without finite bounds, or an infinite bound on the wrong side.
Prepared prepare(const sdk::Model& model);

/// Feasibility-based bound tightening (interval propagation) of `lo`, `up` (indexed by column;
/// the rows use the model's variables, which are the first columns) over `rows`, at most
/// `max_rounds` passes or until no bound moves by more than 0.1 % of its width. Integer
/// columns get integral bounds. Returns false, with the reason in `why`, when some bounds
/// cross: no point of the box satisfies the rows. Complexity: O(max_rounds * nonzeros).
bool propagate(const std::vector<ExprRow>& rows, const std::vector<sdk::Variable>& vars,
               std::vector<double>& lo, std::vector<double>& up, const std::vector<char>& integer,
               std::string& why, int max_rounds = 30);

/// The magnitude a relative gap is measured against (sdk::SolveOptions) at internal objective
/// `value`: |value - offset| when the objective declares an offset (a shift, such as an
/// acquisition's mean term), else the smaller of |value| and |value - constant|, so that no
/// constant term loosens it.
inline double gap_base(const Prepared& P, double value) {
  if (!std::isnan(P.cost_offset)) return std::abs(value - P.cost_offset);
  return std::min(std::abs(value), std::abs(value - P.cost_const));
}

/// `SolveResult::gap` of an incumbent at internal `value` that is `diff` >= 0 from its bound.
inline double relative_gap(const Prepared& P, double value, double diff) {
  return diff == 0.0 ? 0.0 : diff / std::max(gap_base(P, value), 1e-10);
}

/// Bounds of x_i * x_j over the box.
void product_bounds(double li, double ui, double lj, double uj, bool square, double& lo,
                    double& up);

/// The four envelope rows of product `p` for factor bounds (li, ui) x (lj, uj): McCormick for
/// bilinear terms; for squares, tangents at both ends and the middle plus the secant.
void envelope(const Product& p, double li, double ui, double lj, double uj, SparseRow rows[4],
              double lo[4], double up[4]);

/// True when the symmetric matrix is positive semidefinite, by an LDLT factorization checked
/// against a reconstruction; `detail` explains a failure.
bool is_psd(const Eigen::MatrixXd& Q, std::string& detail);

}  // namespace arbo::plugins::glpk
