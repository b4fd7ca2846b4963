// SPDX-License-Identifier: MIT
/// @file
/// @brief Pipeline loading: TOML (plus `--set` overrides) -> validated `Pipeline`.
///
/// The schema is configs/README.md. Every check reports through `config::fail`, so each error
/// names the file, line and dotted key and shows the offending line. Checks run in a fixed
/// order (top-level keys, [study], [problem], constraints, design, plugin slots) over sorted
/// tables, so a file with several mistakes always reports the same one first.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "arbo/kernel/errors.hpp"
#include "arbo/kernel/pipeline.hpp"
#include "arbo/sdk/error.hpp"
#include "arbo/sdk/excerpt.hpp"
#include "config/toml_util.hpp"

namespace arbo::kernel {

const char* to_string(Executor executor) noexcept {
  switch (executor) {
    case Executor::Local: return "local";
    case Executor::Slurm: return "slurm";
  }
  return "unknown";
}

const char* to_string(DesignMethod method) noexcept {
  switch (method) {
    case DesignMethod::Random: return "random";
    case DesignMethod::LatinHypercube: return "lhs";
    case DesignMethod::Sobol: return "sobol";
  }
  return "unknown";
}

namespace {

using config::fail;
using config::join_path;
using config::TomlValue;
using config::type_name;
using Names = std::vector<std::string>;

const Names kTopLevelKeys = {
    "study",     "problem",     "black_box_constraints", "known_constraints", "initial_design",
    "surrogate", "acquisition", "inner_solver",          "model_solver",      "augmentation",
    "proposal"};
const Names kStudyKeys = {"name", "seed", "budget", "direction", "time_limit", "workers"};
const Names kCommandKeys = {"command", "timeout", "workdir", "parameters", "executor", "slurm"};
const Names kSlurmKeys = {"partition",   "memory", "cpus",          "job_name",
                          "sbatch_args", "poll",   "cancel_on_exit"};
const Names kParameterKeys = {"name", "type",    "low",     "high",
                              "log",  "choices", "default", "active_if"};
const Names kBlackBoxKeys = {"name", "sense", "threshold"};
const Names kDesignKeys = {"method", "size"};
const Names kAugmentationKeys = {"cheap_constraints", "points"};
const Names kProposalKeys = {"representative", "known_penalty", "exclude_evaluated", "pending"};
const Names kParamTypes = {"real", "integer", "categorical", "binary"};

constexpr std::int64_t kDefaultDesignSize = 10;
// Largest integer bound of a parameter: 2^53, the integers a double (a point's coordinate)
// holds exactly.
constexpr std::int64_t kMaxExactInteger = std::int64_t{1} << 53;
// Most points drawn at once for the initial design or the knowledge augmentation.
constexpr std::int64_t kMaxDrawnPoints = 1'000'000;
// Most evaluations in flight: each holds two processes and six pipes; beyond this the driver
// would run out of descriptors under the default limit of 1024.
constexpr std::int64_t kMaxWorkers = 128;

bool contains(const Names& names, std::string_view key) {
  return std::find(names.begin(), names.end(), key) != names.end();
}

std::string did_you_mean(std::string_view key, const Names& valid, std::string_view what) {
  const std::string hint = sdk::nearest_name(key, valid);
  if (!hint.empty()) return fmt::format("; did you mean '{}'?", hint);
  return fmt::format("; valid {}: {}", what, fmt::join(valid, ", "));
}

const TomlValue* find_key(const TomlValue& table, std::string_view key) {
  const auto& t = table.as_table();
  const auto it = t.find(std::string(key));
  return it == t.end() ? nullptr : &it->second;
}

void check_keys(const TomlValue& table, std::string_view path, const Names& allowed,
                std::string_view where) {
  for (const auto& [key, value] : table.as_table()) {
    if (contains(allowed, key)) continue;
    if (path.empty() && value.is_table()) {
      const std::string hint = sdk::nearest_name(key, allowed);
      fail(value, key,
           fmt::format("unknown table [{}]{}", sdk::excerpt(key),
                       hint.empty() ? fmt::format("; valid tables: {}", fmt::join(allowed, ", "))
                                    : fmt::format("; did you mean [{}]?", hint)),
           "unknown table");
    }
    fail(value, join_path(path, key),
         fmt::format("unknown key '{}' {}{}", sdk::excerpt(key), where,
                     did_you_mean(key, allowed, "keys")),
         "unknown key");
  }
}

[[noreturn]] void wrong_type(const TomlValue& v, std::string_view path, std::string_view expected) {
  fail(v, path, fmt::format("expected {}, got {}", expected, type_name(v)),
       fmt::format("this is {}", type_name(v)));
}

std::int64_t read_int(const TomlValue& v, std::string_view path, std::string_view expected) {
  if (!v.is_integer()) wrong_type(v, path, expected);
  return v.as_integer();
}

double read_number(const TomlValue& v, std::string_view path, std::string_view expected) {
  if (v.is_integer()) return static_cast<double>(v.as_integer());
  if (!v.is_floating()) wrong_type(v, path, expected);
  return v.as_floating();
}

double read_finite(const TomlValue& v, std::string_view path, std::string_view expected) {
  const double d = read_number(v, path, expected);
  if (!std::isfinite(d))
    fail(v, path, fmt::format("expected {}, got {}", expected, d), "not finite");
  return d;
}

std::string read_string(const TomlValue& v, std::string_view path, std::string_view expected) {
  if (!v.is_string()) wrong_type(v, path, expected);
  return v.as_string().str;
}

std::string read_nonempty_string(const TomlValue& v, std::string_view path,
                                 std::string_view expected) {
  std::string s = read_string(v, path, expected);
  if (s.empty()) fail(v, path, fmt::format("expected {}, got an empty string", expected), "empty");
  return s;
}

bool read_bool(const TomlValue& v, std::string_view path) {
  if (!v.is_boolean()) wrong_type(v, path, "true or false");
  return v.as_boolean();
}

void require_table(const TomlValue& v, std::string_view path, std::string_view header) {
  if (!v.is_table()) wrong_type(v, path, fmt::format("a table {}", header));
}

// An array of tables; each element is checked to be a table.
const std::vector<TomlValue>& read_table_array(const TomlValue& v, std::string_view path,
                                               std::string_view header) {
  if (!v.is_array()) {
    wrong_type(v, path, fmt::format("an array of tables (write each entry as {})", header));
  }
  const auto& array = v.as_array();
  for (std::size_t i = 0; i < array.size(); ++i) {
    if (!array[i].is_table()) {
      wrong_type(array[i], join_path(path, std::to_string(i)),
                 fmt::format("a table (write each entry as {})", header));
    }
  }
  return array;
}

// TOML -> the variant plugins' ParamSpecs are checked against.
sdk::ParamValue to_param_value(const TomlValue& v, std::string_view path) {
  switch (v.type()) {
    case toml::value_t::boolean: return v.as_boolean();
    case toml::value_t::integer: return static_cast<std::int64_t>(v.as_integer());
    case toml::value_t::floating: return v.as_floating();
    case toml::value_t::string: return v.as_string().str;
    case toml::value_t::array: {
      std::vector<double> list;
      for (const auto& e : v.as_array()) {
        if (e.is_integer()) {
          list.push_back(static_cast<double>(e.as_integer()));
        } else if (e.is_floating()) {
          list.push_back(e.as_floating());
        } else {
          fail(e, path, fmt::format("expected an array of numbers, but it holds {}", type_name(e)),
               "not a number");
        }
      }
      return list;
    }
    default: wrong_type(v, path, "a boolean, number, string or array of numbers");
  }
}

// SDK messages read "<id>: ... parameter '<key>' ..."; the dotted key already leads our
// message, so the id moves next to the parameter name it qualifies.
std::string reword_param_error(std::string message, const std::string& id, const std::string& key) {
  const std::string prefix = id + ": ";
  if (message.rfind(prefix, 0) != 0) return message;
  message.erase(0, prefix.size());
  const std::string needle = fmt::format("parameter '{}'", key);
  const auto pos = key.empty() ? std::string::npos : message.find(needle);
  if (pos == std::string::npos) return fmt::format("{} ({})", message, id);
  message.insert(pos + needle.size(), " of " + id);
  return message;
}

sdk::Value to_space_value(const TomlValue& v, std::string_view path) {
  switch (v.type()) {
    case toml::value_t::boolean: return v.as_boolean();
    case toml::value_t::integer: return static_cast<std::int64_t>(v.as_integer());
    case toml::value_t::floating: return v.as_floating();
    case toml::value_t::string: return v.as_string().str;
    default: wrong_type(v, path, "a boolean, number or string");
  }
}

// Which key of a [[problem.parameters]] entry a `Space` validation message is about.
std::string key_of_space_error(std::string_view message) {
  if (message.find("condition") != std::string_view::npos) return "active_if";
  if (message.find("default") != std::string_view::npos) return "default";
  if (message.find("log scale") != std::string_view::npos) return "log";
  if (message.find("choice") != std::string_view::npos) return "choices";
  if (message.find("bound") != std::string_view::npos) return "low";
  return {};
}

std::string default_study_name(const std::string& path) {
  std::string stem = std::filesystem::path(path).stem().string();
  return stem.empty() ? "study" : stem;
}

class PipelineReader {
 public:
  PipelineReader(const TomlValue& root, const std::string& path, const ComponentLookup& lookup)
      : root_(root), path_(path), lookup_(lookup) {}
  // `arbo solve --set` checks a component's parameters the way a pipeline table is checked.
  friend sdk::ParamSet kernel::read_component_params(const std::vector<std::string>& overrides,
                                                     const sdk::ComponentInfo& info,
                                                     const std::string& id,
                                                     std::vector<std::string>* given);

