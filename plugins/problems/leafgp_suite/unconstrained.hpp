// SPDX-License-Identifier: MIT
/// @file
/// @brief The unconstrained 10-D benchmarks of the LEAF-GP paper (Table 1): Rastrigin,
/// Schwefel and Styblinski-Tang, with the reference code's formulas and the paper's domains.
#pragma once

#include "suite_common.hpp"

namespace arbo::plugins::leafgp {

/// Rastrigin on [-4, 5]^10: f = 10 d + sum_i (x_i^2 - 10 cos(2 pi x_i)); f* = 0 at x = 0.
/// The asymmetric domain is the paper's (a centred domain would put the optimum at the
/// midpoint that tree models propose for unsplit features).
class Rastrigin10 final : public BenchmarkProblem {
 public:
  explicit Rastrigin10(const sdk::CreateArgs& args);
  sdk::ProblemInfo info() const override;
  void evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) override;
};

/// Schwefel on [-500, 500]^10: f = 418.9829 d - sum_i x_i sin(sqrt|x_i|). With the rounded
/// constant 418.9829 the minimum is 1.2728e-4 (not 0) at x_i = 420.968746.
class Schwefel10 final : public BenchmarkProblem {
 public:
  explicit Schwefel10(const sdk::CreateArgs& args);
  sdk::ProblemInfo info() const override;
  void evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) override;
};

/// Styblinski-Tang on [-5, 5]^10: f = (1/2) sum_i (x_i^4 - 16 x_i^2 + 5 x_i);
/// f* = -391.6616570377142 at x_i = -2.903534027771177.
class StyblinskiTang10 final : public BenchmarkProblem {
 public:
  explicit StyblinskiTang10(const sdk::CreateArgs& args);
  sdk::ProblemInfo info() const override;
  void evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) override;
};

}  // namespace arbo::plugins::leafgp
