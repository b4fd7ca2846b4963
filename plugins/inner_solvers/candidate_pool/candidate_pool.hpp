// SPDX-License-Identifier: MIT
/// @file
/// @brief inner_solver/candidate_pool: score a pool of proposed candidates, keep the best.
#pragma once

#include <arbo/sdk/capabilities/inner_solver.hpp>
#include <arbo/sdk/inner_solver.hpp>

#include "feasible_sampler.hpp"

namespace arbo::plugins {

/// TPE's inner loop, generic: asks an acquisition that implements `ProposesCandidates` for
/// `draws * (1 + m)` candidates (m black-box constraints: c-TPE's 24 draws from each metric's
/// l(x), pooled), or draws that many uniform points otherwise; drops candidates violating the
/// known constraints; and returns the argmax of the acquisition. Without an acquisition it
/// returns the first uniform point satisfying the known constraints (random search).
class CandidatePool final : public sdk::InnerSolver,
                            public sdk::IgnoresDataWithoutModel,
                            public sdk::ExcludesEvaluated {
 public:
  explicit CandidatePool(const sdk::CreateArgs& args);
  static const sdk::ParamSpecList& params();

  sdk::Proposal maximize(const sdk::SolveRequest& request) override;

 private:
  sdk::Context& ctx_;
  std::int64_t draws_;
  std::int64_t rounds_;
  std::int64_t max_tries_;
  // Uniform points satisfying the known constraints (model-free calls and the fallback).
  FeasibleSampler sampler_;
  Eigen::MatrixXd proposed_, pool_;
  Eigen::Index filled_ = 0;
  Eigen::VectorXd x_, values_;
};

}  // namespace arbo::plugins