  Pipeline read() {
    Pipeline p;
    p.source_path = path_;
    check_keys(root_, "", kTopLevelKeys, "at the top level");
    read_study(p);
    read_problem(p);
    read_black_box(p);
    read_known_constraints(p);
    read_design(p);
    read_model(p);
    read_augmentation(p);
    read_proposal(p);
    const TomlValue* solver = find_key(root_, "inner_solver");
    if (solver == nullptr) {
      fail(root_, "inner_solver", "the pipeline has no [inner_solver] table", "in this file",
           {fmt::format("add [inner_solver] with plugin = \"<name>\"{}",
                        available_suffix(sdk::Kind::InnerSolver))});
    }
    p.inner_solver = read_component(*solver, "inner_solver", sdk::Kind::InnerSolver);
    return p;
  }

 private:
  Names plugin_names(sdk::Kind kind) const {
    Names names = lookup_.names ? lookup_.names(kind) : Names{};
    std::sort(names.begin(), names.end());
    return names;
  }

  std::string available_suffix(sdk::Kind kind) const {
    const Names names = plugin_names(kind);
    if (names.empty()) return fmt::format(" (no {} plugins are loaded)", sdk::to_string(kind));
    return fmt::format(" (available: {})", fmt::join(names, ", "));
  }

  const sdk::ComponentInfo& resolve(const TomlValue& table, const std::string& path,
                                    sdk::Kind kind) const {
    const TomlValue* plugin = find_key(table, "plugin");
    if (plugin == nullptr) {
      fail(table, join_path(path, "plugin"),
           fmt::format("missing key 'plugin'; name the {} component to use{}", sdk::to_string(kind),
                       available_suffix(kind)),
           "in this table");
    }
    const std::string key = join_path(path, "plugin");
    const std::string name = read_string(*plugin, key, "a plugin name (a string)");
    const sdk::ComponentInfo* info = lookup_.find ? lookup_.find(kind, name) : nullptr;
    if (info == nullptr) {
      const Names names = plugin_names(kind);
      std::string message =
          fmt::format("unknown {} plugin '{}'", sdk::to_string(kind), sdk::excerpt(name));
      if (names.empty()) {
        message += fmt::format("; no {} plugins are loaded", sdk::to_string(kind));
      } else {
        message += did_you_mean(name, names, "plugins");
      }
      fail(*plugin, key, message, "unknown plugin", {"`arbo plugins` lists the loaded components"});
    }
    return *info;
  }

