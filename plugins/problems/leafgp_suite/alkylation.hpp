// SPDX-License-Identifier: MIT
/// @file
/// @brief Alkylation process design (Sauer, Colville & Burwick 1964), 7 reals, 14 known
/// constraints, in the form of the LEAF-GP reference code (via solab-ntu's collection).
#pragma once

#include "suite_common.hpp"

namespace arbo::plugins::leafgp {

/// Negative profit of a simplified alkylation unit. Variables (0-based): x0 olefin feed,
/// x1 isobutane recycle, x2 acid addition rate, x3 alkylate yield, x4 motor octane number,
/// x5 acid dilution factor, x6 F-4 performance number. Derived: a = 1.22 x3 - x0 (isobutane
/// make-up), b = 98000 x2 / (x3 x5 + 1000 x2) (acid strength), c = (x1 + a) / x0
/// (isobutane/olefin ratio).
///
/// The constraints with b or c are stated multiplied through by their positive denominators
/// (x0, x0^2 (x3 x5 + 1000 x2), or x3 x5 + 1000 x2) so that they are polynomial; see the
/// README for the one degenerate face (x0 = x1 = x2 = x3 = 0) this admits.
/// Best known f* = -1768.80696 (computed for this suite; the paper states none).
class Alkylation final : public KnownConstrainedProblem {
 public:
  explicit Alkylation(const sdk::CreateArgs& args);
  sdk::ProblemInfo info() const override;
  void evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) override;
  void known_values(const Eigen::VectorXd& x, Eigen::VectorXd& out) const override;
};

}  // namespace arbo::plugins::leafgp
