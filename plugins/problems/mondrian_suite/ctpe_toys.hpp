// SPDX-License-Identifier: MIT
/// @file
/// @brief The two 2-D toy problems of the c-TPE paper (Watanabe & Hutter, App. B.2): a sphere
/// with one disk constraint, on [-5, 5]^2; and a 2-D problem of our own whose feasible set has
/// two disjoint parts, for the authors' remark that the method is local (Sec. 6).
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

/// Not from a paper: f = (x - 0.3)^2 + (y - 1.2)^2 on [-2, 2]^2 subject to two quartic
/// constraints, `wells`: (x^2 - 1)^2 + y^2 - 0.5 <= 0 (two disjoint wells around (-1, 0) and
/// (1, 0)) and `notch`: 0.15 - (x - 1.5)^4 - (y + 0.5)^4 <= 0 (cuts the right well's lower
/// right). The left part (5.2% of the box) holds a local optimum 1.504223 at
/// (-0.704743, 0.496640); the smaller right part (3.4%) the global one, 0.598953 at
/// (0.813410, 0.620894), on the boundary of `wells`. A method that stays in the part where its
/// first good feasible point fell ends about 0.9 above f* half of the time or more.
class CtpeTwoParts final : public BenchmarkProblem {
 public:
  explicit CtpeTwoParts(const sdk::CreateArgs& args);
  sdk::ProblemInfo info() const override;
  void evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) override;
};

}  // namespace arbo::plugins::mondrian
