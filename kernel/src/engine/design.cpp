// SPDX-License-Identifier: MIT
#include "arbo/kernel/design.hpp"

#include <algorithm>
#include <numeric>
#include <random>

#include <boost/random/sobol.hpp>

#include "arbo/kernel/errors.hpp"

namespace arbo::kernel {

namespace {

std::mt19937_64 design_rng(std::uint64_t seed) {
  // A fixed salt keeps the design's stream apart from the components' streams.
  std::seed_seq seq{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                    0x64657369u /* "desi" */};
  return std::mt19937_64(seq);
}

// Latin hypercube of n points in [0,1]^d: one point per stratum in every dimension.
void latin_hypercube(std::size_t n, Eigen::Index d, std::mt19937_64& rng,
                     std::vector<Eigen::VectorXd>& out) {
  std::uniform_real_distribution<double> unif(0.0, 1.0);
  std::vector<std::size_t> perm(n);
  std::vector<Eigen::VectorXd> pts(n, Eigen::VectorXd(d));
  for (Eigen::Index j = 0; j < d; ++j) {
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    for (std::size_t i = 0; i < n; ++i) {
      pts[i][j] = (static_cast<double>(perm[i]) + unif(rng)) / static_cast<double>(n);
    }
  }
  for (auto& p : pts) out.push_back(std::move(p));
}

}  // namespace

std::vector<Eigen::VectorXd> make_design(
    const sdk::Space& space, DesignMethod method, std::size_t n, std::uint64_t seed,
    const std::function<bool(const Eigen::VectorXd&)>& feasible,
    const std::vector<sdk::BalancePair>& balanced, std::size_t max_draws) {
  std::vector<Eigen::VectorXd> result;
  if (n == 0 || space.empty()) return result;
  result.reserve(n);
  const auto d = static_cast<Eigen::Index>(space.size());
  std::mt19937_64 rng = design_rng(seed);
  std::uniform_real_distribution<double> unif(0.0, 1.0);
  std::size_t draws = 0;

  const auto accept = [&](const Eigen::VectorXd& u) {
    ++draws;
    Eigen::VectorXd x = space.from_unit(u);
    if (!balanced.empty()) sdk::balance_from_unit(balanced, u, x);
    if (!feasible || feasible(x)) result.push_back(std::move(x));
  };

  if (method == DesignMethod::Sobol) {
    // Sobol points with a random shift modulo 1 (Cranley-Patterson rotation): keeps the low
    // discrepancy, makes different seeds give different designs, and avoids the corner point.
    boost::random::sobol qrng(static_cast<std::size_t>(d));
    Eigen::VectorXd shift(d);
    for (Eigen::Index j = 0; j < d; ++j) shift[j] = unif(rng);
    const double scale = 1.0 / (static_cast<double>((qrng.max)()) + 1.0);
    Eigen::VectorXd u(d);
    while (result.size() < n && draws < max_draws) {
      for (Eigen::Index j = 0; j < d; ++j) {
        const double v = static_cast<double>(qrng()) * scale + shift[j];
        u[j] = v - std::floor(v);
      }
      accept(u);
    }
    return result;
  }
  if (method == DesignMethod::LatinHypercube) {
    std::vector<Eigen::VectorXd> lhs;
    latin_hypercube(n, d, rng, lhs);
    for (const auto& u : lhs) {
      if (draws >= max_draws) break;
      accept(u);
    }
  }
  // Random designs, and the top-up of an LHS that lost points to known constraints.
  Eigen::VectorXd u(d);
  while (result.size() < n && draws < max_draws) {
    for (Eigen::Index j = 0; j < d; ++j) u[j] = unif(rng);
    accept(u);
  }
  return result;
}

}  // namespace arbo::kernel
