// SPDX-License-Identifier: MIT
// `arbo problems` and `arbo problem eval`: the problem plugins as seen from scripts. The bench
// runner and the Optuna peer rebuild spaces from `problems --json` and evaluate through
// `problem eval`, so that every method is scored by exactly the same C++ objective.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

#include <fmt/format.h>
#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include "arbo/kernel/context.hpp"
#include "arbo/kernel/errors.hpp"
#include "arbo/kernel/evaluator.hpp"
#include "arbo/kernel/guarded_call.hpp"
#include "arbo/kernel/plugin_registry.hpp"
#include "arbo/kernel/problem_loader.hpp"
#include "arbo/kernel/study.hpp"
#include "arbo/sdk/error.hpp"
#include "arbo/sdk/excerpt.hpp"
#include "arbo/sdk/problem.hpp"
#include "cli/cli.hpp"
#include "cli/common.hpp"
#include "engine/components.hpp"
#include "engine/evaluation_output.hpp"

namespace po = boost::program_options;

namespace arbo::cli {

namespace {

using ojson = nlohmann::ordered_json;

// One created problem with everything `problems` reports, loaded exactly as a study loads it.
// The context and the parameters are declared first so that they outlive the component.
struct ProblemPlugin {
  std::unique_ptr<kernel::KernelContext> context;
  sdk::ParamSet params;
  const kernel::ComponentEntry* entry = nullptr;
  kernel::LoadedProblem loaded;
};

std::unique_ptr<ProblemPlugin> load_problem(const kernel::PluginRegistry& registry,
                                            const kernel::ComponentEntry& e,
                                            std::shared_ptr<spdlog::logger> logger) {
  auto pp = std::make_unique<ProblemPlugin>();
  pp->entry = &e;
  pp->context = std::make_unique<kernel::KernelContext>(e.id, std::move(logger), nullptr);
  pp->params = kernel::guarded_call(
      e.id, "params", [&] { return sdk::validate_params(e.info.params(), {}, e.id); });
  pp->loaded = kernel::load_problem(registry, e, pp->params, *pp->context);
  return pp;
}

std::vector<const kernel::ComponentEntry*> problem_entries(const kernel::PluginRegistry& r) {
  std::vector<const kernel::ComponentEntry*> out;
  for (const auto* e : r.components()) {
    if (e->info.kind == sdk::Kind::Problem) out.push_back(e);
  }
  return out;
}

ojson value_json(const sdk::Value& v) {
  return std::visit(
      [](const auto& x) -> ojson {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return nullptr;
        } else {
          return x;
        }
      },
      v);
}

ojson params_json(const sdk::Space& space, const Eigen::VectorXd& x) {
  const auto values = space.decode(x);
  ojson j = ojson::object();
  for (std::size_t i = 0; i < space.size(); ++i) {
    if (!std::holds_alternative<std::monostate>(values[i]))
      j[space[i].name] = value_json(values[i]);
  }
  return j;
}

// User value of parameter i's encoded default (decode() would hide an inactive one).
sdk::Value default_value(const sdk::Space& space, std::size_t i) {
  const sdk::Parameter& p = space[i];
  const double d = space.default_encoded(i);
  switch (p.type) {
    case sdk::ParamType::Real: return p.log_scale ? std::exp(d) : d;
    case sdk::ParamType::Integer:
      return static_cast<std::int64_t>(std::llround(p.log_scale ? std::exp(d) : d));
    case sdk::ParamType::Categorical: return p.choices.at(static_cast<std::size_t>(d));
    case sdk::ParamType::Binary: return d != 0.0;
  }
  return {};
}

ojson space_json(const sdk::Space& space) {
  ojson arr = ojson::array();
  for (std::size_t i = 0; i < space.size(); ++i) {
    const sdk::Parameter& p = space[i];
    ojson j;
    j["name"] = p.name;
    j["type"] = sdk::to_string(p.type);
    if (p.type == sdk::ParamType::Real) {
      j["low"] = p.lower;
      j["high"] = p.upper;
      j["log"] = p.log_scale;
    } else if (p.type == sdk::ParamType::Integer) {
      j["low"] = static_cast<std::int64_t>(p.lower);
      j["high"] = static_cast<std::int64_t>(p.upper);
      j["log"] = p.log_scale;
    } else if (p.type == sdk::ParamType::Categorical) {
      j["choices"] = p.choices;
    }
    // The default matters only to conditional parameters (their value while inactive), but
    // printing it always lets a script rebuild the Space exactly.
    j["default"] = value_json(default_value(space, i));
    if (p.condition) {
      ojson values = ojson::array();
      for (const auto& v : p.condition->values) values.push_back(value_json(v));
      j["condition"] = ojson{{"parent", p.condition->parent}, {"values", values}};
    } else {
      j["condition"] = nullptr;
    }
    arr.push_back(std::move(j));
  }
  return arr;
}

struct TypeCounts {
  int real = 0, integer = 0, categorical = 0, binary = 0;
};

TypeCounts count_types(const sdk::Space& space) {
  TypeCounts c;
  for (const auto& p : space.parameters()) {
    switch (p.type) {
      case sdk::ParamType::Real: ++c.real; break;
      case sdk::ParamType::Integer: ++c.integer; break;
      case sdk::ParamType::Categorical: ++c.categorical; break;
      case sdk::ParamType::Binary: ++c.binary; break;
    }
  }
  return c;
}

ojson problem_json(const ProblemPlugin& pp) {
  const kernel::ComponentEntry& e = *pp.entry;
  const kernel::LoadedProblem& lp = pp.loaded;
  const TypeCounts t = count_types(lp.space);
  ojson j;
  j["id"] = e.id;
  j["name"] = e.info.name;
  j["plugin"] = e.plugin_name;
  j["plugin_version"] = e.plugin_version;
  j["summary"] = e.info.summary;
  j["source"] = lp.info.source;
  j["dimension"] = lp.space.size();
  j["types"] = ojson{{"real", t.real},
                     {"integer", t.integer},
                     {"categorical", t.categorical},
                     {"binary", t.binary}};
  j["direction"] = lp.info.maximize ? "maximize" : "minimize";
  j["optimum"] = lp.info.optimum ? ojson(*lp.info.optimum) : ojson(nullptr);
  j["optimum_is_best_known"] = lp.info.optimum_is_best_known;
  ojson opt = ojson::array();
  for (const auto& x : lp.info.optimizers) {
    if (static_cast<std::size_t>(x.size()) == lp.space.size())
      opt.push_back(params_json(lp.space, x));
  }
  j["optimizers"] = opt;
  j["constraints"] = lp.constraint_names;
  ojson known = ojson::array();
  for (const auto& k : lp.known_specs) {
    known.push_back(ojson{{"name", k.name}, {"expression", k.expression}});
  }
  j["known_constraints"] = known;
  j["space"] = space_json(lp.space);
  return j;
}

std::string optimum_text(const sdk::ProblemInfo& info) {
  if (!info.optimum) return "-";
  return fmt::format("{:.6g}{}", *info.optimum, info.optimum_is_best_known ? "*" : "");
}

// Reads one line into `line`, without its newline. A line longer than `max_bytes` is read to
// its end but not kept: `too_long` is set and `line` holds its first `max_bytes` bytes, so that
// a runaway input costs no more memory than a line at the limit. False at the end of input.
bool read_line(std::istream& in, std::string& line, std::size_t max_bytes, bool& too_long) {
  line.clear();
  too_long = false;
  std::streambuf& buf = *in.rdbuf();
  bool any = false;
  for (int c = buf.sbumpc(); c != std::char_traits<char>::eof(); c = buf.sbumpc()) {
    any = true;
    if (c == '\n') return true;
    if (line.size() < max_bytes) {
      line.push_back(static_cast<char>(c));
    } else {
      too_long = true;
    }
  }
  return any;
}

const kernel::ComponentEntry& find_problem(const kernel::PluginRegistry& registry,
                                           std::string name) {
  if (name.rfind("problem/", 0) == 0) name = name.substr(8);
  const kernel::ComponentEntry* e = registry.find(sdk::Kind::Problem, name);
  if (e == nullptr) {
    const std::string hint = sdk::nearest_name(name, registry.names(sdk::Kind::Problem));
    throw kernel::ConfigError(fmt::format(
        "no problem called '{}' is loaded{}; 'arbo problems' lists them", sdk::excerpt(name),
        hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint)));
  }
  return *e;
}

}  // namespace

