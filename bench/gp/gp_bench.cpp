// SPDX-License-Identifier: MIT
// Speed of surrogate/gp's model (plugins/surrogates/gp/gp_model.hpp): MAP fit time (prior
// median + `restarts` prior draws, L-BFGS each) and predict time per point, one row per call
// (as Nelder-Mead calls it) and in blocks of 1,024 rows (as sampling calls it), on a smooth
// function of D = 10 real coordinates at N = 30, 60, 130 observations. Numbers only.
//
// Usage: gp_bench [REPS=3] [D=10]   one JSON object per (kernel, N) on stdout
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "gp_model.hpp"

namespace {

using namespace arbo::plugins::gp;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::stoi(argv[1]) : 3;
  const int D = argc > 2 ? std::stoi(argv[2]) : 10;
  Layout layout;
  layout.dim = D;
  for (int d = 0; d < D; ++d) layout.numeric.push_back(d);
  layout.lower = Eigen::VectorXd::Zero(D);
  layout.range = Eigen::VectorXd::Ones(D);
  for (const KernelType kernel : {KernelType::SquaredExponential, KernelType::Matern52}) {
    for (const int n : {30, 60, 130}) {
      std::mt19937_64 rng(42);
      std::uniform_real_distribution<double> u(0.0, 1.0);
      Eigen::MatrixXd X(n, D);
      for (int i = 0; i < n; ++i)
        for (int d = 0; d < D; ++d) X(i, d) = u(rng);
      Eigen::VectorXd y(n);
      for (int i = 0; i < n; ++i) {
        double s = 0.0;
        for (int d = 0; d < D; ++d) s += std::sin(3.0 * X(i, d) + d) / (1.0 + d);
        y[i] = s;
      }
      std::vector<double> fit_s, evals, one_us, block_us;
      GpModel gp(kernel, layout, hvarfner_priors(D));
      for (int r = 0; r < reps; ++r) {
        gp.set_data(X, y);
        std::mt19937_64 fit_rng(7 + static_cast<unsigned>(r));
        const auto t0 = Clock::now();
        const FitReport report = gp.fit(fit_rng, FitOptions{});
        fit_s.push_back(seconds_since(t0));
        evals.push_back(report.evaluations);

        const int m = 4096;
        Eigen::MatrixXd Q(m, D);
        for (int i = 0; i < m; ++i)
          for (int d = 0; d < D; ++d) Q(i, d) = u(rng);
        Eigen::MatrixXd row(1, D);
        Eigen::VectorXd mean, var;
        const auto t1 = Clock::now();
        for (int i = 0; i < m; ++i) {
          row = Q.row(i);
          gp.predict(row, mean, var);
        }
        one_us.push_back(seconds_since(t1) / m * 1e6);
        const auto t2 = Clock::now();
        for (int start = 0; start < m; start += 1024) {
          gp.predict(Q.middleRows(start, 1024), mean, var);
        }
        block_us.push_back(seconds_since(t2) / m * 1e6);
      }
      std::printf(
          "{\"kernel\": \"%s\", \"N\": %d, \"D\": %d, \"fit_s\": %.4f, \"fit_evaluations\": %.0f, "
          "\"fit_ms_per_evaluation\": %.3f, \"predict_us_per_point_one_row\": %.2f, "
          "\"predict_us_per_point_block\": %.2f}\n",
          kernel == KernelType::SquaredExponential ? "se" : "matern52", n, D, median(fit_s),
          median(evals), 1e3 * median(fit_s) / median(evals), median(one_us), median(block_us));
    }
  }
  return 0;
}
