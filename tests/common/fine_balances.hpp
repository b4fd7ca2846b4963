// SPDX-License-Identifier: MIT
// Ising's fine-balance equalities (Papalexopoulos et al. 2022, Sec. 5.2) over n binaries as a
// formulating constraint: for each block j of ten, sum x[10j .. 10j+4] = sum x[10j+5 .. 10j+9],
// one row each, scaled by 0.2 as constraint/polynomial scales them. A uniform point keeps one
// block's balance with probability 252/1024.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>

#include <Eigen/Core>

#include <arbo/sdk/capabilities/constraint.hpp>
#include <arbo/sdk/constraint.hpp>
#include <arbo/sdk/model.hpp>

namespace arbo::test {

class FineBalances final : public sdk::Constraint, public sdk::FormulatesConstraint {
 public:
  /// `n`: number of binaries, a multiple of 10.
  explicit FineBalances(int n) : blocks_(n / 10) {}
  /// The largest imbalance over the blocks (0 when all hold).
  double violation(const Eigen::VectorXd& x) const override {
    double worst = 0.0;
    for (int j = 0; j < blocks_; ++j)
      worst =
          std::max(worst, std::abs(x.segment(10 * j, 5).sum() - x.segment(10 * j + 5, 5).sum()));
    return worst;
  }
  void formulate(sdk::Model& model, const sdk::PointVariables& point) const override {
    for (int j = 0; j < blocks_; ++j) {
      sdk::LinearRow row;
      row.sense = sdk::RowSense::Equal;
      for (int k = 0; k < 5; ++k) {
        row.terms.push_back({point.x_vars[static_cast<std::size_t>(10 * j + k)], 0.2});
        row.terms.push_back({point.x_vars[static_cast<std::size_t>(10 * j + 5 + k)], -0.2});
      }
      model.add_linear_row(row);
    }
  }

 private:
  int blocks_;
};

}  // namespace arbo::test
