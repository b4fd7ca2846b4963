// SPDX-License-Identifier: MIT
// Subcommands of the `arbo` CLI. Each returns the process exit code (kernel/errors.hpp) and
// throws KernelError or boost::program_options::error for the caller to report.
#pragma once

#include <string>
#include <vector>

namespace arbo::cli {

/// Options shared by every subcommand.
struct Globals {
  std::vector<std::string> plugin_paths;  ///< --plugin-path, in order
  bool verbose = false;
  /// false: only `plugin_paths` and ARBO_PLUGIN_PATH are searched, not arbo's own plugin
  /// directory (bench/fuzz's harnesses, which load a chosen few plugins per input).
  bool builtin_plugin_dirs = true;
};

int cmd_run(const std::vector<std::string>& args, const Globals& g);
int cmd_init(const std::vector<std::string>& args, const Globals& g);
int cmd_check(const std::vector<std::string>& args, const Globals& g);
int cmd_plugins(const std::vector<std::string>& args, const Globals& g);
int cmd_ask(const std::vector<std::string>& args, const Globals& g);
int cmd_tell(const std::vector<std::string>& args, const Globals& g);
int cmd_show(const std::vector<std::string>& args, const Globals& g);
int cmd_export(const std::vector<std::string>& args, const Globals& g);
int cmd_plot(const std::vector<std::string>& args, const Globals& g);
int cmd_solve(const std::vector<std::string>& args, const Globals& g);
int cmd_problems(const std::vector<std::string>& args, const Globals& g);
int cmd_problem(const std::vector<std::string>& args, const Globals& g);

}  // namespace arbo::cli
