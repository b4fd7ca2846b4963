// SPDX-License-Identifier: MIT
// Helpers shared by the CLI commands.
#pragma once

#include <atomic>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include "arbo/kernel/plugin_registry.hpp"
#include "arbo/kernel/study_store.hpp"
#include "arbo/sdk/space.hpp"
#include "cli/cli.hpp"

namespace arbo::cli {

/// One positional argument of a command; it fills the option of the same name.
struct Positional {
  std::string name;
  bool required = true;
};
inline Positional required_arg(std::string name) { return {std::move(name), true}; }
/// A command that needs a custom message for a missing argument checks it itself.
inline Positional optional_arg(std::string name) { return {std::move(name), false}; }

/// Parses a command's `args` into `vm`, the positionals in order. Returns false after printing
/// `opts` for --help (the command then exits 0). Throws boost::program_options::error, which
/// main() reports as a usage error, also for a missing required positional.
bool parse_args(const std::vector<std::string>& args,
                const boost::program_options::options_description& opts,
                const std::vector<Positional>& positional,
                boost::program_options::variables_map& vm);

/// Set by the first SIGINT, SIGTERM or SIGHUP after catch_interrupts(). The process has one
/// command, hence one flag.
std::atomic<bool>& interrupt_flag();
/// Turns the first SIGINT, SIGTERM or SIGHUP into interrupt_flag(), for the running command to
/// stop cleanly (an external command in progress is terminated); a second one acts as before
/// (by default it kills at once; what was stored is safe either way, and the evaluation's
/// supervisor still ends the command). An ignored SIGHUP (nohup) stays ignored.
void catch_interrupts();
/// Back to what SIGINT, SIGTERM and SIGHUP did before catch_interrupts().
void release_interrupts();

/// Loads every plugin on the search path; rejected libraries are reported on stderr.
kernel::PluginRegistry load_registry(const Globals& g);
/// One warning line on stderr per library the registry rejected.
void report_load_failures(const kernel::PluginRegistry& registry);

/// Shortest text that reads back to the same double.
std::string format_number(double v);

/// One line for logs and non-terminal progress output.
std::string describe_observation(const kernel::Observation& o,
                                 const std::vector<std::string>& constraint_names);

/// Converts one JSON value to the user value of parameter `p` (the types of Space::encode).
/// @throws sdk::InvalidArgument naming the parameter.
sdk::Value to_value(const sdk::Parameter& p, const nlohmann::json& v);

/// A JSON object of parameter values by name as the values of `space`'s parameters, in its
/// order (std::monostate where a name is absent or null), for kernel::encode_user_point: unknown
/// names (with the nearest valid one) and wrong types are refused.
/// @throws sdk::InvalidArgument naming the parameter.
std::vector<sdk::Value> values_of_params(const sdk::Space& space, const nlohmann::json& params);

}  // namespace arbo::cli
