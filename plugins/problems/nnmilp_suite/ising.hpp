// SPDX-License-Identifier: MIT
/// @file
/// @brief problem/ising100, problem/ising200 and problem/ising400: NN+MILP's constrained
/// Ising(n, 2) with fine-balance (subset-equality) constraints (NN+MILP paper, Sec. 4.3 and
/// App. B.4).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "benchmark_problem.hpp"

namespace arbo::plugins {

/// n binaries x0..x{n-1}; f(x) = sum_{i<j} theta_ij(x_i, x_j) over the complete graph, every
/// table entry theta_ij(a, b) ~ N(0, 1) iid (drawn from `seed` by PortableRng, edges in
/// lexicographic (i, j) order, entries (0,0), (0,1), (1,0), (1,1)). Maximized (the paper's
/// "negative energy"). The items form 2k = n/5 contiguous blocks of 5 (S_1 = x0..x4,
/// S_2 = x5..x9, ...); the k = n/10 known constraints sum(S_{2j-1}) == sum(S_{2j}) make a
/// fraction (252/1024)^k of the points feasible (8.1e-7 for n = 100). The partition is
/// contiguous because the paper does not give it and the entries are exchangeable, so every
/// partition gives the same distribution of instances.
class IsingProblem : public problems_common::KnownConstrainedProblem {
 public:
  /// `seed` of the pair tables, for every size.
  static const sdk::ParamSpecList& params();

  sdk::ProblemInfo info() const override;
  void evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) override;

  void known_values(const Eigen::VectorXd& x, Eigen::VectorXd& out) const override;

 protected:
  /// n items; the pair tables drawn from `values` (of `params()`).
  IsingProblem(int n, const sdk::ParamSet& values);

 private:
  int n_;
  std::uint64_t seed_;
  std::vector<double> theta_;  // 4 entries per edge (i < j), lexicographic
};

class Ising100 final : public IsingProblem {
 public:
  explicit Ising100(const sdk::CreateArgs& args);
};

class Ising200 final : public IsingProblem {
 public:
  explicit Ising200(const sdk::CreateArgs& args);
};

class Ising400 final : public IsingProblem {
 public:
  explicit Ising400(const sdk::CreateArgs& args);
};

}  // namespace arbo::plugins
