// SPDX-License-Identifier: MIT
#include "ising.hpp"

#include <cmath>

#include <fmt/format.h>

#include <arbo/sdk/error.hpp>

#include "portable_random.hpp"

namespace arbo::plugins {

namespace {

constexpr int kBlock = 5;

sdk::Space ising_space(int n) {
  std::vector<sdk::Parameter> p;
  for (int i = 0; i < n; ++i) p.push_back(sdk::Parameter::binary(fmt::format("x{}", i)));
  return sdk::Space(std::move(p));
}

// The fine-balance equalities sum(S_{2j-1}) == sum(S_{2j}) over contiguous blocks of 5.
std::vector<sdk::KnownConstraintSpec> balance_specs(int n) {
  std::vector<sdk::KnownConstraintSpec> specs;
  for (int j = 0; j < n / (2 * kBlock); ++j) {
    std::string e;
    const int first = 2 * kBlock * j;
    for (int k = 0; k < kBlock; ++k) e += fmt::format("{}x{}", k == 0 ? "" : " + ", first + k);
    for (int k = 0; k < kBlock; ++k) e += fmt::format(" - x{}", first + kBlock + k);
    e += " == 0";
    specs.push_back({fmt::format("balance_{}", j), std::move(e)});
  }
  return specs;
}

}  // namespace

const sdk::ParamSpecList& IsingProblem::params() {
  static const sdk::ParamSpecList specs = {
      sdk::ParamSpec::integer("seed",
                              "Seed of the instance's pair tables (PortableRng, identical on "
                              "every machine); the paper used 10 random instances per size",
                              0, 0, 4294967295.0),
  };
  return specs;
}

IsingProblem::IsingProblem(int n, const sdk::ParamSet& values)
    : KnownConstrainedProblem(fmt::format("ising{}", n), ising_space(n), balance_specs(n)),
      n_(n),
      seed_(static_cast<std::uint64_t>(values.get_int("seed"))) {
  problems_common::PortableRng rng(seed_);
  theta_.resize(static_cast<std::size_t>(2 * n * (n - 1)));
  for (double& t : theta_) t = rng.normal();
}

sdk::ProblemInfo IsingProblem::info() const {
  sdk::ProblemInfo i;
  i.source = fmt::format(
      "NN+MILP (Papalexopoulos et al.), constrained Ising({}, 2) with {} fine-balance "
      "equalities over contiguous blocks of 5; pair tables N(0,1) from seed {} "
      "(NN+MILP Sec. 4.3, App. B.4); maximized, optimum unknown",
      n_, n_ / 10, seed_);
  i.maximize = true;
  return i;
}

void IsingProblem::evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) {
  prepare(x, out);
  std::vector<int> bit(static_cast<std::size_t>(n_));
  for (int i = 0; i < n_; ++i) bit[static_cast<std::size_t>(i)] = x[i] > 0.5 ? 1 : 0;
  double f = 0.0;
  std::size_t edge = 0;
  for (int i = 0; i < n_; ++i) {
    const int a = bit[static_cast<std::size_t>(i)];
    for (int j = i + 1; j < n_; ++j, ++edge) {
      f += theta_[4 * edge + static_cast<std::size_t>(2 * a + bit[static_cast<std::size_t>(j)])];
    }
  }
  out.objective = f;
}

void IsingProblem::known_values(const Eigen::VectorXd& x, Eigen::VectorXd& out) const {
  prepare_known(x, out);
  const int k = n_ / (2 * kBlock);
  for (int j = 0; j < k; ++j) {
    const int first = 2 * kBlock * j;
    // Left to right, as the expression reads, so both give the same rounding.
    double g = 0.0;
    for (int i = 0; i < kBlock; ++i) g += x[first + i];
    for (int i = 0; i < kBlock; ++i) g -= x[first + kBlock + i];
    out[j] = g;
  }
}

Ising100::Ising100(const sdk::CreateArgs& args) : IsingProblem(100, args.params) {}

Ising200::Ising200(const sdk::CreateArgs& args) : IsingProblem(200, args.params) {}

Ising400::Ising400(const sdk::CreateArgs& args) : IsingProblem(400, args.params) {}

}  // namespace arbo::plugins
