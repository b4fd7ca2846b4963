// SPDX-License-Identifier: MIT
/// @file
/// @brief inner_solver/mixed_alternating: BoTorch's `optimize_acqf_mixed_alternating` (the
/// BARK paper's optimizer for its GP-RBF baseline on mixed spaces) for black-box
/// acquisitions: starts chosen from scored uniform samples, then discrete neighbourhood search
/// alternated with a continuous search of the real coordinates.
#pragma once

#include <cstdint>
#include <vector>

#include <arbo/sdk/capabilities/inner_solver.hpp>
#include <arbo/sdk/inner_solver.hpp>

#include "coordinate_simplex.hpp"
#include "feasible_sampler.hpp"

namespace arbo::plugins {

/// Black-box: only calls `Acquisition::values` (the samples, each discrete neighbourhood) and
/// `Acquisition::value` (the simplex). Discrete coordinates are Binary, Categorical and Integer
/// ones with at most `max_discrete_values` values; the others (Real, larger Integer ranges,
/// relaxed and rounded) are continuous. Only points satisfying every known constraint are
/// scored in the discrete step and kept from the continuous one (rejection), so the proposal
/// satisfies them.
class MixedAlternating final : public sdk::InnerSolver,
                               public sdk::IgnoresDataWithoutModel,
                               public sdk::ExcludesEvaluated {
 public:
  explicit MixedAlternating(const sdk::CreateArgs& args);
  static const sdk::ParamSpecList& params();

  sdk::Proposal maximize(const sdk::SolveRequest& request) override;

 private:
  // One discrete coordinate: its index and its encoded values in increasing order (integers
  // and binaries move to the adjacent value, categoricals to any other).
  struct Discrete {
    Eigen::Index index = 0;
    bool ordinal = true;
    std::vector<double> values;
  };
  // Sorts the space's coordinates into `discrete_` and `continuous_` (every call: O(d)).
  void classify(const sdk::Space& space);
  // Best-improvement moves over the discrete neighbourhood of `x_` (value `value_`), at most
  // `discrete_iterations_` of them; returns the number of moves.
  std::int64_t discrete_step(const sdk::SolveRequest& request);
  // One simplex run over the continuous coordinates active at `x_`; true when it improved.
  bool continuous_step(const sdk::SolveRequest& request);
  // Indices of `restarts_` starts drawn from the scored pool (BoTorch's initialize_q_batch).
  void choose_starts(Eigen::Index n);

  sdk::Context& ctx_;
  std::int64_t raw_samples_;
  std::int64_t restarts_;
  std::int64_t max_alternations_;
  std::int64_t discrete_iterations_;
  std::int64_t max_discrete_values_;
  double tolerance_;
  double eta_;
  std::int64_t max_tries_;
  std::int64_t projections_;
  CoordinateSimplex::Settings simplex_settings_;

  FeasibleSampler sampler_;
  CoordinateSimplex simplex_;
  std::vector<Discrete> discrete_;
  std::vector<Eigen::Index> continuous_, free_;
  // The current point of a start and its value; evaluation counters of one call.
  Eigen::VectorXd x_;
  double value_ = 0.0;
  std::int64_t evaluations_ = 0;
  // Reused between calls: pool values, chosen starts, neighbourhood rows and their values.
  Eigen::VectorXd pool_values_, weights_;
  std::vector<Eigen::Index> starts_;
  Eigen::MatrixXd neighbours_;
  Eigen::VectorXd neighbour_values_, neighbour_;
};

}  // namespace arbo::plugins