  // The table's keys other than `plugin` are the component's parameters.
  // `reserved` lists further keys of the table that belong to the kernel.
  static sdk::ParamSet read_params(const TomlValue& table, const std::string& path,
                                   const sdk::ComponentInfo& info, const std::string& id,
                                   const std::vector<std::string>& reserved = {}) {
    std::map<std::string, sdk::ParamValue> raw;
    for (const auto& [key, value] : table.as_table()) {
      if (key == "plugin" || contains(reserved, key)) continue;
      raw.emplace(key, to_param_value(value, join_path(path, key)));
    }
    const sdk::ParamSpecList& specs = info.params();
    try {
      return sdk::validate_params(specs, raw, id);
    } catch (const sdk::ParamError& e) {
      const TomlValue* where = e.key().empty() ? nullptr : find_key(table, e.key());
      const auto spec = std::find_if(specs.begin(), specs.end(),
                                     [&](const sdk::ParamSpec& s) { return s.name == e.key(); });
      const std::string message = reword_param_error(e.what(), id, e.key());
      if (spec == specs.end()) {
        fail(where != nullptr ? *where : table, where != nullptr ? join_path(path, e.key()) : path,
             message, "unknown parameter",
             {fmt::format("`arbo plugins --params` lists the parameters of {}", id)});
      }
      fail(where != nullptr ? *where : table, where != nullptr ? join_path(path, e.key()) : path,
           message, fmt::format("expected {}", spec->domain()));
    }
  }

  ComponentSpec read_component(const TomlValue& table, const std::string& path,
                               sdk::Kind kind) const {
    require_table(table, path, fmt::format("[{}]", path));
    const sdk::ComponentInfo& info = resolve(table, path, kind);
    ComponentSpec spec;
    spec.kind = kind;
    spec.name = info.name;
    spec.params = read_params(table, path, info, spec.id());
    return spec;
  }

  void read_study(Pipeline& p) const {
    p.name = default_study_name(path_);
    const TomlValue* study = find_key(root_, "study");
    if (study == nullptr) return;
    require_table(*study, "study", "[study]");
    check_keys(*study, "study", kStudyKeys, "in [study]");
    if (const auto* v = find_key(*study, "name")) {
      p.name = read_nonempty_string(*v, "study.name", "a non-empty string");
    }
    if (const auto* v = find_key(*study, "seed")) {
      const std::int64_t seed = read_int(*v, "study.seed", "an integer >= 0");
      if (seed < 0) fail(*v, "study.seed", fmt::format("must be >= 0, got {}", seed), "negative");
      p.seed = static_cast<std::uint64_t>(seed);
    }
    if (const auto* v = find_key(*study, "budget")) {
      p.budget = read_int(*v, "study.budget", "an integer >= 1 (the number of evaluations)");
      if (p.budget < 1) {
        fail(*v, "study.budget",
             fmt::format("must be >= 1 (the number of evaluations), got {}", p.budget),
             "too small");
      }
    }
    if (const auto* v = find_key(*study, "direction")) {
      const std::string d = read_string(*v, "study.direction", "\"minimize\" or \"maximize\"");
      if (d != "minimize" && d != "maximize") {
        const std::string hint = sdk::nearest_name(d, {"minimize", "maximize"});
        fail(*v, "study.direction",
             fmt::format("must be \"minimize\" or \"maximize\", got \"{}\"{}", sdk::excerpt(d),
                         hint.empty() ? "" : fmt::format("; did you mean \"{}\"?", hint)),
             "unknown direction");
      }
      p.maximize = d == "maximize";
    }
    if (const auto* v = find_key(*study, "time_limit")) {
      p.time_limit_seconds = read_number(*v, "study.time_limit", "a number of seconds >= 0");
      if (!(p.time_limit_seconds >= 0) || std::isinf(p.time_limit_seconds)) {
        fail(*v, "study.time_limit",
             fmt::format("must be a finite number of seconds >= 0 (0 = no limit), got {}",
                         p.time_limit_seconds),
             "out of range");
      }
      if (p.time_limit_seconds > kMaxSeconds) {
        fail(*v, "study.time_limit",
             fmt::format("must be at most {:.0f} seconds (about 31 years), got {}", kMaxSeconds,
                         p.time_limit_seconds),
             "too long");
      }
    }
    if (const auto* v = find_key(*study, "workers")) {
      p.workers = read_int(*v, "study.workers", "an integer >= 1 (evaluations run at once)");
      if (p.workers < 1 || p.workers > kMaxWorkers) {
        fail(*v, "study.workers",
             fmt::format("must be between 1 and {} (evaluations run at once), got {}", kMaxWorkers,
                         p.workers),
             "out of range");
      }
    }
  }

  void read_problem(Pipeline& p) const {
    const TomlValue* problem = find_key(root_, "problem");
    if (problem == nullptr) {
      fail(root_, "problem", "the pipeline has no [problem] table", "in this file",
           {"add [problem] with plugin = \"<name>\" (a built-in problem) or command = [...] "
            "(an external command)"});
    }
    require_table(*problem, "problem", "[problem]");
    const TomlValue* plugin = find_key(*problem, "plugin");
    const TomlValue* command = find_key(*problem, "command");
    if (plugin != nullptr && command != nullptr) {
      fail(*plugin, "built-in problem", *command, "external command", "problem",
           "has both 'plugin' and 'command'; keep 'plugin' for a built-in problem or 'command' "
           "for an external one");
    }
    if (plugin != nullptr) {
      read_plugin_problem(*problem, p.problem);
    } else if (command != nullptr) {
      read_command_problem(*problem, p.problem);
    } else {
      fail(*problem, "problem", "missing key 'plugin' or 'command'", "in this table",
           {fmt::format("write plugin = \"<name>\" for a built-in problem{}, or "
                        "command = [\"prog\", \"arg\"] for an external command",
                        available_suffix(sdk::Kind::Problem))});
    }
  }

