// SPDX-License-Identifier: MIT
/// @file
/// @brief A solver-agnostic mixed-integer quadratically-constrained model (MIQCP).
///
/// Surrogates, acquisitions and known constraints that can formulate themselves add blocks to
/// one `Model`; a model solver (the `glpk_bnb` inner solver) solves it to proven optimality.
/// Plugins never see a solver's API. This header holds only the data structure, its checks and
/// the evaluation of a point; there is no solver in the SDK.
///
/// Rows come in three kinds:
/// - linear rows `a'x (<=, >=, =) b`;
/// - convex quadratic rows `x'Qx + a'x <= b` with Q positive semidefinite (for example the
///   posterior variance of a tree-kernel GP); the solver adds outer-approximation cuts;
/// - nonconvex quadratic rows (bilinear terms, concave squares, equalities with quadratic
///   terms); the solver relaxes them with McCormick envelopes and branches spatially.
/// Higher-degree polynomials are lifted to quadratics with auxiliary variables by whoever
/// builds the model.
///
/// How a model is built in a BO iteration (see inner_solver.hpp): the solver creates an empty
/// `Model`, adds the point variables (`add_point_variables`), lets the acquisition formulate
/// its objective and each known constraint its rows over those variables, solves, and reads
/// the point back from `PointVariables::x_vars`. Give each block's variables and rows a
/// prefix of its own (tree_gp uses "tg_", e.g. "tg_z_0_5"), which keeps dumped models
/// readable; names need not be unique. Variables and rows are referred to by index only.
///
/// Units: a model works in the encoded units of space.hpp for the point variables, and in
/// whatever units each block chooses for its own variables. Scaling matters to any solver:
/// keep coefficients and bounds within a few orders of magnitude of one where the problem
/// allows (decision 19 of docs/decisions.md describes how known rows are scaled).
///
/// Thread-safety: a `Model` is a plain value; const members may run concurrently, mutation
/// needs exclusive access.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "arbo/sdk/export.hpp"
#include "arbo/sdk/space.hpp"

