// SPDX-License-Identifier: MIT
/// @file
/// @brief The proposer: the next point of a study, from the initial design or the model
/// pipeline (fit, bind, solve), with a fallback when the solver finds no feasible point
/// (engine-internal).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "arbo/kernel/pipeline.hpp"
#include "arbo/sdk/dataset.hpp"
#include "arbo/sdk/exclusion.hpp"
#include "arbo/sdk/inner_solver.hpp"
#include "arbo/sdk/model.hpp"
#include "engine/augmentation.hpp"
#include "engine/components.hpp"
#include "engine/dataset_buffer.hpp"

namespace spdlog {
class logger;
}

namespace arbo::kernel {

/// Where a proposed point came from.
enum class Origin {
  Design,    ///< the initial design (a design point, or the inner solver completing a short
             ///< design without a model)
  Model,     ///< the inner solver on the model pipeline (or on a model-free one)
  Fallback,  ///< a random point satisfying the known constraints, because the inner solver
             ///< found none although an observation satisfies them
};
const char* to_string(Origin origin) noexcept;

/// The model solver's certificate of a model-based proposal (`sdk::SolveResult`'s numbers).
struct SolveCertificate {
  sdk::SolveStatus status = sdk::SolveStatus::Error;
  std::int64_t nodes = 0;
  std::int64_t lp_iterations = 0;
  double gap = 0.0;  ///< infinite when no bound was proven
  double objective = 0.0;
  double best_bound = 0.0;
  double solver_seconds = 0.0;
};

/// Statistics of a model-based proposal, stored with the observation and shown by `arbo
/// export`.
struct ProposalStats {
  double fit_seconds = 0.0;    ///< fitting the surrogates and binding the acquisition
  double solve_seconds = 0.0;  ///< the inner solver's maximize
  std::optional<SolveCertificate> certificate;
  std::optional<sdk::Proposal::ModelSize> model_size;
  std::string fallback;  ///< why the point is a fallback (empty when it is not)

  /// The stored JSON object: fit_seconds, solve_seconds, and when present status, nodes,
  /// lp_iterations, gap (null when infinite), objective, best_bound, solver_seconds, fallback,
  /// variables, binaries, integers, linear_rows, quadratic_rows.
  std::string to_json() const;
};

/// One proposal.
struct ProposedPoint {
  Eigen::VectorXd x;  ///< snapped, satisfies the known constraints (up to kKnownTolerance)
                      ///< unless [proposal] known_penalty makes them a penalty
  Origin origin = Origin::Design;
  /// The stage the proposal belongs to (Design or Model): the stored origin and proposed_by.
  /// It differs from `origin` only for a fallback, stored as the stage it stood in for.
  Origin stage = Origin::Design;
  std::optional<ProposalStats> stats;  ///< model-based proposals only
  double plugin_seconds = 0.0;         ///< spent in fit, bind and maximize
  /// After a fit: the state of each surrogate with `sdk::SavesState`, by metric (0 the
  /// objective, 1 + k constraint k), to be stored with the proposal.
  std::map<int, std::string> surrogate_states;
  /// The point repeats a pending one and no other could be drawn (`Proposer::propose`).
  bool repeats_pending = false;
};

class Proposer {
 public:
  /// All references must outlive the proposer; `data` is the study's dataset, read at each
  /// proposal (brought up to date only when a plugin may read it).
  Proposer(const Pipeline& pipeline, Components& components, KnowledgeAugmentation& augmentation,
           DatasetBuffer& data, spdlog::logger& logger);

  /// The point of proposal number `k` (0-based). Every component is reseeded from (seed, k),
  /// so the same study state gives the same point.
  /// @throws PluginError (a component threw, or the solver returned a bad point, naming the
  ///         component), InfeasibleError (no point satisfying the known constraints),
  ///         ExhaustedError ([proposal] exclude_evaluated, and every point satisfying them has
  ///         been evaluated).
  ///
  /// With points pending (`Dataset::X_pending` of the study's dataset, set by the study while
  /// several evaluations run), the surrogates are fitted to the data plus the pending points
  /// with the lie of `[proposal] pending`, and the proposal never repeats a pending point:
  /// one that does is replaced by the first of a few uniform draws (seeded by k) that
  /// satisfies the known constraints and is neither pending nor, with exclude_evaluated,
  /// evaluated. `repeats_pending` is set when no such draw exists (the study then waits for
  /// an evaluation to finish and proposes again).
  ProposedPoint propose(std::int64_t k);

  /// Hands each surrogate with `sdk::SavesState` its stored state (by metric, as
  /// `ProposedPoint::surrogate_states`), before the first fit of a resumed study. A state
  /// for a metric whose surrogate cannot take one (the plugin changed) is skipped with a
  /// warning: the study goes on, but its next proposals may differ from an uninterrupted
  /// run's. @throws PluginError naming the surrogate when it refuses its state.
  void restore_states(const std::map<int, std::string>& states);

  /// True when a row of `rows` is the point `x` (every coordinate within 1e-9 in the encoded
  /// space). O(rows x dimension).
  static bool contains_point(const Eigen::MatrixXd& rows, const Eigen::VectorXd& x);

 private:
  ProposedPoint propose_any(std::int64_t k);
  const sdk::Dataset& with_lies(const sdk::Dataset& data);
  const std::vector<Eigen::VectorXd>& initial_design();
  void top_up_design_by_projection();
  double fit_and_bind(std::uint64_t uk);
  std::map<int, std::string> save_states() const;
  std::size_t feasible_observations(const sdk::Dataset& data) const;
  bool fallback_point(const sdk::Dataset& data, std::uint64_t uk,
                      const sdk::EvaluatedPoints* evaluated, Eigen::VectorXd& x) const;
  std::optional<Eigen::VectorXd> unevaluated_point(const sdk::EvaluatedPoints& evaluated,
                                                   std::uint64_t uk, bool* enumerated) const;
  void represent(Eigen::VectorXd& x, bool penalized, const sdk::EvaluatedPoints* evaluated) const;
  void snap_returned_point(const std::string& component, const char* method,
                           Eigen::VectorXd& x) const;
  std::optional<std::string> blame(const std::exception* e, std::string_view what) const;
  void warn_if_constant(const std::string& solver_id) const;

  const Pipeline& pipeline_;
  Components& c_;
  KnowledgeAugmentation& augmentation_;
  DatasetBuffer& data_;
  spdlog::logger& logger_;
  // The inner solver reads no data without a model (sdk::IgnoresDataWithoutModel).
  bool solver_ignores_data_ = false;
  std::vector<Eigen::VectorXd> design_;
  bool design_ready_ = false;
  sdk::Dataset lied_;  // the data plus the pending points with their lies (fit_and_bind)
};

}  // namespace arbo::kernel
