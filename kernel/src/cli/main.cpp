// SPDX-License-Identifier: MIT
// arbo: command-line front end of the kernel. Exit codes are documented in README.md and
// kernel/include/arbo/kernel/errors.hpp.
#include <cstdio>
#include <iostream>
#include <map>

#include <fmt/format.h>
#include <boost/program_options.hpp>

#include "arbo/kernel/errors.hpp"
#include "arbo/sdk/error.hpp"
#include "arbo/sdk/params.hpp"
#include "cli/cli.hpp"
#include "cli/output.hpp"

#ifndef ARBO_VERSION
#define ARBO_VERSION "0.0.0"
#endif

namespace po = boost::program_options;
using namespace arbo;

namespace {

const char* kUsage = R"(usage: arbo [--plugin-path DIR]... [--verbose] COMMAND [ARGS]

Bayesian optimization of expensive black-box functions.

commands:
  run FILE [--study DIR] [--resume] [--set KEY=VALUE]...   run (or resume) a study
  init FILE [--study DIR] [--set KEY=VALUE]...             create a study without running it
  check FILE [--set KEY=VALUE]...                          validate a pipeline file
  plugins [--params] [--all]                               list components and parameters
  ask DIR                                                  propose a point to evaluate yourself
  tell DIR ID (--objective V [--constraint NAME=V]... | --json TEXT | --failed REASON)
  show DIR [--pipeline]                                    best point and progress
  export DIR --format csv|json [--output FILE]             every observation
  plot DIR --out FILE [--kind history|slices|parallel|surrogate] [--params A,B] [--size WxH]
                                                           draw a study (python3, matplotlib)
  solve FILE [--time-limit S] [--set KEY=VALUE]...         solve a CPLEX LP model
  problems [--json]                                        list problems: space, constraints, f*
  problem eval NAME [--noise SD] [--seed S]                evaluate JSON lines from stdin

exit codes: 0 ok, 1 internal error, 2 usage, 3 configuration, 4 plugin, 5 study store,
            6 known constraints infeasible, 7 output not written (full disk, closed pipe;
            arbo plot: also python3 or matplotlib missing),
            130 interrupted (study intact; --resume continues)
Run 'arbo COMMAND --help' for a command's options.
)";

// Runs the command named in `args`; its exit code.
int dispatch(const std::vector<std::string>& args);

}  // namespace

// Every command's output is its result: standard output is checked when the command ends,
// whichever way it ends, and a lost write is an error (exit 7) even after a success.
int main(int argc, char** argv) {
  cli::capture_stdout();
  int code = dispatch(std::vector<std::string>(argv + 1, argv + argc));
  if (const std::string error = cli::stdout_error(); !error.empty()) {
    std::cerr << "arbo: error: " << error << "\n";
    if (code == kernel::kExitOk) code = kernel::kExitOutput;
  }
  return code;
}

namespace {

int dispatch(const std::vector<std::string>& args) {
  cli::Globals globals;
  // Global options come before the command name.
  std::size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--plugin-path" && i + 1 < args.size()) {
      globals.plugin_paths.push_back(args[++i]);
    } else if (a.rfind("--plugin-path=", 0) == 0) {
      globals.plugin_paths.push_back(a.substr(14));
    } else if (a == "--verbose" || a == "-v") {
      globals.verbose = true;
    } else if (a == "--help" || a == "-h") {
      std::cout << kUsage;
      return kernel::kExitOk;
    } else if (a == "--version") {
      std::cout << "arbo " << ARBO_VERSION << "\n";
      return kernel::kExitOk;
    } else {
      break;
    }
  }
  if (i >= args.size()) {
    std::cerr << kUsage;
    return kernel::kExitUsage;
  }
  const std::string command = args[i];
  std::vector<std::string> rest(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
  using Fn = int (*)(const std::vector<std::string>&, const cli::Globals&);
  const std::map<std::string, Fn> commands{
      {"run", cli::cmd_run},           {"check", cli::cmd_check},
      {"init", cli::cmd_init},         {"plugins", cli::cmd_plugins},
      {"ask", cli::cmd_ask},           {"tell", cli::cmd_tell},
      {"show", cli::cmd_show},         {"export", cli::cmd_export},
      {"plot", cli::cmd_plot},         {"solve", cli::cmd_solve},
      {"problems", cli::cmd_problems}, {"problem", cli::cmd_problem}};
  auto it = commands.find(command);
  if (it == commands.end()) {
    std::vector<std::string> names;
    for (const auto& [n, f] : commands) names.push_back(n);
    const std::string hint = sdk::nearest_name(command, names);
    std::cerr << fmt::format("arbo: unknown command '{}'{}\n", command,
                             hint.empty() ? "" : fmt::format("; did you mean '{}'?", hint))
              << kUsage;
    return kernel::kExitUsage;
  }
  try {
    return it->second(rest, globals);
  } catch (const kernel::KernelError& e) {
    std::cerr << "arbo: error: " << e.what() << "\n";
    return e.exit_code();
  } catch (const po::error& e) {
    std::cerr << "arbo " << command << ": " << e.what() << "\n(see 'arbo " << command
              << " --help')\n";
    return kernel::kExitUsage;
  } catch (const sdk::Error& e) {
    std::cerr << "arbo: error: " << e.what() << "\n";
    return kernel::kExitInternal;
  } catch (const std::exception& e) {
    std::cerr << "arbo: internal error: " << e.what() << "\n";
    return kernel::kExitInternal;
  }
}

}  // namespace