namespace arbo::sdk {

/// Infinite bound or right-hand side: `lower = -kInfinity` means no lower bound.
inline constexpr double kInfinity = std::numeric_limits<double>::infinity();

/// Domain of a variable: any real in its bounds, an integer in them, or 0/1.
enum class VarType { Continuous, Integer, Binary };
/// Relation of a row's activity to its right-hand side: `<=`, `>=` or `=`.
enum class RowSense { LessEqual, GreaterEqual, Equal };
/// Direction of the objective. Acquisitions are maximized; projections minimize a distance.
enum class ObjectiveSense { Minimize, Maximize };

/// "<=", ">=", "=" (static storage; "?" for a value outside the enum).
ARBO_SDK_API const char* to_string(RowSense sense) noexcept;

/// One variable. Integer and binary variables are what make a model mixed-integer; a solver
/// needs finite bounds on every factor of a nonconvex quadratic term (glpk_bnb refuses the
/// model with `InvalidArgument` otherwise), so give them wherever they are known.
struct Variable {
  std::string name;                    ///< for messages and LP dumps; need not be unique
  VarType type = VarType::Continuous;  ///< continuous, integer or binary
  double lower = 0.0;                  ///< may be -kInfinity
  double upper = kInfinity;            ///< may be +kInfinity; >= lower
};

/// `coef * x[var]`, with `var` the index `add_variable` returned.
struct LinearTerm {
  int var = -1;
  double coef = 0.0;
};

/// coef * x[var1] * x[var2]; var1 == var2 is a square. Repeated pairs add up (and (a, b)
/// and (b, a) are the same product).
struct QuadTerm {
  int var1 = -1;
  int var2 = -1;
  double coef = 0.0;
};

/// `sum terms (sense) rhs`. Repeated variables in `terms` add up.
struct LinearRow {
  std::string name;               ///< for messages and LP dumps
  std::vector<LinearTerm> terms;  ///< the activity a'x
  RowSense sense = RowSense::LessEqual;
  double rhs = 0.0;  ///< not NaN; +-kInfinity makes the row void on that side
};

/// `sum quad + sum linear (sense) rhs`. `convex = true` declares that the row, written as
/// `q(x) <= rhs`, has a positive semidefinite Hessian, so the solver may outer-approximate it
/// (cuts at any point are valid) rather than branch on it. The declaration is checked:
/// `Model::add_quadratic_row` refuses it on a row that is not `<=`, and a solver refuses a
/// row whose Hessian is not PSD (`glpk_bnb`: `InvalidArgument` from `solve`). Rows without the
/// flag may still be convex; glpk_bnb detects that on its own.
struct QuadraticRow {
  std::string name;
  std::vector<QuadTerm> quad;      ///< x'Qx as a list of products
  std::vector<LinearTerm> linear;  ///< a'x
  RowSense sense = RowSense::LessEqual;
  double rhs = 0.0;
  bool convex = false;
};

/// `constant + sum linear + sum quad`, minimized or maximized. A model has exactly one; the
/// default is "minimize 0" (any feasible point is optimal). Formulating acquisitions set it;
/// constraints never do.
struct Objective {
  ObjectiveSense sense = ObjectiveSense::Minimize;
  std::vector<LinearTerm> linear;
  std::vector<QuadTerm> quad;
  double constant = 0.0;
  /// The part of `constant` that only shifts the values, in objective units: an acquisition's
  /// mean of the standardized targets (LEAF-GP's and BARK's papers solve the standardized
  /// model, which has no such term). When finite, relative gaps are measured against
  /// |value - offset| (see `SolveOptions`); NaN, the default, declares no offset. It changes
  /// no objective value: `constant` already contains it.
  double offset = std::numeric_limits<double>::quiet_NaN();
};

/// Binary indicators of the values of one integer-valued variable: `binaries[k]` is 1 exactly
/// when `x[var] == values[k]`. The block that declares them has added the rows that make it so
/// (`sum binaries = 1` and `x[var] = sum values[k] * binaries[k]`); later blocks that need the
/// same indicators (one-hot inputs, no-good cuts) reuse them instead of adding their own.
struct ValueIndicators {
  int var = -1;
  std::vector<double> values;  ///< distinct, in any order
  std::vector<int> binaries;   ///< one binary variable per value
};

/// Activities and violations of a model at a point, as `Model::evaluate` computes them.
/// Violations are absolute (in the rows' units) and 0 when satisfied.
struct ARBO_SDK_API ModelEvaluation {
  double objective = 0.0;                  ///< objective value, constant included
  std::vector<double> linear_activity;     ///< a'x per linear row
  std::vector<double> quadratic_activity;  ///< q(x) per quadratic row
  double max_bound_violation = 0.0;        ///< worst violation of a variable bound
  double max_integrality_violation = 0.0;  ///< worst distance of an integer var to an integer
  double max_row_violation = 0.0;          ///< worst violation of any row
  /// Largest of the three violations.
  double max_violation() const;
};

/// The model: variables, linear rows, quadratic rows and one objective. Indices returned by
/// the add_* functions are stable (0, 1, 2, ... in order of addition; nothing is ever
/// removed). Every add_* call validates what it adds, so a model is always well formed;
/// whether it is feasible or bounded is for the solver to find. Each add_* is amortized O(1)
/// plus the number of its terms.
class ARBO_SDK_API Model {
 public:
  /// Adds a variable and returns its index. Binary bounds are clipped to [0, 1].
  /// @throws InvalidArgument if lower > upper, a bound is NaN, or a binary's bounds exclude
  ///         both 0 and 1.
  int add_variable(std::string name, VarType type, double lower, double upper);
  /// Adds a linear row and returns its index among the linear rows.
  /// @throws InvalidArgument on a term naming an unknown variable, a non-finite coefficient
  ///         or a NaN right-hand side.
  int add_linear_row(LinearRow row);
  /// Adds a quadratic row and returns its index among the quadratic rows.
  /// @throws InvalidArgument like `add_linear_row`, and for `convex = true` on a row whose
  ///         sense is not `<=`.
  int add_quadratic_row(QuadraticRow row);
  /// Replaces the objective.
  /// @throws InvalidArgument on a term naming an unknown variable or a non-finite coefficient,
  /// or an infinite offset.
  void set_objective(Objective objective);

