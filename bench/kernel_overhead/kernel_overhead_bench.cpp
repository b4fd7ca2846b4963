// SPDX-License-Identifier: MIT
// Kernel overhead of the BO loop: a random-search study on a built-in problem, run through the
// kernel's C++ API exactly as `arbo run` does, with the study store on disk.
//
// Reports, for N evaluations:
//   - wall time of the loop, time inside plugin calls (inner solver, problem), and the rest:
//     the kernel's own overhead (proposal bookkeeping, snapping, JSON, two SQLite commits per
//     evaluation, dataset update), per iteration;
//   - the same plugin work run bare in this process (baseline), so the overhead is also given
//     as a ratio to it;
//   - peak resident memory of the process (getrusage).
//
// Usage: kernel_overhead_bench [EVALS=1000] [PROBLEM=hartmann6] [DIR=/tmp]
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "arbo/kernel/context.hpp"
#include "arbo/kernel/pipeline.hpp"
#include "arbo/kernel/plugin_registry.hpp"
#include "arbo/kernel/study.hpp"
#include "arbo/sdk/inner_solver.hpp"
#include "arbo/sdk/problem.hpp"

namespace fs = std::filesystem;
using namespace arbo;

int main(int argc, char** argv) {
  const long evals = argc > 1 ? std::stol(argv[1]) : 1000;
  const std::string problem = argc > 2 ? argv[2] : "hartmann6";
  const fs::path base = argc > 3 ? fs::path(argv[3]) : fs::temp_directory_path();
  const fs::path dir = base / fmt::format("arbo_overhead_{}", ::getpid());
  fs::remove_all(dir);

  kernel::PluginRegistry registry;
  registry.load_search_path(kernel::plugin_search_path({ARBO_PLUGIN_DIR}));
  const std::string toml = fmt::format(R"([study]
seed = 1
budget = {}
[problem]
plugin = "{}"
[initial_design]
method = "sobol"
size = 10
[inner_solver]
plugin = "random"
)",
                                       evals, problem);
  auto pipeline = kernel::parse_pipeline(toml, "bench.toml", {}, kernel::lookup_from(registry));
  auto study = kernel::Study::create(dir, pipeline, toml, registry);
  const kernel::RunSummary s = study->run({});

  // Baseline: the same plugin calls with no kernel around them.
  kernel::KernelContext ctx("baseline", nullptr, nullptr);
  const sdk::ParamSet no_params;
  const sdk::Space empty;
  const auto* pe = registry.find(sdk::Kind::Problem, problem);
  const auto* se = registry.find(sdk::Kind::InnerSolver, "random");
  auto prob = registry.create_as<sdk::Problem>(*pe, {ctx, pipeline.problem.plugin->params, empty});
  const sdk::Space space = prob->space();
  auto solver =
      registry.create_as<sdk::InnerSolver>(*se, {ctx, pipeline.inner_solver.params, space});
  sdk::Dataset data;
  data.reset(space.size(), {});
  sdk::Evaluation ev;
  const auto t0 = std::chrono::steady_clock::now();
  double sink = 0;
  for (long i = 0; i < evals; ++i) {
    ctx.reseed(1, static_cast<std::uint64_t>(i), 1);
    const sdk::Proposal p = solver->maximize({nullptr, space, {}, data});
    prob->evaluate(p.x, ev);
    sink += ev.objective;
  }
  const double baseline =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  const double per_iter_ms = 1e3 * s.kernel_seconds() / static_cast<double>(s.evaluations);
  fmt::print("problem                      {}\n", problem);
  fmt::print("evaluations                  {}\n", s.evaluations);
  fmt::print("loop wall time               {:.4f} s\n", s.wall_seconds);
  fmt::print("  inside plugins             {:.4f} s\n", s.plugin_seconds);
  fmt::print("  kernel overhead            {:.4f} s\n", s.kernel_seconds());
  fmt::print("kernel overhead / iteration  {:.4f} ms   (target < 1 ms)\n", per_iter_ms);
  fmt::print("bare plugin work (baseline)  {:.4f} s   ({:.4f} ms / iteration)\n", baseline,
             1e3 * baseline / static_cast<double>(evals));
  fmt::print("kernel overhead / baseline   {:.2f}x\n", s.kernel_seconds() / baseline);
  fmt::print("peak resident memory         {:.1f} MB  (target < 50 MB)\n", ru.ru_maxrss / 1024.0);
  fmt::print("best                         {}\n", s.best ? *s.best : sink * 0);
  fs::remove_all(dir);
  return 0;
}
