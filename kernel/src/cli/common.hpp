// SPDX-License-Identifier: MIT
// Helpers shared by the CLI commands.
#pragma once

#include <string>
#include <vector>

#include "arbo/kernel/plugin_registry.hpp"
#include "arbo/kernel/study_store.hpp"
#include "cli/cli.hpp"

namespace arbo::cli {

/// Loads every plugin on the search path; rejected libraries are reported on stderr.
kernel::PluginRegistry load_registry(const Globals& g);

/// Shortest text that reads back to the same double.
std::string format_number(double v);

/// One line for logs and non-terminal progress output.
std::string describe_observation(const kernel::Observation& o,
                                 const std::vector<std::string>& constraint_names);

}  // namespace arbo::cli
