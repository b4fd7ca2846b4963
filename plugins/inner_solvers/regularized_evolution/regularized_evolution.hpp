// SPDX-License-Identifier: MIT
/// @file
/// @brief inner_solver/regularized_evolution: the evolutionary baselines of Papalexopoulos et
/// al. (2022), App. C.2-C.7. With an acquisition it is the inner loop of NN+RegEvo / NN+ConEvo
/// (batched evolution on a(x), the best unevaluated candidate proposed); without one it is the
/// outer loop of RegEvo / ConEvo (one child of the observed population per proposal).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <Eigen/Core>

#include <arbo/sdk/capabilities/inner_solver.hpp>
#include <arbo/sdk/exclusion.hpp>
#include <arbo/sdk/inner_solver.hpp>

#include "evolution.hpp"
#include "feasible_sampler.hpp"

namespace arbo::plugins {

/// Black-box: only calls `Acquisition::values` (one call per batch of children). Reads the
/// observations with and without a model (the population), so it does not declare
/// `IgnoresDataWithoutModel`; never proposes an evaluated point when another acceptable one is
/// found (`ExcludesEvaluated`), and never one at all when `exclude_evaluated` is set.
class RegularizedEvolution final : public sdk::InnerSolver, public sdk::ExcludesEvaluated {
 public:
  explicit RegularizedEvolution(const sdk::CreateArgs& args);
  static const sdk::ParamSpecList& params();

  sdk::Proposal maximize(const sdk::SolveRequest& request) override;

  /// The settings of one call once the "auto" (-1) parameters are resolved for its mode.
  struct Settings {
    Eigen::Index tournament = 0;
    Eigen::Index population = 0;
    double p_c = 0.0;
    double p_m = 0.0;
    bool conevo = false;  ///< single parent, no crossover, balance pairs mutated jointly
  };

 private:
  Settings resolve(bool with_model, bool conevo) const;
  // One child of the population into child_ (snapped): tournament, then crossover and token
  // mutation (RegEvo) or the balance and token mutations of the best parent (ConEvo).
  void breed(const sdk::Space& space, const Settings& s);
  // Projects child_ onto the known constraints with the model solver; true when it then
  // satisfies them (within the kernel's tolerance).
  bool project_child(const sdk::SolveRequest& request);
  sdk::Proposal with_model(const sdk::SolveRequest& request, const Settings& s);
  sdk::Proposal model_free(const sdk::SolveRequest& request, const Settings& s);
  // Last resort: uniform feasible draws (then projections, then, on a small space, every point)
  // that are not evaluated; with `allow_evaluated`, the first feasible draw whatever it is.
  sdk::Proposal fallback(const sdk::SolveRequest& request, bool allow_evaluated,
                         const std::string& why);

  sdk::Context& ctx_;
  std::int64_t candidates_;
  std::int64_t batch_size_;
  std::int64_t tournament_;
  std::int64_t population_;
  double p_c_;
  double p_m_;
  std::string operators_;
  regevo::RealMutation real_mutation_;
  double real_step_;
  std::int64_t max_retries_;
  std::int64_t projections_;
  std::int64_t max_tries_;
  double projection_seconds_;

  // Reused between calls so that breeding and scoring never allocate per child.
  FeasibleSampler sampler_;
  regevo::TokenMutator mutator_;
  regevo::BalanceMutator balance_mutator_;
  regevo::Population population_buf_;
  sdk::EvaluatedPoints evaluated_;
  Eigen::VectorXd child_, best_x_, values_;
  Eigen::MatrixXd batch_;
  std::vector<Eigen::Index> rows_;
  std::vector<char> no_skip_;
};

}  // namespace arbo::plugins
