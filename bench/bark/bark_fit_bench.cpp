// SPDX-License-Identifier: MIT
// BARK's MCMC fit time per BO iteration: after a first fit (burn-in) on n - 1 points, the
// warm-started fit on n points (sweeps x chains, the paper's 400 x 4 by default), at
// n = 30, 60, 130 and d = 10 (TreeFunction's space, [0, 1]^10, a sum of sines as objective).
// Prints wall time, the time in tree and noise moves (summed over chains) and acceptance rates.
// No assertions. Usage: [BARK_NO_REFRESH=1] bark_fit_bench [threads=2] [repeats=3] [n ...]
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <random>
#include <vector>

#include <fmt/format.h>

#include "bark_model.hpp"

using namespace arbo::plugins::bark;

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 2;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 3;
  std::vector<int> sizes;
  for (int k = 3; k < argc; ++k) sizes.push_back(std::atoi(argv[k]));
  if (sizes.empty()) sizes = {30, 60, 130};
  const int d = 10;
  Domain domain;
  domain.features.assign(d, FeatureDomain{});
  fmt::print("threads {}, d {}, chains 4, sweeps 400 per warm fit, m 50\n", threads, d);
  fmt::print("{:>5} {:>9} {:>9} {:>9} {:>9} {:>8} {:>8} {:>8} {:>8} {:>8}\n", "n", "wall_s",
             "tree_s", "noise_s", "us/prop", "grow%", "prune%", "change%", "noise%", "invalid%");
  for (int n : sizes) {
    std::mt19937_64 data_rng(1000 + static_cast<unsigned>(n));
    std::uniform_real_distribution<double> u(0.0, 1.0);
    Eigen::MatrixXd X(n, d);
    Eigen::VectorXd y(n);
    for (int i = 0; i < n; ++i) {
      double v = 0.0;
      for (int j = 0; j < d; ++j) {
        X(i, j) = u(data_rng);
        v += std::sin(6.0 * X(i, j) + j);
      }
      y[i] = v + 0.05 * (u(data_rng) - 0.5);
    }
    BarkConfig config;
    config.threads = threads;
    // BARK_NO_REFRESH=1: keep the rank-r updates across rejected noise moves (no fresh
    // factorization of the current K), to measure what the refresh costs.
    if (std::getenv("BARK_NO_REFRESH") != nullptr) config.chain.refresh_at_noise_step = false;
    BarkModel model(domain, config);
    std::mt19937_64 rng(7);
    model.fit(X.topRows(n - 1), y.head(n - 1), rng);  // first iteration: burn-in
    for (int r = 0; r < repeats; ++r) {
      model.fit(X, y, rng);
      const FitStats& s = model.stats();
      const auto rate = [](std::int64_t a, std::int64_t p) {
        return p > 0 ? 100.0 * static_cast<double>(a) / static_cast<double>(p) : 0.0;
      };
      const std::int64_t proposals = s.proposed[0] + s.proposed[1] + s.proposed[2];
      const std::int64_t invalid = s.invalid[0] + s.invalid[1] + s.invalid[2];
      fmt::print(
          "{:>5} {:>9.3f} {:>9.3f} {:>9.3f} {:>9.2f} {:>8.1f} {:>8.1f} {:>8.1f} {:>8.1f} "
          "{:>8.1f}\n",
          n, s.wall_seconds, s.tree_seconds, s.noise_seconds,
          1e6 * s.tree_seconds / static_cast<double>(proposals), rate(s.accepted[0], s.proposed[0]),
          rate(s.accepted[1], s.proposed[1]), rate(s.accepted[2], s.proposed[2]),
          rate(s.noise_accepted, s.noise_proposed), rate(invalid, proposals));
    }
  }
  return 0;
}