  void read_plugin_problem(const TomlValue& table, ProblemSpec& problem) const {
    const sdk::ComponentInfo& info = resolve(table, "problem", sdk::Kind::Problem);
    // Keys of the external-command form get a clearer message than "unknown parameter",
    // unless the problem happens to take a parameter of that name.
    const sdk::ParamSpecList& specs = info.params();
    for (const auto& [key, value] : table.as_table()) {
      // A plain reference: clang 14 cannot capture a structured binding.
      const std::string& name = key;
      const bool is_param = std::any_of(specs.begin(), specs.end(),
                                        [&](const sdk::ParamSpec& s) { return s.name == name; });
      if (!is_param && contains(kCommandKeys, key)) {
        fail(value, join_path("problem", key),
             fmt::format("'{}' applies only to an external command (problem.command), not to "
                         "the built-in problem problem/{}",
                         key, info.name),
             "remove this", {"a built-in problem defines its own space and evaluation"});
      }
    }
    // `noise` belongs to the kernel, not to the problem: any built-in problem can be run with
    // additive Gaussian noise on its objective.
    if (const auto* v = find_key(table, "noise")) {
      problem.noise = read_finite(*v, "problem.noise", "a standard deviation >= 0");
      if (problem.noise < 0) {
        fail(*v, "problem.noise",
             fmt::format("must be a standard deviation >= 0, got {}", problem.noise), "negative");
      }
    }
    ComponentSpec spec;
    spec.kind = sdk::Kind::Problem;
    spec.name = info.name;
    spec.params = read_params(table, "problem", info, spec.id(), {"noise"});
    problem.plugin = std::move(spec);
  }

  void read_command_problem(const TomlValue& table, ProblemSpec& problem) const {
    check_keys(table, "problem", kCommandKeys, "in [problem] (an external command)");
    const TomlValue& command = *find_key(table, "command");
    if (command.is_string()) {
      const std::string line = command.as_string().str;
      if (line.find_first_not_of(" \t") == std::string::npos) {
        fail(command, "problem.command", "is empty; give the command to run", "empty command");
      }
      problem.command = {"/bin/sh", "-c", line};
    } else if (command.is_array()) {
      const auto& argv = command.as_array();
      if (argv.empty()) {
        fail(command, "problem.command",
             "is empty; give the program and its arguments, e.g. [\"python3\", \"objective.py\"]",
             "empty command");
      }
      for (std::size_t i = 0; i < argv.size(); ++i) {
        problem.command.push_back(
            read_string(argv[i], fmt::format("problem.command.{}", i), "a string"));
      }
      if (problem.command.front().empty()) {
        fail(argv.front(), "problem.command.0", "the program name is empty", "empty");
      }
    } else {
      wrong_type(command, "problem.command",
                 "an array of strings (argv) or a string (run by /bin/sh -c)");
    }
    if (const auto* v = find_key(table, "timeout")) {
      problem.timeout_seconds = read_number(*v, "problem.timeout", "a number of seconds > 0");
      if (!(problem.timeout_seconds > 0) || std::isinf(problem.timeout_seconds)) {
        fail(*v, "problem.timeout",
             fmt::format("must be a finite number of seconds > 0, got {}", problem.timeout_seconds),
             "out of range");
      }
      // The evaluator's deadline counts nanoseconds of the steady clock in 64 bits: 1e10 s
      // overflowed it into the past and every evaluation timed out at once.
      if (problem.timeout_seconds > kMaxSeconds) {
        fail(*v, "problem.timeout",
             fmt::format("must be at most {:.0f} seconds (about 31 years), got {}", kMaxSeconds,
                         problem.timeout_seconds),
             "too long");
      }
    }
    if (const auto* v = find_key(table, "workdir")) {
      problem.working_directory = read_string(*v, "problem.workdir", "a directory (a string)");
    }
    read_executor(table, problem);
    const TomlValue* params = find_key(table, "parameters");
    if (params == nullptr || (params->is_array() && params->as_array().empty())) {
      fail(params != nullptr ? *params : table, "problem.parameters",
           "an external command needs a search space; declare at least one "
           "[[problem.parameters]]",
           "no parameters");
    }
    read_parameters(*params, problem.parameters);
  }

  // [problem] executor and [problem.slurm] (docs/slurm.md).
  void read_executor(const TomlValue& table, ProblemSpec& problem) const {
    const TomlValue* slurm = find_key(table, "slurm");
    if (const auto* v = find_key(table, "executor")) {
      const std::string name = read_string(*v, "problem.executor", "\"local\" or \"slurm\"");
      if (name == "slurm") {
        problem.executor = Executor::Slurm;
      } else if (name != "local") {
        fail(*v, "problem.executor",
             fmt::format("unknown executor '{}'; valid: local, slurm", sdk::excerpt(name)),
             "unknown executor");
      }
    }
    if (slurm == nullptr) return;
    if (problem.executor != Executor::Slurm) {
      fail(*slurm, "problem.slurm", "applies only with executor = \"slurm\"",
           "without executor = \"slurm\"", {"add executor = \"slurm\" to [problem]"});
    }
    require_table(*slurm, "problem.slurm", "[problem.slurm]");
    check_keys(*slurm, "problem.slurm", kSlurmKeys, "in [problem.slurm]");
    SlurmOptions& o = problem.slurm;
    // Each value becomes one argument of sbatch (no shell): a newline or a NUL in one would
    // make a job script or an argument that says something else than the file.
    const auto text = [&](const char* key, const char* expected) -> std::optional<std::string> {
      const auto* v = find_key(*slurm, key);
      if (v == nullptr) return std::nullopt;
      const std::string path = join_path("problem.slurm", key);
      std::string s = read_nonempty_string(*v, path, expected);
      if (s.find_first_of(std::string("\n\r\0", 3)) != std::string::npos) {
        fail(*v, path, "must be one line", "line break");
      }
      return s;
    };
    if (auto s = text("partition", "a partition name (a string)")) o.partition = *s;
    if (auto s = text("memory", "a memory size as sbatch --mem takes it, e.g. \"4G\"")) {
      o.memory = *s;
    }
    if (auto s = text("job_name", "a job name prefix (a string)")) o.job_name = *s;
    if (const auto* v = find_key(*slurm, "cpus")) {
      o.cpus = read_int(*v, "problem.slurm.cpus", "an integer >= 1 (CPUs per job)");
      if (o.cpus < 1 || o.cpus > 1'000'000) {
        fail(*v, "problem.slurm.cpus", fmt::format("must be an integer >= 1, got {}", o.cpus),
             "out of range");
      }
    }
    if (const auto* v = find_key(*slurm, "sbatch_args")) {
      if (!v->is_array()) wrong_type(*v, "problem.slurm.sbatch_args", "an array of strings");
      const auto& array = v->as_array();
      for (std::size_t i = 0; i < array.size(); ++i) {
        const std::string path = fmt::format("problem.slurm.sbatch_args.{}", i);
        std::string arg = read_nonempty_string(array[i], path, "an sbatch argument (a string)");
        if (arg.find_first_of(std::string("\n\r\0", 3)) != std::string::npos) {
          fail(array[i], path, "must be one line", "line break");
        }
        o.sbatch_args.push_back(std::move(arg));
      }
    }
    if (const auto* v = find_key(*slurm, "poll")) {
      o.poll_seconds = read_number(*v, "problem.slurm.poll", "a number of seconds > 0");
      if (!(o.poll_seconds >= 0.1) || o.poll_seconds > 86400) {
        fail(*v, "problem.slurm.poll",
             fmt::format("must be between 0.1 and 86400 seconds, got {}", o.poll_seconds),
             "out of range");
      }
    }
    if (const auto* v = find_key(*slurm, "cancel_on_exit")) {
      o.cancel_on_exit = read_bool(*v, "problem.slurm.cancel_on_exit");
    }
  }

