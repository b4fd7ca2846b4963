// SPDX-License-Identifier: MIT
/// @file
/// @brief problem/bbob_*: the ten BBOB functions of NN+MILP's BBOB(10, 10) family, discretized
/// on a 10 x 10 categorical grid (NN+MILP paper, Sec. 4.2 and App. B.3).
#pragma once

#include <array>
#include <string>

#include "benchmark_problem.hpp"

namespace arbo::plugins {

enum class BbobFunction {
  Sphere,
  EllipsoidSeparable,
  AttractiveSector,
  StepEllipsoid,
  Discus,
  BentCigar,
  Weierstrass,
  SchaffersF7,
  Schwefel,
  Gallagher21me,
};

/// Ten categoricals x0..x9; choice k stands for the value v_k = -5 + 10 k / 9, except that the
/// value closest to 0 is replaced by exactly 0 (v_4 = -0.5556 and v_5 = +0.5556 tie; the lower
/// index, v_4, is replaced). The coordinates are unordered categoricals, as in the paper.
/// Definitions: the BBOB functions as written in google/vizier's bbob.py with seed 0 (rotations
/// R = Q = identity); our choice, since the paper gives no formulas: the file's upper-case names
/// match the paper's list (App. B.3; docs/methods/nn-milp.md). Normalized: f is divided by the
/// median absolute deviation of f over 30 fixed grid points (PortableRng seed 0, each point's
/// ten indices drawn in order). Minimized (the paper maximizes a reward whose sign it does not
/// state; the BBOB convention is minimization). f* is exact: 0 at the origin for the eight
/// functions that are non-negative with f(0) = 0; by per-coordinate minimization for
/// AttractiveSector (separable under a monotone transform); by dynamic programming over the
/// coordinate chain for Schwefel.
class BbobGridProblem : public problems_common::BenchmarkProblem {
 public:
  sdk::ProblemInfo info() const override;
  void evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) override;

  /// The unnormalized function at a real point of length 10.
  static double raw_value(BbobFunction f, const Eigen::VectorXd& z);
  /// v_0 .. v_9.
  static const std::array<double, 10>& grid();

 protected:
  explicit BbobGridProblem(BbobFunction f);

 private:
  Eigen::VectorXd to_real(const Eigen::VectorXd& x) const;
  void find_optimum();

  BbobFunction function_;
  double scale_ = 1.0;
  double optimum_ = 0.0;
  Eigen::VectorXd optimizer_;
};

template <BbobFunction F>
class BbobGrid final : public BbobGridProblem {
 public:
  explicit BbobGrid(const sdk::CreateArgs&) : BbobGridProblem(F) {}
};

using BbobSphere = BbobGrid<BbobFunction::Sphere>;
using BbobEllipsoidSeparable = BbobGrid<BbobFunction::EllipsoidSeparable>;
using BbobAttractiveSector = BbobGrid<BbobFunction::AttractiveSector>;
using BbobStepEllipsoid = BbobGrid<BbobFunction::StepEllipsoid>;
using BbobDiscus = BbobGrid<BbobFunction::Discus>;
using BbobBentCigar = BbobGrid<BbobFunction::BentCigar>;
using BbobWeierstrass = BbobGrid<BbobFunction::Weierstrass>;
using BbobSchaffersF7 = BbobGrid<BbobFunction::SchaffersF7>;
using BbobSchwefel = BbobGrid<BbobFunction::Schwefel>;
using BbobGallagher21me = BbobGrid<BbobFunction::Gallagher21me>;

}  // namespace arbo::plugins
