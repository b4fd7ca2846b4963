// SPDX-License-Identifier: MIT
/// @file
/// @brief Uniform sampling of a space subject to its known constraints, and the scoring of a
/// candidate pool, shared by the black-box inner solvers (inner_solver/random,
/// inner_solver/sampling, inner_solver/nelder_mead, inner_solver/candidate_pool) so that they
/// draw, check, project, fill and score candidate pools the same way.
///
/// Random streams: every draw takes `space.size()` values of
/// `std::uniform_real_distribution<double>(0, 1)` from `Context::rng()`, coordinate 0 first,
/// and maps them with `Space::from_unit` (then `sdk::balance_from_unit` on the coordinates of
/// balance equalities, which uses the same values). Nothing else consumes the generator (the
/// projection does not), so a study's proposals depend only on the seed and the order of the calls.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Core>

#include <arbo/sdk/acquisition.hpp>
#include <arbo/sdk/balance.hpp>
#include <arbo/sdk/context.hpp>
#include <arbo/sdk/exclusion.hpp>
#include <arbo/sdk/inner_solver.hpp>
#include <arbo/sdk/params.hpp>
#include <arbo/sdk/projection.hpp>

namespace arbo::plugins {

/// Draws uniform points of `request.space`, measures them against `request.constraints`,
/// projects them onto those constraints with the context's model solver when asked, and fills
/// a reusable candidate pool. Holds the context and the buffers only: the parameters (pool
/// size, draw budget, projections) are arguments, so one sampler serves calls with any
/// settings. After the first call of a given size, no call allocates per point.
///
/// Not thread-safe (it uses `Context::rng()`, which belongs to the calling thread).
class FeasibleSampler {
 public:
  /// A projection is accepted when every constraint's violation is at most this: the model
  /// solver is only feasible up to its own tolerance, and the kernel accepts a proposal on the
  /// same terms (study.cpp rejects known violations above 1e-6).
  static constexpr double kProjectionTolerance = 1e-6;
  /// `Context::cancelled()` is polled before every this-many-th draw (not before the first):
  /// often enough to stop within milliseconds, rarely enough to cost nothing next to a
  /// constraint check.
  static constexpr std::int64_t kPollEvery = 256;

  /// How `fill_pool` treats draws that violate a constraint.
  enum class Mode {
    /// Keep feasible draws only, at most `max_tries` draws; top the pool up with projections
    /// when fewer than `samples` are feasible.
    Reject,
    /// Keep every draw (exactly `samples` draws unless cancelled; `max_tries` is unused) with
    /// its violation; add projections as extra rows only when no draw is feasible.
    Penalty,
  };

  /// What one `fill_pool` did.
  struct FillCounts {
    std::int64_t tries = 0;      ///< uniform draws made (projections not included)
    std::int64_t projected = 0;  ///< accepted projections added to the pool
    Eigen::Index feasible = 0;   ///< feasible uniform draws in the pool (projections excluded)
  };

  /// What one `first_feasible` did.
  struct FirstFeasible {
    bool found = false;      ///< point() holds a point satisfying the known constraints
    bool projected = false;  ///< ... obtained by projection (after `tries` failed draws)
    std::int64_t tries = 0;  ///< uniform draws made (projections not included)
  };

  /// @param ctx  must outlive the sampler (the owning component's context).
  /// @param projection_seconds  time limit of each projection's model solve (seconds, > 0).
  explicit FeasibleSampler(sdk::Context& ctx,
                           double projection_seconds = sdk::kDefaultProjectionSeconds);

  /// The `projection_time_limit` parameter of the inner solvers that project (one text for
  /// all of them); its value goes to the constructor's `projection_seconds`.
  static sdk::ParamSpec projection_time_limit_param();
  /// The `projections` parameter of the samplers that top a pool up with projections
  /// (inner_solver/random, sampling, nelder_mead, mixed_alternating): default 20; its value
  /// goes to `fill_pool` and `first_feasible`.
  static sdk::ParamSpec projections_param();
  /// The `max_tries` parameter of the same solvers, with their default `value`.
  static sdk::ParamSpec max_tries_param(std::int64_t value);

  /// Total violation of `x`: the sum of the constraints' positive parts; +infinity as soon as
  /// one is NaN (a NaN must never pass a `<= 0` test). 0 exactly when `x` is feasible.
  /// O(number of constraints) `Constraint::violation` calls.
  static double violation(const std::vector<const sdk::Constraint*>& constraints,
                          const Eigen::VectorXd& x);

  /// One uniform draw into `point()`; returns its total violation (see `violation`).
  /// Evaluates every constraint. O(d + constraints).
  double draw(const sdk::SolveRequest& request);