  void read_parameters(const TomlValue& value, std::vector<sdk::Parameter>& out) const {
    const auto& array = read_table_array(value, "problem.parameters", "[[problem.parameters]]");
    std::map<std::string, const TomlValue*> names;
    for (std::size_t i = 0; i < array.size(); ++i) {
      const std::string path = fmt::format("problem.parameters.{}", i);
      out.push_back(read_parameter(array[i], path));
      const TomlValue& name = *find_key(array[i], "name");
      const auto [it, inserted] = names.emplace(out.back().name, &name);
      if (!inserted) {
        fail(*it->second, "first declared here", name, "declared again here",
             join_path(path, "name"),
             fmt::format("duplicate parameter name '{}'; each parameter needs its own name",
                         sdk::excerpt(out.back().name)));
      }
    }
    check_space(array, out);
  }

  static sdk::Parameter read_parameter(const TomlValue& table, const std::string& path) {
    check_keys(table, path, kParameterKeys, "in [[problem.parameters]]");
    const auto key = [&](std::string_view k) { return join_path(path, k); };
    sdk::Parameter p;
    const TomlValue* name = find_key(table, "name");
    if (name == nullptr) {
      fail(table, key("name"), "missing key 'name'", "this parameter has no name",
           {"write name = \"<name>\"; the command receives the value under that name"});
    }
    p.name = read_nonempty_string(*name, key("name"), "a non-empty string");
    const TomlValue* type = find_key(table, "type");
    if (type == nullptr) {
      fail(table, key("type"), fmt::format("missing key 'type' of parameter '{}'", p.name),
           "this parameter has no type",
           {fmt::format("write type = \"real\" (or {})", fmt::join(kParamTypes, ", "))});
    }
    const std::string type_text = read_string(*type, key("type"), "a parameter type (a string)");
    const auto parsed_type = sdk::param_type_from_string(type_text);
    if (!parsed_type) {
      fail(*type, key("type"),
           fmt::format("unknown parameter type '{}'{}", sdk::excerpt(type_text),
                       did_you_mean(type_text, kParamTypes, "types")),
           "unknown type");
    }
    p.type = *parsed_type;
    const bool numeric = p.type == sdk::ParamType::Real || p.type == sdk::ParamType::Integer;
    const char* type_label = sdk::to_string(p.type);

    const auto forbid = [&](std::string_view k, std::string_view applies_to) {
      if (const auto* v = find_key(table, k)) {
        fail(*v, key(k),
             fmt::format("'{}' applies only to {} parameters, and '{}' is {}", k, applies_to,
                         p.name, type_label),
             "remove this");
      }
    };
    const auto require = [&](std::string_view k, std::string_view example) -> const TomlValue& {
      const auto* v = find_key(table, k);
      if (v == nullptr) {
        fail(table, key(k),
             fmt::format("missing key '{}' of {} parameter '{}'", k, type_label, p.name),
             "in this table", {fmt::format("write {}", example)});
      }
      return *v;
    };
    if (!numeric) {
      forbid("low", "real and integer");
      forbid("high", "real and integer");
      forbid("log", "real and integer");
    }
    if (p.type != sdk::ParamType::Categorical) forbid("choices", "categorical");

    if (numeric) {
      const TomlValue& low = require("low", "low = <lower bound>");
      const TomlValue& high = require("high", "high = <upper bound>");
      if (p.type == sdk::ParamType::Integer) {
        // Points are encoded as doubles, which hold every integer only up to 2^53.
        const auto read_bound = [&](const TomlValue& v, std::string_view k) {
          const std::int64_t i = read_int(v, key(k), "an integer");
          if (i < -kMaxExactInteger || i > kMaxExactInteger) {
            fail(v, key(k),
                 fmt::format("must lie within +-{} (2^53, the integers a point's coordinate holds "
                             "exactly), got {}",
                             kMaxExactInteger, i),
                 "out of range");
          }
          return static_cast<double>(i);
        };
        p.lower = read_bound(low, "low");
        p.upper = read_bound(high, "high");
      } else {
        p.lower = read_finite(low, key("low"), "a finite number");
        p.upper = read_finite(high, key("high"), "a finite number");
      }
      if (p.lower > p.upper) {
        fail(low, "lower bound", high, "upper bound", key("low"),
             fmt::format("low ({}) is above high ({}) for parameter '{}'", p.lower, p.upper,
                         sdk::excerpt(p.name)));
      }
      // Points are drawn as low + u (high - low): a width beyond the largest double gives
      // nothing but the bounds.
      if (!std::isfinite(p.upper - p.lower)) {
        fail(low, "lower bound", high, "upper bound", key("low"),
             fmt::format("the range of parameter '{}' from {} to {} is wider than a double can "
                         "hold (high - low overflows); narrow it or rescale the parameter",
                         sdk::excerpt(p.name), p.lower, p.upper));
      }
      if (const auto* v = find_key(table, "log")) p.log_scale = read_bool(*v, key("log"));
    }
    if (p.type == sdk::ParamType::Categorical) {
      const TomlValue& choices = require("choices", "choices = [\"a\", \"b\"]");
      if (!choices.is_array()) wrong_type(choices, key("choices"), "an array of strings");
      for (const auto& c : choices.as_array()) {
        p.choices.push_back(read_string(c, key("choices"), "an array of strings"));
      }
    }
    if (const auto* v = find_key(table, "default"))
      p.default_value = read_default(*v, p, key("default"));
    if (const auto* v = find_key(table, "active_if"))
      p.condition = read_condition(*v, key("active_if"));
    return p;
  }

