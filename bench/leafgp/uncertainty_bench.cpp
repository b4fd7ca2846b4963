// SPDX-License-Identifier: MIT
// LEAF-GP's Sec. 5.1 experiment on Rastrigin 10D (domain [-4, 5]^10, minimized): fit the
// tree-kernel GP on N uniform random points, then for each agreement bound R minimize the
// posterior mean subject to "agreement with every training point <= R" (Eq. 12, in the
// minimization sense) with the GLPK branch-and-bound, and measure the relative error
// |(mu(x*) - f(x*)) / mu(x*)| (Eq. 13) at the centre x* of the optimal cell. SENSE = max
// maximizes the mean instead (Eq. 12a read literally on the minimized benchmark).
//   leafgp_uncertainty_bench [SEEDS=20] [N=100] [TIME_LIMIT=30] [SENSE=min|max]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <arbo/sdk/model.hpp>

#include "bnb.hpp"
#include "formulation.hpp"
#include "tree_ensemble.hpp"
#include "tree_kernel_gp.hpp"

namespace {

using namespace arbo;
using namespace arbo::plugins::tree_gp;

double rastrigin(const Eigen::VectorXd& x) {
  double f = 10.0 * static_cast<double>(x.size());
  for (Eigen::Index i = 0; i < x.size(); ++i) f += x[i] * x[i] - 10.0 * std::cos(2.0 * M_PI * x[i]);
  return f;
}

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = static_cast<std::size_t>(std::ceil(pos));
  return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

}  // namespace

int main(int argc, char** argv) {
  const int seeds = argc > 1 ? std::stoi(argv[1]) : 20;
  const int n = argc > 2 ? std::stoi(argv[2]) : 100;
  const double time_limit = argc > 3 ? std::stod(argv[3]) : 30.0;
  const bool maximize = argc > 4 && std::string(argv[4]) == "max";
  std::vector<sdk::Parameter> ps;
  for (int i = 0; i < 10; ++i) ps.push_back(sdk::Parameter::real(fmt::format("x{}", i), -4.0, 5.0));
  const sdk::Space space(ps);
  std::vector<double> bounds;
  for (int k = 0; k <= 13; ++k) bounds.push_back(0.35 + 0.05 * k);
  std::vector<std::vector<double>> err(bounds.size()), mu_best(bounds.size()), secs(bounds.size());
  std::vector<int> optimal(bounds.size(), 0);
  for (int seed = 101; seed < 101 + seeds; ++seed) {
    std::mt19937_64 rng(static_cast<std::uint64_t>(seed));
    std::uniform_real_distribution<double> u(-4.0, 5.0);
    Eigen::MatrixXd X(n, 10);
    Eigen::VectorXd y(n);
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < 10; ++j) X(i, j) = u(rng);
      y[i] = rastrigin(X.row(i).transpose());
    }
    BoostConfig config;
    config.seed = static_cast<std::uint64_t>(seed);
    const Ensemble e = train_ensemble(X, y, std::vector<bool>(10, false), config);
    TreeKernelGp gp;
    gp.fit(e, X, y, GpConfig{});
    for (std::size_t b = 0; b < bounds.size(); ++b) {
      sdk::Model model;
      const sdk::PointVariables point = sdk::add_point_variables(model, space);
      const Formulation f = formulate(model, point, space, gp, false);
      for (int v : f.s) model.variable(v).upper = bounds[b];
      sdk::Objective obj;
      obj.sense = maximize ? sdk::ObjectiveSense::Maximize : sdk::ObjectiveSense::Minimize;
      obj.linear = f.output.mean;
      obj.constant = f.output.mean_constant;
      model.set_objective(obj);
      sdk::SolveOptions options;
      options.time_limit_seconds = time_limit;
      const sdk::SolveResult r = plugins::glpk::solve_model(model, options);
      if (r.x.empty()) continue;
      if (r.status == sdk::SolveStatus::Optimal) ++optimal[b];
      const Cell cell = cell_of(space, gp, active_leaves(f, gp, r.x));
      const Eigen::VectorXd c = cell_centre(space, cell, rng);
      Eigen::VectorXd mu, var;
      gp.predict(c.transpose(), mu, var);
      err[b].push_back(std::abs((mu[0] - rastrigin(c)) / mu[0]));
      mu_best[b].push_back(mu[0]);
      secs[b].push_back(r.seconds);
    }
    std::fprintf(stderr, "seed %d done\n", seed);
  }
  fmt::print(
      "Rastrigin 10D, {} seeds (101..{}), {} uniform training points, default ensemble "
      "(50 trees, depth 3), time limit {} s per solve, {} mu\n\n",
      seeds, 100 + seeds, n, time_limit, maximize ? "maximizing" : "minimizing");
  fmt::print(
      "| R | median rel. error | IQR | median {} mu(x*) | proven optimal | median solve s |\n",
      maximize ? "max" : "min");
  fmt::print("|---|---|---|---|---|---|\n");
  for (std::size_t b = 0; b < bounds.size(); ++b) {
    fmt::print("| {:.2f} | {:.3f} | [{:.3f}, {:.3f}] | {:.2f} | {}/{} | {:.3f} |\n", bounds[b],
               quantile(err[b], 0.5), quantile(err[b], 0.25), quantile(err[b], 0.75),
               quantile(mu_best[b], 0.5), optimal[b], err[b].size(), quantile(secs[b], 0.5));
  }
  return 0;
}
