// SPDX-License-Identifier: MIT
/// @file
/// @brief Pressure-vessel design (Coello & Montes 2002 form): 2 integers, 2 reals, 3 known
/// constraints.
#pragma once

#include "suite_common.hpp"

namespace arbo::plugins::leafgp {

/// Cost of a cylindrical pressure vessel. x0, x1: shell and head thickness in units of
/// 0.0625 in (integers 1..99, Ts = 0.0625 x0, Th = 0.0625 x1); x2 = R, x3 = L in [10, 200].
///
/// `variant` "standard" (default): f = 0.6224 Ts R L + 1.7781 Th R^2 + 3.1661 Ts^2 L
/// + 19.84 Ts^2 R, g2: 0.00954 R <= Th; best known f* = 6059.714335 at (13, 7, 42.0984,
/// 176.6366). "leafgp_code": the reference code's 0.6224 x0 R L first term and
/// 0.00954 L <= Th; f* = 11754.5534 at (21, 2, 65.2252, 10), found for this suite.
class PressureVessel final : public KnownConstrainedProblem {
 public:
  explicit PressureVessel(const sdk::CreateArgs& args);
  static const sdk::ParamSpecList& params();
  sdk::ProblemInfo info() const override;
  void evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) override;
  void known_values(const Eigen::VectorXd& x, Eigen::VectorXd& out) const override;

 private:
  bool leafgp_code_;
};

}  // namespace arbo::plugins::leafgp