int cmd_problems(const std::vector<std::string>& args, const Globals& g) {
  po::options_description opts("arbo problems [options]");
  bool as_json = false;
  opts.add_options()("help,h", "show this help")(
      "json", po::bool_switch(&as_json),
      "print a JSON array with each problem's full space, constraints and optimum");
  po::variables_map vm;
  if (!parse_args(args, opts, {}, vm)) return kernel::kExitOk;
  kernel::PluginRegistry registry = load_registry(g);
  auto logger = kernel::make_logger("arbo", "", g.verbose);
  ojson all = ojson::array();
  bool any_failed = false;
  if (!as_json) {
    std::cout << fmt::format("{:<28} {:>4} {:>4} {:>4} {:>4} {:>4} {:>4} {:>5} {:>12} {:<3}  {}\n",
                             "problem", "dim", "real", "int", "cat", "bin", "bbox", "known", "f*",
                             "dir", "summary");
  }
  bool any_best_known = false;
  for (const kernel::ComponentEntry* e : problem_entries(registry)) {
    std::unique_ptr<ProblemPlugin> pp;
    try {
      pp = load_problem(registry, *e, logger);
    } catch (const kernel::KernelError& err) {
      // One broken problem must not hide the others; the exit code still reports it.
      any_failed = true;
      std::cerr << fmt::format("arbo: error: {}\n", err.what());
      if (as_json)
        all.push_back(ojson{{"id", e->id}, {"name", e->info.name}, {"error", err.what()}});
      continue;
    }
    if (as_json) {
      all.push_back(problem_json(*pp));
      continue;
    }
    const kernel::LoadedProblem* lp = &pp->loaded;
    const TypeCounts t = count_types(lp->space);
    any_best_known = any_best_known || (lp->info.optimum && lp->info.optimum_is_best_known);
    std::cout << fmt::format("{:<28} {:>4} {:>4} {:>4} {:>4} {:>4} {:>4} {:>5} {:>12} {:<3}  {}\n",
                             e->info.name, lp->space.size(), t.real, t.integer, t.categorical,
                             t.binary, lp->constraint_names.size(), lp->known_specs.size(),
                             optimum_text(lp->info), lp->info.maximize ? "max" : "min",
                             e->info.summary);
  }
  if (as_json) {
    std::cout << all.dump(2) << "\n";
  } else {
    std::cout << "\nbbox: black-box constraints (feasible iff <= 0); known: closed-form constraints"
                 " the kernel checks before evaluating";
    std::cout << (any_best_known ? "\n*: best known value, not a proven optimum\n" : "\n");
    std::cout << "'arbo problems --json' adds each problem's space, constraint names and source.\n";
  }
  return any_failed ? kernel::kExitPlugin : kernel::kExitOk;
}

