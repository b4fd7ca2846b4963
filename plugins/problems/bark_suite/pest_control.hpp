// SPDX-License-Identifier: MIT
/// @file
/// @brief problem/pest_control: the 25-stage pest-control simulator of the BARK paper
/// (Table 6; MCBO / COMBO), 25 categoricals with 5 choices.
#pragma once

#include <cstdint>

#include "benchmark_problem.hpp"

namespace arbo::plugins {

/// Stage s applies h_s in {none, p1, p2, p3, p4}. 100 simulations; initial pest fraction
/// ~ Beta(1, 30); a stage without pesticide spreads: cur <- r (1 - cur) + cur, r ~ Beta(1, 17/3);
/// pesticide c: cur <- (1 - r) cur, r ~ Beta(1, beta_c), then beta_c += tol_c / 25, and the
/// stage costs price_c (1 - disc_c count(h = c) / 25). beta = {2, 3, 3, 5}/7,
/// tol = {1, 2.5, 2, 0.5}/7, price = {1, .8, .7, .5}, disc = {.2, .3, .3, 0}.
/// f = sum of prices + sum over stages of the fraction of simulations with cur > 0.1 (counted
/// before the stage's update, as the reference code does). Minimized.
///
/// The simulator is stochastic. With `stochastic = false` (the default) every evaluation
/// replays the same random numbers (from `seed`), so f is a deterministic function (common
/// random numbers); with `stochastic = true` each evaluation draws its stream's seed from the
/// kernel's `Context::rng()`. Random numbers, per evaluation: 100 uniforms for the initial
/// fractions, then per stage 100 uniforms for the spread and 100 for the pesticide (drawn
/// whether or not a pesticide is applied, so the streams of two schedules stay aligned), all
/// turned into Beta(1, b) draws by inversion, 1 - (1 - u)^(1/b).
class PestControl final : public problems_common::BenchmarkProblem {
 public:
  explicit PestControl(const sdk::CreateArgs& args);
  static const sdk::ParamSpecList& params();

  sdk::ProblemInfo info() const override;
  void evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) override;

 private:
  sdk::Context& context_;
  std::uint64_t seed_;
  bool stochastic_;
};

}  // namespace arbo::plugins
