// SPDX-License-Identifier: MIT
// Speed of the Nelder-Mead restart scheme of inner_solver/nelder_mead (the thesis's "NM-restart":
// best of 20,000 uniform samples, 5 SciPy-identical adaptive runs from the best ones) on plain
// functions, for comparison with SciPy (bench/nelder_mead/run_bench.py runs both).
//
// Usage:
//   nelder_mead_bench restarts [REPS=5]     Rosenbrock and Ackley in 10 and 30 dimensions; one
//                                           JSON object per line
//   nelder_mead_bench proposal [REPS=3]     proposal time per iteration with the
//                                           surrogate/mondrian_forest plugin (fit objective and
//                                           one constraint model, bind acquisition/cwei,
//                                           maximize with inner_solver/nelder_mead) for
//                                           n = 50, 100, 200 and d = 2, 10, 30
#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "arbo/kernel/context.hpp"
#include "arbo/kernel/plugin_registry.hpp"
#include "arbo/sdk/acquisition.hpp"
#include "arbo/sdk/inner_solver.hpp"
#include "arbo/sdk/surrogate.hpp"
#include "nelder_mead.hpp"

namespace {

namespace nm = arbo::plugins::nelder_mead;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

double rosenbrock(const Eigen::VectorXd& x) {
  double s = 0.0;
  for (Eigen::Index i = 0; i + 1 < x.size(); ++i) {
    const double t = x[i + 1] - x[i] * x[i];
    s += 100.0 * t * t + (1.0 - x[i]) * (1.0 - x[i]);
  }
  return s;
}

double ackley(const Eigen::VectorXd& x) {
  const double n = static_cast<double>(x.size());
  double sq = 0.0, cs = 0.0;
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    sq += x[i] * x[i];
    cs += std::cos(2.0 * M_PI * x[i]);
  }
  return -20.0 * std::exp(-0.2 * std::sqrt(sq / n)) - std::exp(cs / n) + M_E + 20.0;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 == 1 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

struct Run {
  double seconds = 0, nm_seconds = 0, best = 0;
  std::int64_t nfev = 0;
};

// The inner solver's scheme on a plain function: 20,000 uniform samples, NM from the best 5,
// the answer the best of the runs and the best sample.
template <class F>
Run restarts(F f, int d, double lo, double hi, std::uint64_t seed) {
  constexpr int kSamples = 20000;
  constexpr int kStarts = 5;
  Run run;
  const auto t0 = Clock::now();
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  // Row-major so that each sample is written and read contiguously.
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> X(kSamples, d);
  Eigen::VectorXd fx(kSamples), x(d);
  for (int i = 0; i < kSamples; ++i) {
    for (int j = 0; j < d; ++j) x[j] = u(rng);
    X.row(i) = x.transpose();
    fx[i] = f(x);
  }
  std::vector<int> order(kSamples);
  std::iota(order.begin(), order.end(), 0);
  std::partial_sort(order.begin(), order.begin() + kStarts, order.end(),
                    [&](int a, int b) { return fx[a] < fx[b]; });
  run.best = fx[order[0]];
  const auto t1 = Clock::now();
  const Eigen::VectorXd lower = Eigen::VectorXd::Constant(d, lo);
  const Eigen::VectorXd upper = Eigen::VectorXd::Constant(d, hi);
  nm::Workspace ws;
  for (int r = 0; r < kStarts; ++r) {
    const Eigen::VectorXd x0 = X.row(order[static_cast<std::size_t>(r)]).transpose();
    const nm::Result res = nm::minimize(f, x0, lower, upper, nm::Options{}, ws);
    run.nfev += res.nfev;
    run.best = std::min(run.best, res.fun);
  }
  run.nm_seconds = seconds_since(t1);
  run.seconds = seconds_since(t0);
  return run;
}

int bench_restarts(int reps) {
  struct Problem {
    const char* name;
    double (*f)(const Eigen::VectorXd&);
    double lo, hi;
  };
  // Rosenbrock on the thesis's [-2.048, 2.048]^d; Ackley on its [-5, 10]^d.
  const Problem problems[] = {{"rosenbrock", rosenbrock, -2.048, 2.048},
                              {"ackley", ackley, -5.0, 10.0}};
  for (const Problem& p : problems) {
    for (int d : {10, 30}) {
      std::vector<double> secs, nm_secs, best;
      double nfev = 0;
      for (int r = 0; r < reps; ++r) {
        const Run run = restarts(p.f, d, p.lo, p.hi, 1000 + static_cast<std::uint64_t>(r));
        secs.push_back(run.seconds);
        nm_secs.push_back(run.nm_seconds);
        best.push_back(run.best);
        nfev += static_cast<double>(run.nfev) / reps;
      }
      fmt::print(
          "{{\"impl\": \"cpp\", \"function\": \"{}\", \"d\": {}, \"reps\": {}, "
          "\"seconds\": {:.6g}, \"nm_seconds\": {:.6g}, \"nfev\": {:.1f}, \"best\": {:.6g}}}\n",
          p.name, d, reps, median(secs), median(nm_secs), nfev, median(best));
      std::fflush(stdout);
    }
  }
  return 0;
}

// Proposal time of the thesis's method with the real plugins: the hook for the Mondrian forest.
int bench_proposal(int reps) {
  using namespace arbo;
  kernel::PluginRegistry registry;
  registry.load_search_path(kernel::plugin_search_path({ARBO_PLUGIN_DIR}));
  const auto* surrogate_entry = registry.find(sdk::Kind::Surrogate, "mondrian_forest");
  const auto* acq_entry = registry.find(sdk::Kind::Acquisition, "cwei");
  const auto* solver_entry = registry.find(sdk::Kind::InnerSolver, "nelder_mead");
  const auto* sampling_entry = registry.find(sdk::Kind::InnerSolver, "sampling");
  if (surrogate_entry == nullptr || acq_entry == nullptr || solver_entry == nullptr ||
      sampling_entry == nullptr) {
    fmt::print(
        "{{\"skipped\": \"needs surrogate/mondrian_forest, acquisition/cwei and "
        "inner_solver/nelder_mead in {}\"}}\n",
        ARBO_PLUGIN_DIR);
    return 0;
  }
  auto validated = [](const kernel::ComponentEntry& e) {
    return sdk::validate_params(e.info.params(), {}, e.id);
  };
  const sdk::ParamSet surrogate_params = validated(*surrogate_entry);
  const sdk::ParamSet acq_params = validated(*acq_entry);
  const sdk::ParamSet solver_params = validated(*solver_entry);
  const sdk::ParamSet sampling_params = validated(*sampling_entry);
  for (int d : {2, 10, 30}) {
    std::vector<sdk::Parameter> params;
    for (int j = 0; j < d; ++j) params.push_back(sdk::Parameter::real(fmt::format("x{}", j), 0, 1));
    const sdk::Space space(params);
    for (int n : {50, 100, 200}) {
      std::vector<double> fit_s, solve_s, total_s, sampling_s;
      for (int r = 0; r < reps; ++r) {
        // Ackley-like objective on [0, 1]^d and one linear black-box constraint.
        std::mt19937_64 rng(static_cast<std::uint64_t>(7 * n + d + 1000 * r));
        std::uniform_real_distribution<double> u(0.0, 1.0);
        sdk::Dataset data;
        data.reset(static_cast<std::size_t>(d), {"c"});
        Eigen::VectorXd x(d), c(1);
        for (int i = 0; i < n; ++i) {
          for (int j = 0; j < d; ++j) x[j] = u(rng);
          c[0] = x.sum() - 0.5 * d;
          data.append(x, ackley(10.0 * x.array() - 5.0), c);
        }
        kernel::KernelContext sctx("surrogate", nullptr, nullptr),
            cctx("surrogate", nullptr, nullptr), actx("acquisition", nullptr, nullptr),
            ictx("inner_solver", nullptr, nullptr);
        for (auto* k : {&sctx, &cctx, &actx, &ictx})
          k->reseed(1, static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(r));
        auto objective =
            registry.create_as<sdk::Surrogate>(*surrogate_entry, {sctx, surrogate_params, space});
        auto constraint =
            registry.create_as<sdk::Surrogate>(*surrogate_entry, {cctx, surrogate_params, space});
        auto acq = registry.create_as<sdk::Acquisition>(*acq_entry, {actx, acq_params, space});
        auto solver =
            registry.create_as<sdk::InnerSolver>(*solver_entry, {ictx, solver_params, space});
        auto sampling =
            registry.create_as<sdk::InnerSolver>(*sampling_entry, {ictx, sampling_params, space});
        const auto t0 = Clock::now();
        sdk::Metric obj_metric;
        sdk::Metric con_metric;
        con_metric.index = 0;
        con_metric.name = "c";
        objective->fit(data, obj_metric);
        constraint->fit(data, con_metric);
        acq->bind({data, objective.get(), {constraint.get()}, data.incumbent()});
        const double fit = seconds_since(t0);
        const auto t1 = Clock::now();
        const sdk::Proposal p = solver->maximize({acq.get(), space, {}, data});
        const double solve = seconds_since(t1);
        if (!p.found) fmt::print(stderr, "no proposal at n={} d={}\n", n, d);
        // The same acquisition maximized by sampling alone: the share of the 20,000 samples.
        const auto t2 = Clock::now();
        if (!sampling->maximize({acq.get(), space, {}, data}).found)
          fmt::print(stderr, "no sampling proposal at n={} d={}\n", n, d);
        sampling_s.push_back(seconds_since(t2));
        fit_s.push_back(fit);
        solve_s.push_back(solve);
        total_s.push_back(fit + solve);
      }
      fmt::print(
          "{{\"impl\": \"cpp\", \"bench\": \"proposal\", \"n\": {}, \"d\": {}, \"reps\": {}, "
          "\"fit_seconds\": {:.6g}, \"solve_seconds\": {:.6g}, \"seconds\": {:.6g}, "
          "\"sampling_seconds\": {:.6g}}}\n",
          n, d, reps, median(fit_s), median(solve_s), median(total_s), median(sampling_s));
      std::fflush(stdout);
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "restarts";
  const int reps = argc > 2 ? std::stoi(argv[2]) : (what == "proposal" ? 3 : 5);
  if (what == "restarts") return bench_restarts(reps);
  if (what == "proposal") return bench_proposal(reps);
  std::cerr << "usage: nelder_mead_bench restarts|proposal [REPS]\n";
  return 2;
}