  // The default in the parameter's own type, so that it is written back the same way.
  static sdk::Value read_default(const TomlValue& v, const sdk::Parameter& p,
                                 const std::string& path) {
    switch (p.type) {
      case sdk::ParamType::Real: return read_number(v, path, "a number");
      case sdk::ParamType::Integer:
        return static_cast<std::int64_t>(read_int(v, path, "an integer"));
      case sdk::ParamType::Categorical:
        return read_string(v, path, "one of the choices (a string)");
      case sdk::ParamType::Binary: return read_bool(v, path);
    }
    return {};
  }

  static sdk::Condition read_condition(const TomlValue& v, const std::string& path) {
    if (!v.is_table() || v.as_table().size() != 1) {
      fail(v, path,
           "expected a table with one parent and its values, e.g. active_if = { optimizer = "
           "[\"adam\"] }",
           v.is_table() ? "give exactly one parent" : fmt::format("this is {}", type_name(v)));
    }
    const auto& [parent, values] = *v.as_table().begin();
    sdk::Condition c;
    c.parent = parent;
    const std::string values_path = join_path(path, parent);
    if (values.is_array()) {
      for (const auto& e : values.as_array()) c.values.push_back(to_space_value(e, values_path));
    } else {
      c.values.push_back(to_space_value(values, values_path));
    }
    return c;
  }

  // `Space` has the final word on bounds, choices, defaults and conditions. When it refuses,
  // rebuild it one parameter at a time to find which entry (and guess which key) to point at.
  static void check_space(const std::vector<TomlValue>& array,
                          const std::vector<sdk::Parameter>& params) {
    try {
      sdk::Space space(params);
      return;
    } catch (const sdk::InvalidArgument&) {
    }
    for (std::size_t n = 1; n <= params.size(); ++n) {
      try {
        sdk::Space space(
            std::vector<sdk::Parameter>(params.begin(), params.begin() + static_cast<long>(n)));
      } catch (const sdk::InvalidArgument& e) {
        const TomlValue& table = array[n - 1];
        const std::string path = fmt::format("problem.parameters.{}", n - 1);
        const std::string key = key_of_space_error(e.what());
        const TomlValue* where = key.empty() ? nullptr : find_key(table, key);
        // Space nests "parameter 'x': default: parameter 'x': ..."; say the name once.
        std::string message = e.what();
        const std::string self = fmt::format("parameter '{}': ", params[n - 1].name);
        for (auto pos = message.find(self, self.size()); pos != std::string::npos;
             pos = message.find(self, pos)) {
          message.erase(pos, self.size());
        }
        fail(where != nullptr ? *where : table, where != nullptr ? join_path(path, key) : path,
             message, "invalid");
      }
    }
  }

  void read_black_box(Pipeline& p) const {
    const TomlValue* value = find_key(root_, "black_box_constraints");
    if (value == nullptr) return;
    const auto& array =
        read_table_array(*value, "black_box_constraints", "[[black_box_constraints]]");
    if (p.problem.plugin && !array.empty()) {
      fail(array.front(), "black_box_constraints",
           fmt::format("[[black_box_constraints]] is only for an external command; the built-in "
                       "problem {} declares its own constraints",
                       p.problem.plugin->id()),
           "remove this table");
    }
    std::map<std::string, const TomlValue*> names;
    for (std::size_t i = 0; i < array.size(); ++i) {
      const TomlValue& table = array[i];
      const std::string path = fmt::format("black_box_constraints.{}", i);
      const auto key = [&](std::string_view k) { return join_path(path, k); };
      check_keys(table, path, kBlackBoxKeys, "in [[black_box_constraints]]");
      BlackBoxConstraint c;
      const TomlValue* name = find_key(table, "name");
      if (name == nullptr) {
        fail(table, key("name"), "missing key 'name'", "this constraint has no name",
             {"write name = \"<name>\"; the command reports the value under that name"});
      }
      c.name = read_nonempty_string(*name, key("name"), "a non-empty string");
      const auto [it, inserted] = names.emplace(c.name, name);
      if (!inserted) {
        fail(*it->second, "first declared here", *name, "declared again here", key("name"),
             fmt::format("duplicate constraint name '{}'; each constraint needs its own name",
                         sdk::excerpt(c.name)));
      }
      if (const auto* v = find_key(table, "sense")) {
        const std::string sense = read_string(*v, key("sense"), "\"<=\" or \">=\"");
        if (sense != "<=" && sense != ">=") {
          fail(*v, key("sense"),
               fmt::format("must be \"<=\" or \">=\", got \"{}\"", sdk::excerpt(sense)),
               "unknown sense");
        }
        c.less_equal = sense == "<=";
      }
      const TomlValue* threshold = find_key(table, "threshold");
      if (threshold == nullptr) {
        fail(table, key("threshold"),
             fmt::format("missing key 'threshold' of constraint '{}'", c.name), "in this table",
             {"write threshold = <number>; the constraint holds when value <= threshold "
              "(or >= with sense = \">=\")"});
      }
      c.threshold = read_finite(*threshold, key("threshold"), "a finite number");
      p.black_box.push_back(std::move(c));
    }
  }