  /// Number of variables, which is the length `evaluate` and `SolveResult::x` use.
  std::size_t num_variables() const noexcept { return vars_.size(); }
  const std::vector<Variable>& variables() const noexcept { return vars_; }
  /// Mutable access to variable `i`, for tightening a bound after the fact (the caller keeps
  /// lower <= upper; nothing re-checks it). @throws std::out_of_range for a bad index.
  Variable& variable(int i) { return vars_.at(static_cast<std::size_t>(i)); }
  const std::vector<LinearRow>& linear_rows() const noexcept { return linear_; }
  const std::vector<QuadraticRow>& quadratic_rows() const noexcept { return quadratic_; }
  const Objective& objective() const noexcept { return objective_; }
  /// Index of the variable called `name`, if any. O(n).
  std::optional<int> find_variable(std::string_view name) const;
  /// True when the model has no quadratic rows or quadratic objective terms.
  bool is_linear() const noexcept;
  /// True when some variable is Integer or Binary.
  bool has_integers() const noexcept;

  /// Declares value indicators of `indicators.var` (see `ValueIndicators`); a second declaration
  /// for the same variable replaces the first. Declaring adds no row.
  /// @throws InvalidArgument when a variable is unknown, `binaries` is not a Binary variable
  ///         each, or `values` and `binaries` differ in length.
  void declare_value_indicators(ValueIndicators indicators);
  /// The indicators declared for variable `var`, or nullptr. O(number of declarations).
  const ValueIndicators* value_indicators(int var) const noexcept;

  /// Evaluates objective, row activities and violations at `x` (length num_variables()).
  /// O(nonzeros). @throws InvalidArgument on a wrong length.
  ModelEvaluation evaluate(const std::vector<double>& x) const;

 private:
  void check_terms(const std::vector<LinearTerm>& terms, const std::string& where) const;
  void check_terms(const std::vector<QuadTerm>& terms, const std::string& where) const;

