// SPDX-License-Identifier: MIT
/// @file
/// @brief The known constraint behind constraint/polynomial and constraint/linear: rows
/// p_k(x) <= 0 / p_k(x) == 0 parsed from text, with violation, formulation and projection.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <arbo/sdk/capabilities/constraint.hpp>
#include <arbo/sdk/constraint.hpp>
#include <arbo/sdk/model.hpp>

#include "expression.hpp"

namespace arbo::plugins {

/// Worst violation at which `project` still reports success: the kernel's own tolerance for
/// proposals, since equality rows can only be met up to rounding.
inline constexpr double kProjectionTolerance = 1e-6;

/// Relative rounding of a row's evaluation (about 450 ulps of the magnitude of its terms):
/// `violation` ignores excesses below this times ParsedConstraint::magnitude.
inline constexpr double kRowRounding = 1e-13;

/// A row's scale is this fraction of its magnitude over the box, and at least 1: rows up to a
/// magnitude of 1e4 keep absolute tolerances; above, a tolerance of 1e-6 is 1e-10 of the
/// magnitude, about 5e5 ulps, well above an LP's residuals (1e-13 of the magnitude measured on
/// Alkylation) and tight enough that a relaxed row moves G6's optimum by 0.005 (with the full
/// magnitude, tried first, LEAF-GP reported -6997 against f* = -6961.8: G6's two circles meet
/// at a shallow angle).
inline constexpr double kScaleFraction = 1e-4;

/// Lifts monomials of degree > 2 to quadratics: every product of two factors that is itself
/// needed as a factor becomes an auxiliary variable w with the row `(a*b - w) / s == 0`,
/// s = max(1, kScaleFraction * largest |bound of w|), and bounds from interval arithmetic over the
/// point variables' bounds. Auxiliaries are shared between the rows formulated through one lifter.
class MonomialLifter {
 public:
  /// `x_vars[i]`: model variable of coordinate i (only the coordinates used are read).
  MonomialLifter(sdk::Model& model, const std::vector<int>& x_vars, std::string prefix);
  /// Two variables whose product is `m` (degree >= 2); lifts sub-products as needed.
  std::pair<int, int> factors(const Monomial& m);
  /// The variable equal to the product `m` (degree >= 1).
  int variable(const Monomial& m);
  /// Exact range of the monomial over the box of the point variables' bounds.
  std::pair<double, double> bounds(const Monomial& m) const;

 private:
  sdk::Model& model_;
  const std::vector<int>& x_vars_;
  std::string prefix_;
  std::map<Monomial, int> lifted_;
};

/// True when the quadratic part is positive semidefinite (smallest eigenvalue of the
/// symmetric matrix of the terms >= -1e-10 of the largest magnitude).
bool is_positive_semidefinite(const std::vector<sdk::QuadTerm>& quad);

/// Known constraint made of parsed polynomial rows. Subclasses (the plugins) only choose the
/// parameter, the degree limit and whether a list of rows is allowed.
///
/// - Every row has a scale s_k = max(1, kScaleFraction * M_k), M_k the row's magnitude over
///   the space's box: |constant| plus, for every term, |coefficient| times the largest
///   |monomial| over the box (user units). Violations and model rows are in units of s_k, so
///   that one absolute tolerance (the kernel's 1e-6, a solver's `feasibility_tolerance`) is
///   relative to the size of the numbers a large row adds up: Alkylation's rows reach 4e13,
///   where 1e-6 absolute is below the rounding of a single evaluation and no LP can meet it.
/// - `violation(x)`: the worst row, max(0, p_k(x)) / s_k for inequalities and |p_k(x)| / s_k
///   for equalities, evaluated in user units (log-scaled coordinates decoded with exp); an
///   excess within the evaluation's rounding (kRowRounding times the row's magnitude at x) is 0.
/// - `formulate`: linear rows for degree <= 1; one quadratic row for higher degrees, with
///   monomials of degree > 2 lifted by `MonomialLifter` (whose definition rows are divided by
///   max(1, kScaleFraction * the auxiliary's largest |bound|)); every row is divided by s_k. A row
///   is declared convex when it is a "<=" row whose quadratic part is positive semidefinite. Rows
///   over log-scaled parameters cannot be written in the encoded variables: `InvalidArgument`
///   naming the parameter.
/// - `project(x)`: the nearest feasible point, as a MIQCP solved by `Context::model_solver()`
///   (see `project`).
class PolynomialRowsConstraint : public sdk::Constraint,
                                 public sdk::FormulatesConstraint,
                                 public sdk::ProjectsPoints,
                                 public sdk::ReportsRowExcesses {
 public:
  double violation(const Eigen::VectorXd& x) const override;
  /// Sum of the rows' squared excesses in user units (no s_k), with `violation`'s rounding
  /// rule; a NaN row gives the largest finite double.
  double squared_excess(const Eigen::VectorXd& x) const override;
  std::string describe() const override;
  void formulate(sdk::Model& model, const sdk::PointVariables& point) const override;
  /// Minimizes sum over the real and integer coordinates the rows use of
  /// ((x_i - x0_i) / range_i)^2 plus the number of changed binary coordinates, subject to the
  /// rows, with gaps of 1e-6, a feasibility tolerance of 1e-7 and a time limit of 10 s (or the
  /// context's time left, if less). The rows are not tightened
  /// (a margin on `p <= 0` moves the answer by its cube root where the gradient vanishes, as
  /// for x^3 + y <= 0 at the origin), so the answer may violate a row by rounding: it is
  /// accepted up to kProjectionTolerance, the kernel's own tolerance for proposals. The
  /// coordinates the rows do not use (categoricals among them) keep their values. Returns true
  /// at once when x is feasible; false without a model solver, for rows over log-scaled
  /// parameters, when the model is infeasible, or when the answer violates a row by more than
  /// kProjectionTolerance.
  bool project(Eigen::VectorXd& x) const override;

  const std::vector<ParsedConstraint>& rows() const noexcept { return rows_; }
  /// Coordinates used by some row's expanded polynomial, ascending.
  const std::vector<int>& coordinates() const noexcept { return coordinates_; }
  /// s_k of every row (see the class comment), parallel to rows().
  const std::vector<double>& scales() const noexcept { return scales_; }

 protected:
  /// Parses `args.params.get_string(key)`.
  /// @throws sdk::ParamError with `key`: "<id>: invalid <key>: <reason> at column <c>:" and the
  ///         caret display of the first error.
  PolynomialRowsConstraint(const sdk::CreateArgs& args, std::string component_id, std::string key,
                           const ParseOptions& options, std::string row_prefix);

 private:
  // Folds fold(acc, excess, row) over the rows whose excess (user units) is above the
  // evaluation's rounding, from 0; a NaN row gives the largest finite double.
  template <class Fold>
  double fold_excesses(const Eigen::VectorXd& x, Fold fold) const;
  void add_rows(sdk::Model& model, const std::vector<int>& x_vars) const;
  void check_point(const Eigen::VectorXd& x) const;

  sdk::Context& context_;
  const sdk::Space& space_;
  std::string id_;
  std::string row_prefix_;
  std::vector<ParsedConstraint> rows_;
  std::vector<int> coordinates_;
  std::vector<double> scales_;
};

}  // namespace arbo::plugins