  void read_known_constraints(Pipeline& p) const {
    const TomlValue* value = find_key(root_, "known_constraints");
    if (value == nullptr) return;
    const auto& array = read_table_array(*value, "known_constraints", "[[known_constraints]]");
    for (std::size_t i = 0; i < array.size(); ++i) {
      const std::string path = fmt::format("known_constraints.{}", i);
      ComponentSpec spec = read_component(array[i], path, sdk::Kind::Constraint);
      // Only the plugin can judge an expression, when it is created: its errors then name
      // where the table and each of its values were written.
      spec.sources.emplace("", fmt::format("{} ({})", config::where(array[i]), path));
      for (const auto& [key, entry] : array[i].as_table()) {
        spec.sources.emplace(key,
                             fmt::format("{} ({})", config::where(entry), join_path(path, key)));
      }
      p.known_constraints.push_back(std::move(spec));
    }
  }

  void read_design(Pipeline& p) const {
    p.design_size = std::min(kDefaultDesignSize, p.budget);
    const TomlValue* design = find_key(root_, "initial_design");
    if (design == nullptr) return;
    require_table(*design, "initial_design", "[initial_design]");
    check_keys(*design, "initial_design", kDesignKeys, "in [initial_design]");
    if (const auto* v = find_key(*design, "method")) {
      const std::string m = read_string(*v, "initial_design.method", "random, lhs or sobol");
      if (m == "random") {
        p.design = DesignMethod::Random;
      } else if (m == "lhs") {
        p.design = DesignMethod::LatinHypercube;
      } else if (m == "sobol") {
        p.design = DesignMethod::Sobol;
      } else {
        fail(*v, "initial_design.method",
             fmt::format("unknown method '{}'{}", sdk::excerpt(m),
                         did_you_mean(m, {"random", "lhs", "sobol"}, "methods")),
             "unknown method");
      }
    }
    if (const auto* v = find_key(*design, "size")) {
      p.design_size = read_int(*v, "initial_design.size", "an integer >= 0");
      if (p.design_size < 0) {
        fail(*v, "initial_design.size", fmt::format("must be >= 0, got {}", p.design_size),
             "negative");
      }
      if (p.design_size > kMaxDrawnPoints) {
        fail(*v, "initial_design.size",
             fmt::format("must be at most {} (the design is drawn at once), got {}",
                         kMaxDrawnPoints, p.design_size),
             "too large");
      }
      if (p.design_size > p.budget) {
        const TomlValue* study = find_key(root_, "study");
        const TomlValue* budget = study != nullptr ? find_key(*study, "budget") : nullptr;
        const std::string message = fmt::format(
            "initial_design.size ({}) exceeds study.budget ({}{}); lower the size or raise the "
            "budget",
            p.design_size, p.budget, budget != nullptr ? "" : ", the default");
        if (budget != nullptr) {
          fail(*budget, "the budget", *v, "the design size", "initial_design.size", message);
        }
        fail(*v, "initial_design.size", message, "too large");
      }
    }
  }

  void read_model(Pipeline& p) const {
    const TomlValue* surrogate = find_key(root_, "surrogate");
    const TomlValue* acquisition = find_key(root_, "acquisition");
    if (surrogate != nullptr) {
      p.surrogate = read_component(*surrogate, "surrogate", sdk::Kind::Surrogate);
    }
    if (acquisition != nullptr) {
      p.acquisition = read_component(*acquisition, "acquisition", sdk::Kind::Acquisition);
    }
    // The model solver plugins reach through Context::model_solver() for auxiliary models
    // (projections, bound tightening): an inner_solver component that is also a ModelSolver.
    if (const TomlValue* ms = find_key(root_, "model_solver")) {
      p.model_solver = read_component(*ms, "model_solver", sdk::Kind::InnerSolver);
    }
    if (surrogate != nullptr && acquisition == nullptr) {
      fail(*surrogate, "surrogate",
           "[surrogate] needs an [acquisition] table too: a model-based pipeline has both, a "
           "model-free one neither",
           "no [acquisition] in this file",
           {fmt::format("add [acquisition] with plugin = \"<name>\"{}, or remove [surrogate]",
                        available_suffix(sdk::Kind::Acquisition))});
    }
    if (acquisition != nullptr && surrogate == nullptr) {
      fail(*acquisition, "acquisition",
           "[acquisition] needs a [surrogate] table too: a model-based pipeline has both, a "
           "model-free one neither",
           "no [surrogate] in this file",
           {fmt::format("add [surrogate] with plugin = \"<name>\"{}, or remove [acquisition]",
                        available_suffix(sdk::Kind::Surrogate))});
    }
  }

  // [proposal]: how the solver's answer becomes the proposal (ProposalOptions).
  void read_proposal(Pipeline& p) const {
    const TomlValue* table = find_key(root_, "proposal");
    if (table == nullptr) return;
    require_table(*table, "proposal", "[proposal]");
    check_keys(*table, "proposal", kProposalKeys, "in [proposal]");
    if (const auto* v = find_key(*table, "representative")) {
      p.proposal.representative = read_bool(*v, "proposal.representative");
    }
    if (const auto* v = find_key(*table, "exclude_evaluated")) {
      p.proposal.exclude_evaluated = read_bool(*v, "proposal.exclude_evaluated");
    }
    if (const auto* v = find_key(*table, "pending")) {
      const std::vector<std::string> rules = {"constant_liar_worst", "constant_liar_best",
                                              "constant_liar_mean", "ignore"};
      const std::string r = read_string(*v, "proposal.pending", "a pending-point rule");
      const auto it = std::find(rules.begin(), rules.end(), r);
      if (it == rules.end()) {
        const std::string hint = sdk::nearest_name(r, rules);
        fail(*v, "proposal.pending",
             fmt::format("must be one of \"{}\", got \"{}\"{}", fmt::join(rules, "\", \""),
                         sdk::excerpt(r),
                         hint.empty() ? "" : fmt::format("; did you mean \"{}\"?", hint)),
             "unknown rule");
      }
      p.proposal.pending = static_cast<ProposalOptions::Pending>(it - rules.begin());
    }
    if (const auto* v = find_key(*table, "known_penalty")) {
      p.proposal.known_penalty =
          read_finite(*v, "proposal.known_penalty", "a finite number >= 0 (0: off)");
      if (p.proposal.known_penalty < 0.0) {
        fail(*v, "proposal.known_penalty",
             fmt::format("must be >= 0 (0: off), got {}", p.proposal.known_penalty), "negative");
      }
    }
  }

