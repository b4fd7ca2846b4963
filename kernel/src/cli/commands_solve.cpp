// SPDX-License-Identifier: MIT
// `arbo solve FILE`: solves a model read from a CPLEX LP file with a model-solver plugin, so
// that users and tests can run the solver standalone.
#include <algorithm>
#include <cmath>
#include <iostream>

#include <fmt/format.h>
#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include "arbo/kernel/context.hpp"
#include "arbo/kernel/errors.hpp"
#include "arbo/kernel/guarded_call.hpp"
#include "arbo/kernel/pipeline.hpp"
#include "arbo/kernel/plugin_registry.hpp"
#include "arbo/sdk/error.hpp"
#include "arbo/sdk/excerpt.hpp"
#include "arbo/sdk/model_io.hpp"
#include "cli/cli.hpp"
#include "cli/common.hpp"

namespace po = boost::program_options;

namespace arbo::cli {

namespace {

// Largest LP file read: generous for a model, and a bound on what `solve /dev/zero` reads.
constexpr std::size_t kMaxModelBytes = std::size_t{256} << 20;

sdk::Model load_model(const std::string& file) {
  const std::string text = kernel::read_input_file(file, "model", kMaxModelBytes);
  try {
    return sdk::read_lp(text, file);
  } catch (const sdk::InvalidArgument& e) {
    throw kernel::ConfigError(e.what());
  }
}

// JSON has no infinity; a missing objective or bound is null.
nlohmann::ordered_json number_or_null(double v) {
  return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr);
}

// A model solver obeys the SolveOptions it is handed, not its own parameters of the same name
// (those serve it inside a pipeline), so `--set node_limit=300` alone would be accepted and
// then ignored. The solver's limit parameters given with --set therefore set the options too;
// given together with the flag of the same meaning, they are an error.
void set_limits_from_params(const std::vector<std::string>& given, const sdk::ParamSet& params,
                            const po::variables_map& vm, sdk::SolveOptions& options) {
  struct Limit {
    const char* key;
    const char* flag;  // nullptr: no flag of that meaning
    void (*apply)(sdk::SolveOptions&, double);
  };
  static constexpr Limit kLimits[] = {
      {"time_limit", "time-limit",
       [](sdk::SolveOptions& o, double v) { o.time_limit_seconds = v; }},
      {"node_limit", "node-limit",
       [](sdk::SolveOptions& o, double v) { o.node_limit = static_cast<std::int64_t>(v); }},
      {"relative_gap", "gap", [](sdk::SolveOptions& o, double v) { o.relative_gap = v; }},
      {"absolute_gap", nullptr, [](sdk::SolveOptions& o, double v) { o.absolute_gap = v; }},
      {"feasibility_tolerance", nullptr,
       [](sdk::SolveOptions& o, double v) { o.feasibility_tolerance = v; }}};
  for (const Limit& l : kLimits) {
    if (std::find(given.begin(), given.end(), l.key) == given.end()) continue;
    if (l.flag != nullptr && vm.count(l.flag)) {
      throw po::error(
          fmt::format("--set {} and --{} say the same thing; give one of them", l.key, l.flag));
    }
    try {
      // The solver's parameter spec has checked the range.
      l.apply(options, params.get_real(l.key));
    } catch (const sdk::ParamError&) {
      // Not a number for this solver: the name means something else there.
    }
  }
}

}  // namespace