  /// Reads what every draw of one request depends on: the exclusion of evaluated points
  /// (`SolveRequest::exclude_evaluated`, exclusion.hpp; when set, builds the set of evaluated
  /// points, which `draw_feasible`, `draw_projected`, `fill_pool` and `first_feasible` then
  /// reject and `excluded` reports) and the balance equalities among the known constraints
  /// (`sdk::detect_balance_pairs`; every later draw keeps them exactly, still uniform over the
  /// points that keep them: `sdk::balance_from_unit`). `fill_pool` and `first_feasible` call it
  /// themselves; a solver that only draws calls it once per `maximize`.
  /// Complexity: O((n + failed + pending) d) plus one formulation per constraint.
  void prepare(const sdk::SolveRequest& request);
  /// The balance structure the last `prepare` found (empty before the first).
  const sdk::BalanceStructure& balance() const { return balance_; }
  /// True when `x` is an evaluated point the current request excludes (see
  /// `prepare`). O(d) expected.
  bool excluded(const Eigen::VectorXd& x) const { return excluding_ && evaluated_.contains(x); }

  /// One uniform draw into `point()`; true when it satisfies every constraint (and is not
  /// excluded). Same random stream and answer as `draw() <= 0`, but stops at the first violated
  /// constraint.
  bool draw_feasible(const sdk::SolveRequest& request);

  /// One uniform draw into `point()`, projected onto the constraints with
  /// `sdk::project_onto_constraints` through `ctx.model_solver()`; true when the projection
  /// succeeded and every constraint's violation is <= kProjectionTolerance.
  /// Returns false *without drawing* when there is no model solver or no constraint, so the
  /// random stream is then untouched. Precondition for a useful answer:
  /// `sdk::can_formulate(request.constraints)`. Cost: one model solve.
  bool draw_projected(const sdk::SolveRequest& request);

  /// The last point drawn (encoded, `space.size()` long). Overwritten by every draw.
  const Eigen::VectorXd& point() const { return x_; }

  /// Refills `pool()` (one candidate per row) and `pool_violation()` (0 for feasible rows and
  /// accepted projections) according to `mode`; see `Mode`. Projections (up to `projections`
  /// attempts, each a `draw_projected`) are tried only when `projections > 0`, a model solver
  /// exists and every constraint can formulate itself. Cancellation (`Context::cancelled()`)
  /// ends the uniform draws early. The pool may come back shorter than `samples`, even empty.
  /// Excluded draws (`prepare`) are dropped in both modes; a Penalty pool that
  /// excludes points is bounded by `max_tries` draws as well.
  /// Preconditions: samples >= 1. Complexity: at most `max_tries` draws (Penalty: `samples`)
  /// plus `projections` model solves; the pool is allocated once per call (trimmed if
  /// short), never per point.
  FillCounts fill_pool(const sdk::SolveRequest& request, Eigen::Index samples,
                       std::int64_t max_tries, std::int64_t projections, Mode mode);

  /// Candidates of the last `fill_pool`, one per row.
  const Eigen::MatrixXd& pool() const { return pool_; }
  /// Total violation of each row of `pool()`.
  const Eigen::VectorXd& pool_violation() const { return pool_violation_; }

  /// Model-free search: uniform draws until one is feasible (at most `max_tries`, polling
  /// cancellation), then up to `projections` projected draws if every constraint can formulate
  /// itself. On success the point is `point()`. Complexity: at most `max_tries` draws plus
  /// `projections` model solves; no allocation.
  FirstFeasible first_feasible(const sdk::SolveRequest& request, std::int64_t max_tries,
                               std::int64_t projections);

  /// `first_feasible` as a model-free answer: found with `x = point()` and `value = 0`, or not
  /// found. Notes: "first feasible point after N draws"; `projected_note` when a projection is
  /// returned (a fmt format string, `{}` = the failed draws, may be absent); "no point satisfies
  /// the known constraints in N uniform draws" when nothing is found. Same cost as
  /// `first_feasible` plus one copy of the point.
  sdk::Proposal propose_first_feasible(const sdk::SolveRequest& request, std::int64_t max_tries,
                                       std::int64_t projections, std::string_view projected_note);

 private:
  // The uniform draw itself: the one place the random stream is consumed.
  void draw_uniform(const sdk::Space& space);
  // True when projections may be attempted at all (checked once per loop, not per attempt).
  bool can_project(const sdk::SolveRequest& request, std::int64_t projections);

  sdk::Context& ctx_;
  sdk::SolveOptions projection_options_;
  // Reused between calls so that the sampling loops never allocate.
  Eigen::VectorXd u_, x_;
  Eigen::MatrixXd pool_;
  Eigen::VectorXd pool_violation_;
  sdk::EvaluatedPoints evaluated_;
  bool excluding_ = false;
  sdk::BalanceStructure balance_;
};

/// The note of a call that found no candidate satisfying the known constraints: "no point
/// satisfies the known constraints in N uniform draws" (N = `tries`).
std::string no_feasible_point_note(std::int64_t tries);

/// Scores `candidates` (one per row; at least one row) with one `acquisition.values` call into
/// `values` and proposes the row with the largest value: the first of equal values, and never a
/// NaN value. The proposal is found, with `x` the row, `value` its value and `note` as given;
/// when every value is NaN (the acquisition broke its finiteness contract) the first row is
/// proposed, since any feasible point will do, with the note "acquisition returned NaN at every
/// candidate; proposing the first one". O(rows) after the acquisition call; allocates only the
/// proposal's point (and `values` when its size changes).
sdk::Proposal propose_best(const sdk::Acquisition& acquisition, const Eigen::MatrixXd& candidates,
                           Eigen::VectorXd& values, std::string note);

}  // namespace arbo::plugins
