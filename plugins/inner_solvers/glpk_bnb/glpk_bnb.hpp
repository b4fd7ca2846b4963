// SPDX-License-Identifier: MIT
/// @file
/// @brief inner_solver/glpk_bnb: proven global maximization of formulated acquisitions, and the
/// pipeline's model solver.
#pragma once

#include <cstdint>
#include <string>

#include <arbo/sdk/capabilities/inner_solver.hpp>
#include <arbo/sdk/inner_solver.hpp>
#include <arbo/sdk/model.hpp>

#include "bnb.hpp"

namespace arbo::plugins {

/// Model-based inner solver. `maximize` builds one MIQCP from the acquisition's and the known
/// constraints' formulations (capabilities `FormulatesAcquisition`, `FormulatesConstraint`)
/// and solves it with the GLPK branch-and-bound; `solve` is the same solver for any model, which
/// makes the component the pipeline's `ModelSolver`.
class GlpkBnb final : public sdk::InnerSolver,
                      public sdk::ModelSolver,
                      public sdk::ExcludesEvaluated {
 public:
  explicit GlpkBnb(const sdk::CreateArgs& args);
  static const sdk::ParamSpecList& params();

  sdk::Proposal maximize(const sdk::SolveRequest& request) override;
  /// Solves with `options` as given (the component's parameters apply to `maximize`); the time
  /// limit is capped by `Context::seconds_left()`. A GLPK failure is returned as status Error
  /// with GLPK's message.
  sdk::SolveResult solve(const sdk::Model& model, const sdk::SolveOptions& options) override;

  /// The options built from the component's parameters.
  const sdk::SolveOptions& default_options() const noexcept { return options_; }

 private:
  void dump(const sdk::Model& model);

  sdk::Context& ctx_;
  sdk::SolveOptions options_;
  std::string dump_model_;
  std::int64_t dumped_ = 0;
  std::int64_t no_incumbent_retries_ = 3;
  std::int64_t start_search_ = 5000;
  glpk::BnbConfig config_;
};

}  // namespace arbo::plugins
