// SPDX-License-Identifier: MIT
/// @file
/// @brief Hedar's G1, G3, G4, G6, G7 and G10 (LEAF-GP paper Table 2), all reals, all
/// constraints known. Indices are 0-based as in the paper; definitions in the README.
#pragma once

#include "suite_common.hpp"

namespace arbo::plugins::leafgp {

/// G1, 13 reals, 9 linear inequalities; f* = -15 at (1,...,1, 3, 3, 3, 1). Parameter
/// `variant`: "standard" (Hedar, g6: x11 - 8 x2 <= 0) or "leafgp_code" (g6: x11 - 3 x2 <= 0,
/// the reference code's coefficient; the optimizer stays feasible with g6 active).
class G1 final : public KnownConstrainedProblem {
 public:
  explicit G1(const sdk::CreateArgs& args);
  static const sdk::ParamSpecList& params();
  sdk::ProblemInfo info() const override;
  void evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) override;
  void known_values(const Eigen::VectorXd& x, Eigen::VectorXd& out) const override;

 private:
  double g6_coefficient_;
};

/// G3 in 5-D, one nonconvex equality sum x_i^2 = 1; f = -(sqrt 5)^5 prod x_i, f* = -1 at
/// x_i = 1/sqrt 5.
class G3 final : public KnownConstrainedProblem {
 public:
  explicit G3(const sdk::CreateArgs& args);
  sdk::ProblemInfo info() const override;
  void evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) override;
  void known_values(const Eigen::VectorXd& x, Eigen::VectorXd& out) const override;
};

/// G4, 5 reals, 6 bilinear inequalities (0 <= u <= 92, 90 <= v <= 110, 20 <= w <= 25);
/// best known f* = -30665.53867178332.
class G4 final : public KnownConstrainedProblem {
 public:
  explicit G4(const sdk::CreateArgs& args);
  sdk::ProblemInfo info() const override;
  void evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) override;
  void known_values(const Eigen::VectorXd& x, Eigen::VectorXd& out) const override;
};

/// G6, 2 reals, 2 quadratic inequalities (outside one circle, inside another); the optimum is
/// the circles' intersection x = (14.095, 5 - sqrt(100 - 9.095^2)), f* = -6961.8138755801.
class G6 final : public KnownConstrainedProblem {
 public:
  explicit G6(const sdk::CreateArgs& args);
  sdk::ProblemInfo info() const override;
  void evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) override;
  void known_values(const Eigen::VectorXd& x, Eigen::VectorXd& out) const override;
};

/// G7, 10 reals, 3 linear and 5 convex quadratic inequalities; best known f* = 24.30620906818.
class G7 final : public KnownConstrainedProblem {
 public:
  explicit G7(const sdk::CreateArgs& args);
  sdk::ProblemInfo info() const override;
  void evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) override;
  void known_values(const Eigen::VectorXd& x, Eigen::VectorXd& out) const override;
};

/// G10, 8 reals, 3 linear and 3 bilinear inequalities; best known f* = 7049.24802052867.
class G10 final : public KnownConstrainedProblem {
 public:
  explicit G10(const sdk::CreateArgs& args);
  sdk::ProblemInfo info() const override;
  void evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) override;
  void known_values(const Eigen::VectorXd& x, Eigen::VectorXd& out) const override;
};

}  // namespace arbo::plugins::leafgp
