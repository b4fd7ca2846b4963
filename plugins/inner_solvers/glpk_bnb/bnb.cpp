// SPDX-License-Identifier: MIT
// The entry point of the branch-and-bound: checks the options, completes the starts, prepares
// the model and runs the search (search.hpp and the files it names).
#include "bnb.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include <arbo/sdk/error.hpp>

#include "glpk_session.hpp"
#include "prepare.hpp"
#include "search.hpp"

namespace arbo::plugins::glpk {

namespace {

using bnb::Clock;
using sdk::kInfinity;

void check_options(const sdk::SolveOptions& o) {
  auto bad = [](const std::string& what) { throw sdk::InvalidArgument(what); };
  if (!(o.absolute_gap >= 0.0))
    bad(fmt::format("absolute_gap must be >= 0, got {}", o.absolute_gap));
  if (!(o.relative_gap >= 0.0))
    bad(fmt::format("relative_gap must be >= 0, got {}", o.relative_gap));
  if (!(o.feasibility_tolerance > 0.0) || !std::isfinite(o.feasibility_tolerance)) {
    bad(fmt::format("feasibility_tolerance must be finite and > 0, got {}",
                    o.feasibility_tolerance));
  }
  if (!(o.time_limit_seconds > 0.0)) {
    bad(fmt::format("time_limit_seconds must be > 0, got {}", o.time_limit_seconds));
  }
  if (o.node_limit < -1) bad(fmt::format("node_limit must be >= -1, got {}", o.node_limit));
}

}  // namespace

sdk::SolveResult solve_model(const sdk::Model& model, const sdk::SolveOptions& options,
                             const BnbConfig& config) {
  check_options(options);
  const auto start = Clock::now();
  const bool pure_milp = model.is_linear() && model.has_integers();
  if (pure_milp && config.milp_method == MilpMethod::Intopt) {
    return solve_milp_intopt(model, options, config);
  }
  const std::vector<std::vector<double>> completed = bnb::complete_starts(model, options, config);
  Prepared prep = prepare(model);
  if (prep.infeasible) {
    sdk::SolveResult res;
    res.status = sdk::SolveStatus::Infeasible;
    res.objective = prep.sense > 0 ? kInfinity : -kInfinity;
    res.best_bound = res.objective;
    res.message = "infeasible: " + prep.infeasible_reason;
    res.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return res;
  }
  GlpkSession session([&config](std::string_view line) {
    if (config.log) config.log(sdk::LogLevel::Debug, fmt::format("glpk: {}", line));
  });
  sdk::SolveOptions main = options;
  const double spent = std::chrono::duration<double>(Clock::now() - start).count();
  if (!options.starts.empty() && config.log) {
    config.log(sdk::LogLevel::Debug, fmt::format("glpk_bnb: {} of {} starts completed in {:.3f} s",
                                                 completed.size(), options.starts.size(), spent));
  }
  main.time_limit_seconds = std::max(options.time_limit_seconds - spent, 1e-3);
  bnb::Search search(model, prep, main, config, session);
  for (const auto& x : completed) search.offer(x);
  sdk::SolveResult res = search.run();
  res.seconds += spent;
  return res;
}

}  // namespace arbo::plugins::glpk
