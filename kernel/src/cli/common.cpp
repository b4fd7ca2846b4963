// SPDX-License-Identifier: MIT
#include "cli/common.hpp"

#include <signal.h>

#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include <fmt/format.h>

#include "arbo/kernel/errors.hpp"
#include "arbo/sdk/error.hpp"
#include "arbo/sdk/excerpt.hpp"

namespace po = boost::program_options;

namespace arbo::cli {

namespace {

// At namespace scope, so that they are constant-initialized: the handler never runs a guarded
// static initialization.
std::atomic<bool> g_interrupt{false};
constexpr int kInterruptSignals[] = {SIGINT, SIGTERM, SIGHUP};
// What each of kInterruptSignals did before catch_interrupts(), restored by release_interrupts().
struct sigaction g_previous[3];
bool g_caught[3] = {false, false, false};

extern "C" void on_interrupt(int) {
  g_interrupt.store(true);
  release_interrupts();
}

}  // namespace

bool parse_args(const std::vector<std::string>& args, const po::options_description& opts,
                const std::vector<Positional>& positional, po::variables_map& vm) {
  po::command_line_parser parser(args);
  parser.options(opts);
  // Without positionals the parser is given none, so that stray words stay ignored.
  po::positional_options_description pos;
  for (const auto& p : positional) pos.add(p.name.c_str(), 1);
  if (!positional.empty()) parser.positional(pos);
  po::store(parser.run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << opts;
    return false;
  }
  for (const auto& p : positional) {
    if (p.required && !vm.count(p.name))
      throw po::error(fmt::format("missing argument {}", p.name));
  }
  return true;
}

std::atomic<bool>& interrupt_flag() { return g_interrupt; }

void catch_interrupts() {
  for (std::size_t k = 0; k < std::size(kInterruptSignals); ++k) {
    struct sigaction previous {};
    sigaction(kInterruptSignals[k], nullptr, &previous);
    // An ignored SIGHUP stays ignored: `nohup arbo run` must outlive a hangup. SIGINT and
    // SIGTERM are caught even when ignored, as before: a shell script's `arbo run &` has
    // SIGINT ignored, and `kill -INT` must still stop it cleanly.
    if (kInterruptSignals[k] == SIGHUP && previous.sa_handler == SIG_IGN) continue;
    struct sigaction sa {};
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    // Interrupted reads and writes (the log, the store) resume; the evaluator's poll() wakes
    // up anyway and sees the flag.
    sa.sa_flags = SA_RESTART;
    g_previous[k] = previous;
    g_caught[k] = true;
    sigaction(kInterruptSignals[k], &sa, nullptr);
  }
}

void release_interrupts() {
  // Async-signal-safe: on_interrupt calls it.
  for (std::size_t k = 0; k < std::size(kInterruptSignals); ++k) {
    if (g_caught[k]) sigaction(kInterruptSignals[k], &g_previous[k], nullptr);
  }
}

kernel::PluginRegistry load_registry(const Globals& g) {
  kernel::PluginRegistry registry;
  std::vector<std::string> ignored;
  registry.load_search_path(
      kernel::plugin_search_path(g.plugin_paths, &ignored, g.builtin_plugin_dirs));
  for (const auto& w : ignored) std::cerr << fmt::format("arbo: warning: {}\n", w);
  report_load_failures(registry);
  return registry;
}

void report_load_failures(const kernel::PluginRegistry& registry) {
  for (const auto& f : registry.failures()) {
    std::cerr << fmt::format("arbo: warning: {}\n", f.message);
  }
}

std::string format_number(double v) { return fmt::format("{}", v); }

std::string describe_observation(const kernel::Observation& o,
                                 const std::vector<std::string>& constraint_names) {
  std::string s = fmt::format("obs {} {}", o.id, kernel::to_string(o.status));
  if (o.status == kernel::ObsStatus::Complete) {
    s += fmt::format(" objective={} feasible={}", format_number(o.objective),
                     o.feasible ? "yes" : "no");
    for (std::size_t k = 0;
         k < constraint_names.size() && static_cast<Eigen::Index>(k) < o.constraints.size(); ++k) {
      s += fmt::format(" {}={}", constraint_names[k],
                       format_number(o.constraints[static_cast<Eigen::Index>(k)]));
    }
  } else if (o.status == kernel::ObsStatus::Failed) {
    s += fmt::format(" reason=\"{}\"", o.reason);
  }
  s += " params=" + o.params_json;
  return s;
}

// Converts one JSON value to the user value of parameter `p` (the types of Space::encode).
sdk::Value to_value(const sdk::Parameter& p, const nlohmann::json& v) {
  const auto bad = [&](const std::string& what) {
    return sdk::InvalidArgument(fmt::format("parameter '{}': {}", p.name, what));
  };
  switch (p.type) {
    case sdk::ParamType::Real:
    case sdk::ParamType::Integer:
      if (v.is_number_integer()) {
        return v.is_number_unsigned() ? static_cast<std::int64_t>(v.get<std::uint64_t>())
                                      : v.get<std::int64_t>();
      }
      if (v.is_number_float()) return v.get<double>();
      throw bad(fmt::format("expected a number, got {}", sdk::excerpt(v.dump())));
    case sdk::ParamType::Categorical:
      if (v.is_string()) return v.get<std::string>();
      // Choices that look like numbers ("0".."9") may arrive unquoted from some scripts.
      if (v.is_number_integer()) return std::to_string(v.get<std::int64_t>());
      throw bad(
          fmt::format("expected one of the choices as a string, got {}", sdk::excerpt(v.dump())));
    case sdk::ParamType::Binary:
      if (v.is_boolean()) return v.get<bool>();
      if (v.is_number_integer()) return v.get<std::int64_t>();
      throw bad(fmt::format("expected true or false, got {}", sdk::excerpt(v.dump())));
  }
  throw bad("unknown type");
}

std::vector<sdk::Value> values_of_params(const sdk::Space& space, const nlohmann::json& params) {
  if (!params.is_object()) {
    throw sdk::InvalidArgument("expected a JSON object of parameter values");
  }
  for (const auto& [name, v] : params.items()) {
    if (!space.index_of(name)) {
      std::vector<std::string> names;
      for (const auto& p : space.parameters()) names.push_back(p.name);
      const std::string hint = sdk::nearest_name(name, names);
      throw sdk::InvalidArgument(
          fmt::format("unknown parameter '{}'{}", sdk::excerpt(name),
                      hint.empty() ? "" : fmt::format("; did you mean '{}'?", hint)));
    }
  }
  std::vector<sdk::Value> values(space.size());
  for (std::size_t i = 0; i < space.size(); ++i) {
    auto it = params.find(space[i].name);
    if (it != params.end() && !it->is_null()) values[i] = to_value(space[i], *it);
  }
  return values;
}

}  // namespace arbo::cli
