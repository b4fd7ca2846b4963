// SPDX-License-Identifier: MIT
/// @file
/// @brief problem/random_mlp: RandomMLP(25, 5), the fully connected variant (NN+MILP paper,
/// Sec. 4.2 and App. B.2, "RandomFCC"): the output of a random ReLU network on the one-hot input.
#pragma once

#include <cstdint>
#include <vector>

#include "benchmark_problem.hpp"

namespace arbo::plugins {

/// 25 categoricals p0..p24 over the letters A..E, flattened one-hot (input (i, j) = position
/// i holds letter j, index 5 i + j) into Dense(128, ReLU) -> Dense(128, ReLU) -> Dense(1,
/// linear). Weights Glorot-uniform, U(-l, l) with l = sqrt(6 / (fan_in + fan_out)), biases
/// zero (the Keras defaults the paper names). Drawn from `seed` by PortableRng, layer by
/// layer, each kernel row-major in (input, output) order. Maximized (the paper maximizes the
/// output); the global maximum is not known.
class RandomMlp final : public problems_common::BenchmarkProblem {
 public:
  explicit RandomMlp(const sdk::CreateArgs& args);
  static const sdk::ParamSpecList& params();

  sdk::ProblemInfo info() const override;
  void evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) override;

 private:
  std::uint64_t seed_;
  Eigen::MatrixXd w1_;  // 125 x 128
  Eigen::MatrixXd w2_;  // 128 x 128
  Eigen::VectorXd w3_;  // 128
};

}  // namespace arbo::plugins
