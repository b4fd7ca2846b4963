// SPDX-License-Identifier: MIT
/// @file
/// @brief The two 2-D toy problems of the c-TPE paper (Watanabe & Hutter, App. B.2): a sphere
/// with one disk constraint, on [-5, 5]^2.
#pragma once

#include "suite_common.hpp"

namespace arbo::plugins::mondrian {

/// Fig. 2, the "vanished constraints" illustration: f = (x + 2)^2 + (y + 2)^2 subject to
/// (x - 1)^2 + (y - 1)^2 <= `threshold` (4: tight, 12.6% feasible; 16: loose, 50.3%).
class CtpeVanishedConstraints final : public BenchmarkProblem {
 public:
  explicit CtpeVanishedConstraints(const sdk::CreateArgs& args);
  static const sdk::ParamSpecList& params();
  sdk::ProblemInfo info() const override;
  void evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) override;

 private:
  double threshold_;
};

/// Fig. 3, the "small overlap" illustration: f = x^2 + y^2 subject to
/// (x - z)^2 + (y - z)^2 <= 3 with z = `center` (0.5: large overlap; 2.3: small overlap).
class CtpeSmallOverlap final : public BenchmarkProblem {
 public:
  explicit CtpeSmallOverlap(const sdk::CreateArgs& args);
  static const sdk::ParamSpecList& params();
  sdk::ProblemInfo info() const override;
  void evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) override;

 private:
  double center_;
};

}  // namespace arbo::plugins::mondrian