int cmd_problem(const std::vector<std::string>& args, const Globals& g) {
  po::options_description opts(
      "arbo problem eval NAME [options]\n\n"
      "Reads one JSON object per line on stdin, {\"params\": {...}} or the parameter object\n"
      "itself, and prints one JSON line per input: {\"objective\": F, \"constraints\": {...},\n"
      "\"known_constraints\": {...}, \"feasible\": B, \"violation\": V}, or {\"error\": \"...\"}\n"
      "for an input it cannot evaluate. V is the largest constraint violation in each\n"
      "constraint's own units (black-box value above 0, known-constraint excess; 0 when none\n"
      "is violated at all, null for NaN). B is a study's verdict: no black-box value above 0\n"
      "and every known constraint within the study's tolerance, 1e-6 of max(1, 1e-4 x the\n"
      "row's magnitude over the box) for polynomial rows, so a feasible point can have V > 0.\n"
      "An \"id\" in the input is echoed. Each line is flushed at once.\n\n"
      "options");
  std::string action, name;
  double noise = 0.0;
  // Signed, as a study's seed: boost would read "-1" into an unsigned seed as 2^64 - 1.
  std::int64_t seed = 0;
  opts.add_options()("help,h", "show this help")(
      "noise", po::value(&noise),
      "standard deviation of Gaussian noise added to the objective (default 0)")(
      "seed", po::value(&seed),
      "seed of the noise: the n-th input line gets the noise of observation n of a study with "
      "this seed (default 0)")("action", po::value(&action), "eval")("name", po::value(&name),
                                                                     "problem component name");
  po::variables_map vm;
  if (!parse_args(args, opts, {optional_arg("action"), optional_arg("name")}, vm)) {
    return kernel::kExitOk;
  }
  if (action != "eval") {
    throw po::error(action.empty()
                        ? "expected 'eval NAME'"
                        : fmt::format("unknown action '{}'; expected 'eval NAME'", action));
  }
  if (name.empty()) throw po::error("missing problem NAME");
  if (!(noise >= 0.0) || !std::isfinite(noise)) {
    throw po::error(fmt::format("--noise {}: must be a finite number >= 0", noise));
  }
  if (seed < 0) throw po::error(fmt::format("--seed {}: must be >= 0", seed));

  kernel::PluginRegistry registry = load_registry(g);
  const kernel::ComponentEntry& entry = find_problem(registry, name);
  auto logger = kernel::make_logger("arbo", "", g.verbose);
  auto pp = load_problem(registry, entry, logger);
  const kernel::LoadedProblem& lp = pp->loaded;
  const sdk::Space& space = lp.space;
  // `feasible` is what a study would record, so the known constraints are checked by the same
  // components a study makes of them (whose tolerance is relative to large rows).
  kernel::Components study_known;
  study_known.space = space;
  kernel::add_problem_known_constraints(study_known, registry, entry.id, lp, logger, nullptr);
  // The study's own evaluator: the n-th line gets the noise of observation n of a study with
  // this seed.
  const auto evaluator = kernel::make_problem_evaluator(lp.problem, entry.id, *pp->context,
                                                        static_cast<std::uint64_t>(seed), noise);
  Eigen::VectorXd known_values;
  std::int64_t n = 0;
  std::string line;
  bool too_long = false;
  while (read_line(std::cin, line, kernel::kMaxJsonBytes, too_long)) {
    if (!too_long && line.find_first_not_of(" \t\r") == std::string::npos) continue;
    ++n;
    ojson out;
    try {
      if (too_long) {
        throw sdk::InvalidArgument(fmt::format("input line is longer than the limit of {} MiB",
                                               kernel::kMaxJsonBytes >> 20));
      }
      std::string error;
      const std::optional<nlohmann::json> parsed = kernel::parse_bounded_json(line, error);
      if (!parsed) throw sdk::InvalidArgument(fmt::format("input {}", error));
      const nlohmann::json& in = *parsed;
      if (!in.is_object()) throw sdk::InvalidArgument("input is not a JSON object");
      if (auto it = in.find("id"); it != in.end()) out["id"] = *it;
      const auto p = in.find("params");
      const nlohmann::json& params = p != in.end() && p->is_object() ? *p : in;
      nlohmann::json filtered = params;
      if (&params == &in && !space.index_of("id")) filtered.erase("id");
      const Eigen::VectorXd x = kernel::encode_user_point(space, values_of_params(space, filtered));

      const kernel::EvalOutcome eval = evaluator->evaluate(n, x, "");
      if (!eval.ok) throw sdk::InvalidArgument(eval.reason);
      if (static_cast<std::size_t>(eval.constraints.size()) != lp.constraint_names.size()) {
        throw sdk::InvalidArgument(kernel::component_error(
            entry.id, "evaluate",
            fmt::format("returned {} constraint values for {} constraints", eval.constraints.size(),
                        lp.constraint_names.size())));
      }
      const double objective = eval.objective;  // noise included
      bool feasible = true;
      double violation = 0.0;  // NaN (a NaN constraint value) stays NaN
      auto add_violation = [&](double excess) {
        violation = std::isnan(excess) ? excess : std::max(violation, excess);
      };
      ojson cons = ojson::object();
      for (std::size_t k = 0; k < lp.constraint_names.size(); ++k) {
        const double v = eval.constraints[static_cast<Eigen::Index>(k)];
        cons[lp.constraint_names[k]] = v;
        feasible = feasible && v <= 0.0;
        add_violation(std::isnan(v) ? v : std::max(0.0, v));
      }
      ojson known = ojson::object();
      if (lp.known != nullptr && !lp.known_specs.empty()) {
        kernel::guarded_call(entry.id, "known_values",
                             [&] { lp.known->known_values(x, known_values); });
        if (static_cast<std::size_t>(known_values.size()) != lp.known_specs.size()) {
          throw sdk::InvalidArgument(
              kernel::component_error(entry.id, "known_values",
                                      fmt::format("returned {} values for {} known constraints",
                                                  known_values.size(), lp.known_specs.size())));
        }
        for (std::size_t k = 0; k < lp.known_specs.size(); ++k) {
          const double v = known_values[static_cast<Eigen::Index>(k)];
          known[lp.known_specs[k].name] = v;
          feasible = feasible && !std::isnan(v);
          add_violation(std::isnan(v) ? v
                                      : std::max(0.0, kernel::known_excess(lp.known_specs[k], v)));
        }
        feasible = feasible && study_known.known_violation(x) <= kernel::kKnownTolerance;
      }
      out["objective"] = objective;
      out["constraints"] = cons;
      out["known_constraints"] = known;
      out["feasible"] = feasible;
      out["violation"] = violation;  // NaN is written as null
    } catch (const std::exception& e) {
      // A bad line is reported and the stream goes on: a script's driver must not die on it.
      ojson err;
      if (out.contains("id")) err["id"] = out["id"];
      err["error"] = e.what();
      out = std::move(err);
    }
    // A parse error quotes the line, which may hold bytes that are not UTF-8: replaced, since
    // a bad line must never end the stream.
    std::cout << out.dump(-1, ' ', false, ojson::error_handler_t::replace) << "\n" << std::flush;
  }
  return kernel::kExitOk;
}

}  // namespace arbo::cli