  std::vector<Variable> vars_;
  std::vector<LinearRow> linear_;
  std::vector<QuadraticRow> quadratic_;
  Objective objective_;
  std::vector<ValueIndicators> indicators_;
};

/// Variables of a model that stand for the encoded point x: `x_vars[i]` is the model variable
/// of coordinate i (integer-typed for discrete coordinates, bounds of the space).
struct PointVariables {
  std::vector<int> x_vars;
};

/// Adds one model variable per coordinate of `space` (continuous for Real, integer for Integer
/// and Categorical, binary for Binary; bounds = the encoded bounds) and returns them.
/// Log-scaled coordinates are continuous in ln units.
ARBO_SDK_API PointVariables add_point_variables(Model& model, const Space& space);

/// A start for `SolveOptions::starts`: the encoded point `x` on `point.x_vars`, NaN on every
/// other variable of `model` (left to the solver).
/// @throws InvalidArgument when `x` has not one coordinate per point variable. O(variables).
ARBO_SDK_API std::vector<double> point_start(const Model& model, const PointVariables& point,
                                             const Eigen::VectorXd& x);

/// Outcome of solving a model.
enum class SolveStatus {
  Optimal,       ///< x is optimal within the gaps of `SolveOptions`
  LimitReached,  ///< a time or node limit (or cancellation) stopped it; x may be empty
  Infeasible,    ///< proven: no point satisfies the rows and bounds
  Unbounded,     ///< the objective improves without limit
  Error,         ///< the solver failed; `message` says why
};
/// "optimal", "limit reached", "infeasible", "unbounded", "error" (static storage).
ARBO_SDK_API const char* to_string(SolveStatus status) noexcept;

/// Limits and tolerances for a model solve. A solver stops a branch when the bound is within
/// max(absolute_gap, relative_gap * base(incumbent)) of the incumbent (objective units). The
/// magnitude `base(v)` is |v - o| when the objective declares an offset o
/// (`Objective::offset`, a shift such as an acquisition's -mean(y)): the gap a solver of the
/// model without the shift measures, as the papers' Gurobi did. Otherwise it is
/// min(|v|, |v - c|), c the objective's constant term, so that no constant loosens the
/// tolerance, whether it only shifts the values or is part of the function (a squared
/// distance's x0^2, cancelled by its other terms near the optimum).
struct SolveOptions {
  double absolute_gap = 1e-4;  ///< >= 0, objective units
  double relative_gap = 1e-4;  ///< >= 0, fraction of base(incumbent) (above)
  /// Largest violation of a bound, row or integrality a solution may have, in the rows' units.
  double feasibility_tolerance = 1e-6;
  double time_limit_seconds = kInfinity;  ///< wall clock; the solver returns its best point
  std::int64_t node_limit = -1;           ///< branch-and-bound nodes; -1: none
  /// Starting points ("MIP starts"), each with one entry per model variable; NaN leaves a
  /// variable to the solver. A solver may take them as its first incumbents (`glpk_bnb`
  /// completes each one by a short search with its given variables fixed, at most a tenth of
  /// the time limit in all). They change how fast a solve goes, never what it certifies; a
  /// start that violates a bound or row is skipped. Typical use: feasible observations, so
  /// that a model whose feasible set is hard to find (nonconvex known constraints) has an
  /// incumbent from the first node.
  /// @throws InvalidArgument (from the solver) when a start has the wrong number of entries.
  std::vector<std::vector<double>> starts;
};

/// Result of a model solve, with its optimality certificate: `objective` and `best_bound`
/// bracket the optimum (for a maximization, best_bound >= optimum >= objective), and
/// `gap = |objective - best_bound| / max(base(objective), 1e-10)`, base as in `SolveOptions`
/// (glpk_bnb's definition).
struct SolveResult {
  SolveStatus status = SolveStatus::Error;
  /// Best point found, one value per model variable (read the encoded point from
  /// `PointVariables::x_vars`); empty when none was found, whatever the status.
  std::vector<double> x;
  double objective = kInfinity;    ///< objective at x, in the model's sense
  double best_bound = -kInfinity;  ///< proven bound on the optimum, in the model's sense
  double gap = kInfinity;          ///< relative gap between objective and bound; inf without x
  std::int64_t nodes = 0;          ///< branch-and-bound nodes processed
  std::int64_t lp_iterations = 0;  ///< simplex iterations over all LPs
  double seconds = 0.0;            ///< wall-clock time of the solve
  std::string message;             ///< one line for logs: status and what limited the solve
};

/// Anything that solves a `Model`: the pipeline's model solver, reached through
/// `Context::model_solver()`. Implemented by inner solvers that are model-based
/// (`inner_solver/glpk_bnb`); the kernel recognizes them by this base class. Implementations
/// must be callable from the kernel's main thread, by any component, between and during the
/// component's own calls (tree_gp projects a leaf's centre while decoding a solution).
class ARBO_SDK_API ModelSolver {
 public:
  virtual ~ModelSolver();
  /// Solves `model` within `options`. Never throws for infeasible or unbounded models (see
  /// `status`); throws `InvalidArgument` for a model it cannot take (a row declared convex
  /// that is not, a nonconvex product of an unbounded variable, a start of the wrong length).
  /// Time: exponential in the worst case; `options` bound it.
  virtual SolveResult solve(const Model& model, const SolveOptions& options) = 0;
};

}  // namespace arbo::sdk
