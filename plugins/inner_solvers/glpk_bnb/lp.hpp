// SPDX-License-Identifier: MIT
/// @file
/// @brief One GLPK LP kept alive across a branch-and-bound: bounds change, rows are appended
/// (cuts) or rewritten (McCormick envelopes), and the simplex restarts from the last basis.
#pragma once

#include <cstdint>
#include <vector>

#include "glpk_session.hpp"

struct glp_prob;

namespace arbo::plugins::glpk {

/// IterationLimit: the dual simplex stopped early; from a dual feasible start (a bound change
/// of an optimal basis) the objective is then a valid lower bound on the LP's optimum.
enum class LpStatus { Optimal, Infeasible, Unbounded, TimeLimit, IterationLimit, Failed };

/// A sparse row over 0-based column indices (duplicates merged, zeros dropped by the caller).
struct SparseRow {
  std::vector<int> idx;
  std::vector<double> val;
};

/// Statuses of all rows and columns (GLPK's GLP_BS, GLP_NL, ...), for warm starts.
struct Basis {
  std::vector<signed char> rows, cols;
};
/// Basis statuses as GLPK defines them (glpk.h), so callers need not include GLPK.
inline constexpr signed char kBasic = 1;
inline constexpr signed char kAtLower = 2;
inline constexpr signed char kAtUpper = 3;

/// A minimization LP. Indices are 0-based; infinite bounds mean "none". Every method is one
/// guarded GLPK call and throws `GlpkError` if GLPK fails.
class Lp {
 public:
  explicit Lp(GlpkSession& session);
  ~Lp();
  Lp(const Lp&) = delete;
  Lp& operator=(const Lp&) = delete;

  int num_rows() const noexcept { return rows_; }
  int num_cols() const noexcept { return cols_; }

  /// Appends `n` columns with bounds [lo, up] and objective coefficients `obj`.
  void add_cols(const std::vector<double>& lo, const std::vector<double>& up,
                const std::vector<double>& obj);
  /// Appends rows lo <= a'x <= up (one side may be infinite). Returns the first new index.
  int add_rows(const std::vector<SparseRow>& rows, const std::vector<double>& lo,
               const std::vector<double>& up);
  /// Replaces the coefficients and bounds of existing rows.
  void set_rows(const std::vector<int>& which, const std::vector<SparseRow>& rows,
                const std::vector<double>& lo, const std::vector<double>& up);
  /// Reads the rows `which` (0-based) as they were given (unscaled), appending to the vectors.
  void get_rows(const std::vector<int>& which, std::vector<SparseRow>& rows,
                std::vector<double>& lo, std::vector<double>& up) const;
  /// Deletes rows (0-based indices). Rows after them shift down.
  void delete_rows(std::vector<int> which);
  /// Sets the bounds of the listed columns.
  void set_col_bounds(const std::vector<int>& which, const std::vector<double>& lo,
                      const std::vector<double>& up);
  /// Scales the problem (GLPK's automatic choice); call once after building. Rows set or
  /// appended afterwards are scaled to a largest coefficient of 1 under the column scales
  /// chosen here.
  void scale();

  /// Solves from the current basis: dual simplex (the usual case after bound changes and new
  /// rows), falling back to primal simplex and to a fresh basis when the basis is unusable.
  /// `time_limit_ms` < 0: none. Every solve stops after 10,000 + 50 x (rows + columns)
  /// simplex iterations (IterationLimit) unless `iteration_limit` > 0 stops it after that many
  /// iterations (no fallback to the primal simplex then).
  LpStatus solve(double time_limit_ms, int iteration_limit = -1);
  /// Objective value, primal values, reduced costs and basis of the last optimal solve.
  double objective() const;
  void primal(std::vector<double>& x) const;
  void reduced_costs(std::vector<double>& d) const;
  Basis basis() const;
  void set_basis(const Basis& b);
  /// Simplex iterations since construction.
  std::int64_t iterations() const noexcept { return iterations_; }

 private:
  void check_alive() const;

  GlpkSession& session_;
  glp_prob* prob_ = nullptr;
  std::uint64_t generation_ = 0;
  int rows_ = 0;
  int cols_ = 0;
  std::int64_t iterations_ = 0;
  // Column scale factors of scale(), 0-based; empty before it.
  std::vector<double> col_scale_;
  // Scratch arrays in GLPK's 1-based layout, reused between calls.
  mutable std::vector<int> ind_;
  mutable std::vector<double> val_;
};

}  // namespace arbo::plugins::glpk