int cmd_solve(const std::vector<std::string>& args, const Globals& g) {
  po::options_description opts("arbo solve FILE [options]");
  std::string file, solver_name = "glpk_bnb";
  double time_limit = 0.0, gap = -1.0;
  std::int64_t node_limit = -1;
  bool json = false;
  std::vector<std::string> sets;
  opts.add_options()("help,h", "show this help")(
      "solver", po::value(&solver_name),
      "inner-solver component that solves models (default: glpk_bnb)")(
      "time-limit", po::value(&time_limit), "stop after S seconds with the best point so far")(
      "gap", po::value(&gap), "relative optimality gap at which to stop (default: 1e-4)")(
      "node-limit", po::value(&node_limit), "stop after N branch-and-bound nodes")(
      "set", po::value(&sets)->composing(),
      "KEY=VALUE: a parameter of the solver component (e.g. threads=1); repeatable. "
      "Its time_limit, node_limit, relative_gap, absolute_gap and feasibility_tolerance "
      "set this solve's limits, like the flags")("json", po::bool_switch(&json),
                                                 "print one JSON object instead of text")(
      "file", po::value(&file), "model in CPLEX LP format");
  po::variables_map vm;
  if (!parse_args(args, opts, {optional_arg("file")}, vm)) return kernel::kExitOk;
  if (file.empty()) throw po::error("a model FILE (CPLEX LP format) is required");
  sdk::SolveOptions options;
  if (vm.count("time-limit")) {
    if (!(time_limit > 0.0)) throw po::error("--time-limit must be a positive number of seconds");
    if (time_limit > kernel::kMaxSeconds) {
      throw po::error(fmt::format("--time-limit must be at most {:.0f} seconds (about 31 years)",
                                  kernel::kMaxSeconds));
    }
    options.time_limit_seconds = time_limit;
  }
  if (vm.count("gap")) {
    if (!(gap >= 0.0)) throw po::error("--gap must be a non-negative number");
    options.relative_gap = gap;
  }
  if (vm.count("node-limit")) {
    if (node_limit < 0) throw po::error("--node-limit must be a non-negative integer");
    options.node_limit = node_limit;
  }

  const sdk::Model model = load_model(file);

  kernel::PluginRegistry registry = load_registry(g);
  const kernel::ComponentEntry* entry = registry.find(sdk::Kind::InnerSolver, solver_name);
  if (entry == nullptr) {
    const auto names = registry.names(sdk::Kind::InnerSolver);
    const std::string hint = sdk::nearest_name(solver_name, names);
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    throw kernel::ConfigError(fmt::format(
        "--solver {}: no inner solver of that name is loaded{}; loaded inner solvers: {} "
        "(check --plugin-path)",
        sdk::excerpt(solver_name), hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint),
        list.empty() ? "none" : list));
  }
  const std::string id = entry->id;

  kernel::guarded_call(id, "params", [&] { entry->info.params(); });
  std::vector<std::string> given;
  const sdk::ParamSet params = kernel::read_component_params(sets, entry->info, id, &given);
  set_limits_from_params(given, params, vm, options);
  if (std::isfinite(options.time_limit_seconds) &&
      options.time_limit_seconds > kernel::kMaxSeconds) {
    throw kernel::ConfigError(fmt::format("--set time_limit={}: must be at most {:.0f} seconds",
                                          options.time_limit_seconds, kernel::kMaxSeconds));
  }
  // Declared before the component so that it outlives it.
  kernel::KernelContext context(id, kernel::make_logger("arbo", "", g.verbose), &interrupt_flag());
  if (std::isfinite(options.time_limit_seconds)) context.set_budget(options.time_limit_seconds);
  const sdk::Space no_space;
  const std::shared_ptr<sdk::Component> component =
      registry.create(*entry, sdk::CreateArgs{context, params, no_space});
  auto* solver = dynamic_cast<sdk::ModelSolver*>(component.get());
  if (solver == nullptr) {
    throw kernel::ConfigError(fmt::format(
        "--solver {}: {} is not a model solver (it does not implement arbo::sdk::ModelSolver); "
        "model solvers such as glpk_bnb solve LP files",
        solver_name, id));
  }

  catch_interrupts();
  sdk::SolveResult result;
  {
    // Like guarded_call, but a model the solver rejects is the file's fault (exit 3).
    std::string message;
    bool invalid = false;
    try {
      result = solver->solve(model, options);
    } catch (const sdk::InvalidArgument& e) {
      message = e.what();
      invalid = true;
    } catch (const std::exception& e) {
      message = e.what();
    } catch (...) {
      message = "unknown exception (not derived from std::exception)";
    }
    if (invalid) {
      throw kernel::ConfigError(
          kernel::component_error(id, "solve", fmt::format("rejected {}: {}", file, message)));
    }
    if (!message.empty()) throw kernel::PluginError(kernel::component_error(id, "solve", message));
  }
  release_interrupts();

  if (!result.x.empty() && result.x.size() != model.num_variables()) {
    throw kernel::PluginError(kernel::component_error(
        id, "solve",
        fmt::format("returned a point with {} entries for a model with {} variables",
                    result.x.size(), model.num_variables())));
  }
  const double violation = result.x.empty() ? NAN : model.evaluate(result.x).max_violation();
  for (double& v : result.x) v = v == 0.0 ? 0.0 : v;  // print 0, not -0
  const auto& vars = model.variables();
  if (json) {
    nlohmann::ordered_json out;
    out["file"] = file;
    out["solver"] = id;
    out["status"] = sdk::to_string(result.status);
    out["objective"] = number_or_null(result.x.empty() ? NAN : result.objective);
    out["best_bound"] = number_or_null(result.best_bound);
    out["gap"] = number_or_null(result.gap);
    out["nodes"] = result.nodes;
    out["lp_iterations"] = result.lp_iterations;
    out["seconds"] = result.seconds;
    out["max_violation"] = number_or_null(violation);
    out["message"] = result.message;
    nlohmann::ordered_json values = nlohmann::ordered_json::object();
    for (std::size_t i = 0; i < result.x.size(); ++i) values[vars[i].name] = result.x[i];
    out["variables"] = values;
    std::cout << out.dump(2) << "\n";
  } else {
    std::cout << fmt::format("status: {}\n", sdk::to_string(result.status));
    std::cout << fmt::format("objective: {}\n",
                             result.x.empty() ? "-" : format_number(result.objective));
    std::cout << fmt::format("best bound: {}\n", format_number(result.best_bound));
    std::cout << fmt::format("gap: {}\n", format_number(result.gap));
    std::cout << fmt::format("nodes: {}\n", result.nodes);
    std::cout << fmt::format("lp iterations: {}\n", result.lp_iterations);
    std::cout << fmt::format("time: {:.3f} s\n", result.seconds);
    if (!result.message.empty()) std::cout << fmt::format("message: {}\n", result.message);
    if (!result.x.empty()) {
      std::cout << fmt::format("max violation: {}\n", format_number(violation));
      std::size_t width = 0;
      for (const auto& v : vars) width = std::max(width, v.name.size());
      std::cout << "variables:\n";
      for (std::size_t i = 0; i < vars.size(); ++i) {
        std::cout << fmt::format("  {:<{}} = {}\n", vars[i].name, width,
                                 format_number(result.x[i]));
      }
    }
  }
  if (result.status == sdk::SolveStatus::Error) {
    std::cerr << fmt::format(
        "arbo: error: {}\n",
        kernel::component_error(
            id, "solve",
            result.message.empty() ? "reported an error" : "reported an error: " + result.message));
    return kernel::kExitPlugin;
  }
  return kernel::kExitOk;
}

}  // namespace arbo::cli