  // [augmentation]: c-TPE's knowledge augmentation. Names of a built-in problem's constraints
  // are checked by the engine, which is the first to know them.
  void read_augmentation(Pipeline& p) const {
    const TomlValue* table = find_key(root_, "augmentation");
    if (table == nullptr) return;
    require_table(*table, "augmentation", "[augmentation]");
    check_keys(*table, "augmentation", kAugmentationKeys, "in [augmentation]");
    const TomlValue* names = find_key(*table, "cheap_constraints");
    if (names == nullptr) {
      fail(*table, "augmentation.cheap_constraints", "missing key 'cheap_constraints'",
           "in this table",
           {"write cheap_constraints = [\"<name>\", ...]: the black-box constraints that are "
            "cheap to evaluate on their own"});
    }
    if (!names->is_array())
      wrong_type(*names, "augmentation.cheap_constraints", "an array of names");
    const auto& array = names->as_array();
    if (array.empty()) {
      fail(*names, "augmentation.cheap_constraints",
           "must name at least one black-box constraint (remove [augmentation] to turn it off)",
           "empty");
    }
    for (std::size_t i = 0; i < array.size(); ++i) {
      const std::string key = fmt::format("augmentation.cheap_constraints.{}", i);
      std::string name = read_nonempty_string(array[i], key, "a constraint name (a string)");
      if (contains(p.augmentation.cheap_constraints, name)) {
        fail(array[i], key, fmt::format("constraint '{}' is listed twice", sdk::excerpt(name)),
             "again here");
      }
      if (!p.problem.plugin) {
        Names declared;
        for (const auto& c : p.black_box) declared.push_back(c.name);
        if (!contains(declared, name)) {
          fail(array[i], key,
               fmt::format("unknown black-box constraint '{}'{}", sdk::excerpt(name),
                           declared.empty() ? std::string("; the problem declares none")
                                            : did_you_mean(name, declared, "constraints")),
               "not in [[black_box_constraints]]");
        }
      }
      p.augmentation.cheap_constraints.push_back(std::move(name));
    }
    if (const auto* v = find_key(*table, "points")) {
      p.augmentation.points = read_int(*v, "augmentation.points", "an integer >= 1");
      if (p.augmentation.points < 1) {
        fail(*v, "augmentation.points", fmt::format("must be >= 1, got {}", p.augmentation.points),
             "too small");
      }
      if (p.augmentation.points > kMaxDrawnPoints) {
        fail(*v, "augmentation.points",
             fmt::format("must be at most {} (the points are drawn at once), got {}",
                         kMaxDrawnPoints, p.augmentation.points),
             "too large");
      }
    }
    if (!p.surrogate) {
      fail(*table, "augmentation",
           "[augmentation] feeds extra constraint values to the surrogates, but the pipeline has "
           "no [surrogate]",
           "needs a model-based pipeline",
           {"add [surrogate] and [acquisition] (e.g. plugin = \"tpe\" and \"ctpe\"), or remove "
            "[augmentation]"});
    }
  }

  const TomlValue& root_;
  const std::string& path_;
  const ComponentLookup& lookup_;
};

}  // namespace

Pipeline parse_pipeline(const std::string& text, const std::string& path,
                        const std::vector<std::string>& overrides, const ComponentLookup& lookup) {
  TomlValue root = config::parse_document(text, path);
  config::apply_overrides(root, overrides);
  // Note: for a problem plugin, `black_box` stays empty here; the engine fills it from the
  // problem's constraint_names(), since only an instance knows them.
  return PipelineReader(root, path, lookup).read();
}

sdk::ParamSet read_component_params(const std::vector<std::string>& overrides,
                                    const sdk::ComponentInfo& info, const std::string& id,
                                    std::vector<std::string>* given) {
  TomlValue root = config::parse_document("", config::kOverrideSource);
  config::apply_overrides(root, overrides);
  sdk::ParamSet params = PipelineReader::read_params(root, "", info, id);
  if (given != nullptr) {
    for (const auto& [key, value] : root.as_table()) given->push_back(key);
  }
  return params;
}

std::string read_input_file(const std::filesystem::path& file, std::string_view what,
                            std::size_t max_bytes) {
  const std::string name = sdk::excerpt(file.string());
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) {
    throw ConfigError(
        fmt::format("[error] cannot read {} file '{}': it is a directory", what, name));
  }
  // A FIFO (`arbo check <(...)`) or a device is read like a file, but never past the limit:
  // `arbo check /dev/zero` must end.
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    throw ConfigError(
        fmt::format("[error] cannot read {} file '{}': {}", what, name, std::strerror(errno)));
  }
  std::string text;
  char buffer[65536];
  while (in && text.size() <= max_bytes) {
    in.read(buffer, sizeof buffer);
    text.append(buffer, static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) throw ConfigError(fmt::format("[error] cannot read {} file '{}'", what, name));
  if (text.size() > max_bytes) {
    throw ConfigError(
        fmt::format("[error] cannot read {} file '{}': it is larger than the limit "
                    "of {} MiB",
                    what, name, max_bytes >> 20));
  }
  return text;
}

std::string read_pipeline_file(const std::filesystem::path& file) {
  return read_input_file(file, "pipeline", config::kMaxTomlBytes);
}

Pipeline load_pipeline(const std::filesystem::path& file, const std::vector<std::string>& overrides,
                       const ComponentLookup& lookup) {
  const std::string text = read_pipeline_file(file);
  Pipeline p = parse_pipeline(text, file.string(), overrides, lookup);
  // The working directory is resolved against the file's folder now, so that the stored
  // pipeline (which has no folder) runs the command in the same place on --resume.
  if (!p.problem.plugin) {
    const std::filesystem::path base = std::filesystem::absolute(file).parent_path();
    std::filesystem::path dir = (base / p.problem.working_directory).lexically_normal();
    std::string dir_text = dir.string();
    if (dir_text.size() > 1 && dir_text.back() == '/') dir_text.pop_back();
    p.problem.working_directory = dir_text;
  }
  return p;
}

}  // namespace arbo::kernel
