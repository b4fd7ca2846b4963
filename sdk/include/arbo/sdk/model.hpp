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

inline constexpr double kInfinity = std::numeric_limits<double>::infinity();

enum class VarType { Continuous, Integer, Binary };
enum class RowSense { LessEqual, GreaterEqual, Equal };
enum class ObjectiveSense { Minimize, Maximize };

/// "<=", ">=", "=".
ARBO_SDK_API const char* to_string(RowSense sense) noexcept;

struct Variable {
  std::string name;
  VarType type = VarType::Continuous;
  double lower = 0.0;  ///< may be -kInfinity
  double upper = kInfinity;
};

struct LinearTerm {
  int var = -1;
  double coef = 0.0;
};

/// coef * x[var1] * x[var2]; var1 == var2 is a square.
struct QuadTerm {
  int var1 = -1;
  int var2 = -1;
  double coef = 0.0;
};

struct LinearRow {
  std::string name;
  std::vector<LinearTerm> terms;
  RowSense sense = RowSense::LessEqual;
  double rhs = 0.0;
};

/// `sum quad + sum linear (sense) rhs`. `convex = true` declares that the row, written as
/// `q(x) <= rhs`, has a positive semidefinite Hessian; solvers check it and refuse it otherwise.
struct QuadraticRow {
  std::string name;
  std::vector<QuadTerm> quad;
  std::vector<LinearTerm> linear;
  RowSense sense = RowSense::LessEqual;
  double rhs = 0.0;
  bool convex = false;
};

struct Objective {
  ObjectiveSense sense = ObjectiveSense::Minimize;
  std::vector<LinearTerm> linear;
  std::vector<QuadTerm> quad;
  double constant = 0.0;
};

/// Activities and violations of a model at a point.
struct ARBO_SDK_API ModelEvaluation {
  double objective = 0.0;
  std::vector<double> linear_activity;     ///< a'x per linear row
  std::vector<double> quadratic_activity;  ///< q(x) per quadratic row
  double max_bound_violation = 0.0;        ///< worst violation of a variable bound
  double max_integrality_violation = 0.0;  ///< worst distance of an integer var to an integer
  double max_row_violation = 0.0;          ///< worst violation of any row
  /// Largest of the three violations.
  double max_violation() const;
};

/// The model. Indices returned by the add_* functions are stable.
class ARBO_SDK_API Model {
 public:
  /// Adds a variable and returns its index. Binary bounds are forced to [0, 1].
  /// @throws InvalidArgument if lower > upper or a bound is NaN.
  int add_variable(std::string name, VarType type, double lower, double upper);
  /// @throws InvalidArgument on a term naming an unknown variable or a non-finite coefficient.
  int add_linear_row(LinearRow row);
  int add_quadratic_row(QuadraticRow row);
  void set_objective(Objective objective);

  std::size_t num_variables() const noexcept { return vars_.size(); }
  const std::vector<Variable>& variables() const noexcept { return vars_; }
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
enum class SolveStatus { Optimal, LimitReached, Infeasible, Unbounded, Error };
ARBO_SDK_API const char* to_string(SolveStatus status) noexcept;

/// Limits and tolerances for a model solve.
struct SolveOptions {
  double absolute_gap = 1e-4;
  double relative_gap = 1e-4;
  double feasibility_tolerance = 1e-6;
  double time_limit_seconds = kInfinity;
  std::int64_t node_limit = -1;  ///< -1: none
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

/// Result of a model solve, with its optimality certificate.
struct SolveResult {
  SolveStatus status = SolveStatus::Error;
  std::vector<double> x;           ///< best point found (empty if none)
  double objective = kInfinity;    ///< objective at x, in the model's sense
  double best_bound = -kInfinity;  ///< proven bound on the optimum, in the model's sense
  double gap = kInfinity;          ///< relative gap between objective and bound
  std::int64_t nodes = 0;
  std::int64_t lp_iterations = 0;
  double seconds = 0.0;
  std::string message;
};

/// Anything that solves a `Model`: the pipeline's model solver, reached through
/// `Context::model_solver()`. Implementations must be callable from the kernel's main thread.
class ARBO_SDK_API ModelSolver {
 public:
  virtual ~ModelSolver();
  /// Solves `model`. Never throws for infeasible or unbounded models (see `status`); throws
  /// `InvalidArgument` for a malformed model (for example a row declared convex that is not).
  virtual SolveResult solve(const Model& model, const SolveOptions& options) = 0;
};

}  // namespace arbo::sdk
