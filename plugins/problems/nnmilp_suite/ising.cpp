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

const sdk::ParamSpecList& ising_params() {
  static const sdk::ParamSpecList specs = {
      sdk::ParamSpec::integer("seed",
                              "Seed of the instance's pair tables (PortableRng, identical on "
                              "every machine); the paper used 10 random instances per size",
                              0, 0, 4294967295.0),
  };
  return specs;
}

}  // namespace

IsingProblem::IsingProblem(int n, std::uint64_t seed)
    : n_(n), seed_(seed), id_(fmt::format("ising{}", n)), space_(ising_space(n)) {
  problems_common::PortableRng rng(seed);
  theta_.resize(static_cast<std::size_t>(2 * n * (n - 1)));
  for (double& t : theta_) t = rng.normal();
}

void IsingProblem::check_size(const Eigen::VectorXd& x, const char* method) const {
  if (x.size() != n_) {
    throw sdk::InvalidArgument(
        fmt::format("problem/{}: {}() needs {} coordinates", id_, method, n_));
  }
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
  check_size(x, "evaluate");
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
  out.constraints.resize(0);
}

std::vector<sdk::KnownConstraintSpec> IsingProblem::known_constraints() const {
  std::vector<sdk::KnownConstraintSpec> specs;
  for (int j = 0; j < n_ / (2 * kBlock); ++j) {
    std::string e;
    const int first = 2 * kBlock * j;
    for (int k = 0; k < kBlock; ++k) e += fmt::format("{}x{}", k == 0 ? "" : " + ", first + k);
    for (int k = 0; k < kBlock; ++k) e += fmt::format(" - x{}", first + kBlock + k);
    e += " == 0";
    specs.push_back({fmt::format("balance_{}", j), std::move(e)});
  }
  return specs;
}

void IsingProblem::known_values(const Eigen::VectorXd& x, Eigen::VectorXd& out) const {
  check_size(x, "known_values");
  const int k = n_ / (2 * kBlock);
  out.resize(k);
  for (int j = 0; j < k; ++j) {
    const int first = 2 * kBlock * j;
    // Left to right, as the expression reads, so both give the same rounding.
    double g = 0.0;
    for (int i = 0; i < kBlock; ++i) g += x[first + i];
    for (int i = 0; i < kBlock; ++i) g -= x[first + kBlock + i];
    out[j] = g;
  }
}

const sdk::ParamSpecList& Ising100::params() { return ising_params(); }
Ising100::Ising100(const sdk::CreateArgs& args)
    : IsingProblem(100, static_cast<std::uint64_t>(args.params.get_int("seed"))) {}

const sdk::ParamSpecList& Ising200::params() { return ising_params(); }
Ising200::Ising200(const sdk::CreateArgs& args)
    : IsingProblem(200, static_cast<std::uint64_t>(args.params.get_int("seed"))) {}

}  // namespace arbo::plugins
