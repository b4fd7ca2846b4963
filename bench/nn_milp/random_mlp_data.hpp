// SPDX-License-Identifier: MIT
// RandomMLP(25, 5)-like training data for the NN+MILP training benchmarks: n uniform points of
// 25 categoricals with 5 letters, one-hot (125 inputs, 25 nonzeros per point), and targets from
// a random Dense(128, ReLU) -> Dense(128, ReLU) -> Dense(1) network with Glorot-uniform weights
// (problem/random_mlp's construction; the values only need to be a realistic regression
// target), z-scored as surrogate/relu_net does. Same data for the Eigen and libtorch variants.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Core>

namespace arbo::bench {

struct RandomMlpData {
  Eigen::MatrixXd X;  // n x 125, one-hot
  Eigen::VectorXd y;  // n, z-scored
};

inline RandomMlpData random_mlp_data(int n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const auto glorot = [&](int in, int out) {
    const double l = std::sqrt(6.0 / (in + out));
    Eigen::MatrixXd W(out, in);
    for (int r = 0; r < out; ++r)
      for (int c = 0; c < in; ++c) W(r, c) = (2.0 * u(rng) - 1.0) * l;
    return W;
  };
  const Eigen::MatrixXd W1 = glorot(125, 128), W2 = glorot(128, 128), W3 = glorot(128, 1);
  RandomMlpData d;
  d.X = Eigen::MatrixXd::Zero(n, 125);
  d.y.resize(n);
  for (int r = 0; r < n; ++r) {
    for (int i = 0; i < 25; ++i) d.X(r, 5 * i + static_cast<int>(u(rng) * 5.0)) = 1.0;
    const Eigen::VectorXd h1 = (W1 * d.X.row(r).transpose()).cwiseMax(0.0);
    const Eigen::VectorXd h2 = (W2 * h1).cwiseMax(0.0);
    d.y[r] = (W3 * h2)(0);
  }
  const double mean = d.y.mean();
  const double sd = std::sqrt((d.y.array() - mean).square().mean());
  d.y = (d.y.array() - mean) / sd;
  return d;
}

// "16,16" for hidden widths {16, 16}: the `hidden` field of both benches' JSON lines.
template <class Int>
std::string hidden_label(const std::vector<Int>& hidden) {
  std::string label;
  for (std::size_t k = 0; k < hidden.size(); ++k)
    label += (k ? "," : "") + std::to_string(hidden[k]);
  return label;
}

}  // namespace arbo::bench
