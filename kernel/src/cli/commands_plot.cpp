// SPDX-License-Identifier: MIT
// `arbo plot DIR --out FILE`: draws a study with the Python package's plots (arbo.visualization,
// matplotlib), by running `python3 -m arbo.visualization` on the package beside this executable,
// so that the CLI and Python draw the same figures from the same code (docs/decisions.md).
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "arbo/kernel/errors.hpp"
#include "arbo/sdk/params.hpp"
#include "cli/common.hpp"

extern char** environ;

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace arbo::cli {

namespace {

const std::vector<std::string> kKinds{"history", "slices", "parallel", "surrogate"};

// The directory holding the package `arbo` (with its plots): beside this executable in the
// install tree (<bindir>/<relative path to the Python install dir>), or in the build tree
// (build/bin/../python). Empty when neither holds it.
std::optional<fs::path> package_dir(std::vector<std::string>& looked) {
#if defined(ARBO_PYTHON_INSTALL_REL) && defined(ARBO_PYTHON_BUILD_REL)
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return std::nullopt;
  for (const char* rel : {ARBO_PYTHON_INSTALL_REL, ARBO_PYTHON_BUILD_REL}) {
    const fs::path dir = (exe.parent_path() / rel).lexically_normal();
    looked.push_back(dir.string());
    if (fs::exists(dir / "arbo" / "visualization.py", ec)) return dir;
  }
#else
  (void)looked;
#endif
  return std::nullopt;
}

// ARBO_PYTHON, else the interpreter the package was built for, else python3 on PATH.
std::string python_interpreter() {
  if (const char* env = std::getenv("ARBO_PYTHON"); env != nullptr && *env != '\0') return env;
#ifdef ARBO_PYTHON_EXECUTABLE
  std::error_code ec;
  if (fs::exists(ARBO_PYTHON_EXECUTABLE, ec)) return ARBO_PYTHON_EXECUTABLE;
#endif
  return "python3";
}

// `name`=`front`[:old value] in `env`.
void prepend_env(std::vector<std::string>& env, const std::string& name, const std::string& front) {
  const std::string key = name + "=";
  for (auto& e : env) {
    if (e.rfind(key, 0) == 0) {
      const std::string old = e.substr(key.size());
      e = key + front + (old.empty() ? "" : ":" + old);
      return;
    }
  }
  env.push_back(key + front);
}

}  // namespace

int cmd_plot(const std::vector<std::string>& args, const Globals& g) {
  po::options_description opts(
      "arbo plot DIR --out FILE [options]\n\n"
      "Draws a study into an image file with arbo's Python package (python3 and matplotlib:\n"
      "the Debian packages python3 and python3-matplotlib). The study is read as it is, also\n"
      "while 'arbo run' drives it. ARBO_PYTHON names another interpreter. Exit 7 when the image "
      "could not be\n"
      "written, python3 or matplotlib included.\n\noptions");
  std::string dir, out, kind, params, size;
  int dpi = 100;
  opts.add_options()("help,h", "show this help")("dir", po::value(&dir), "study directory")(
      "out,o", po::value(&out),
      "image file to write (its extension gives the format: png, svg, pdf)")(
      "kind", po::value(&kind)->default_value("history"),
      "history (objective per observation, best so far), slices (objective against each "
      "parameter), parallel (parallel coordinates) or surrogate (the model's mean and "
      "uncertainty along one or two parameters, the others at the incumbent)")(
      "params", po::value(&params),
      "comma-separated parameter names: those shown by slices and parallel (default all), or "
      "the one or two the surrogate is drawn along (default the first)")(
      "size", po::value(&size)->default_value("960x600"), "WIDTHxHEIGHT in pixels")(
      "dpi", po::value(&dpi)->default_value(100), "dots per inch (the text's scale)");
  po::variables_map vm;
  if (!parse_args(args, opts, {required_arg("dir")}, vm)) return kernel::kExitOk;
  if (out.empty()) throw po::error("missing option --out FILE");
  if (std::find(kKinds.begin(), kKinds.end(), kind) == kKinds.end()) {
    const std::string hint = sdk::nearest_name(kind, kKinds);
    throw po::error(fmt::format("--kind {}: expected history, slices, parallel or surrogate{}",
                                kind,
                                hint.empty() ? "" : fmt::format(" (did you mean {}?)", hint)));
  }
  if (!params.empty() && kind == "history") {
    throw po::error("--params applies to --kind slices, parallel and surrogate");
  }
  unsigned width = 0, height = 0;
  char rest = 0;
  if (std::sscanf(size.c_str(), "%ux%u%c", &width, &height, &rest) != 2 || width == 0 ||
      height == 0 || width > 20000 || height > 20000 || dpi <= 0 || dpi > 2000) {
    throw po::error(fmt::format(
        "--size {} --dpi {}: expected WIDTHxHEIGHT in pixels (up to 20000) and dots per inch "
        "(up to 2000), e.g. --size 960x600 --dpi 100",
        size, dpi));
  }

  std::vector<std::string> looked;
  const std::optional<fs::path> package = package_dir(looked);
  if (!package) {
    throw kernel::OutputError(
        looked.empty()
            ? std::string("arbo plot draws with arbo's Python package, and this arbo was built "
                          "without it (-DARBO_BUILD_PYTHON=OFF)")
            : fmt::format("arbo plot draws with arbo's Python package, which is not beside this "
                          "arbo (looked in {}); build or install it with the project",
                          fmt::join(looked, " and ")));
  }
  const std::string python = python_interpreter();
  std::vector<std::string> argv{
      python, "-m",    "arbo.visualization", dir, "--out", out, "--kind", kind, "--size",
      size,   "--dpi", std::to_string(dpi)};
  if (!params.empty()) {
    argv.push_back("--params");
    argv.push_back(params);
  }
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
  prepend_env(env, "PYTHONPATH", package->string());
  // The plugins this command would load (--plugin-path) are those the study is opened with.
  if (!g.plugin_paths.empty()) {
    prepend_env(env, "ARBO_PLUGIN_PATH", fmt::format("{}", fmt::join(g.plugin_paths, ":")));
  }
  std::vector<char*> cargv, cenv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  for (auto& e : env) cenv.push_back(e.data());
  cenv.push_back(nullptr);

  std::cout.flush();
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, python.c_str(), nullptr, nullptr, cargv.data(), cenv.data());
  if (rc != 0) {
    throw kernel::OutputError(fmt::format(
        "arbo plot draws with python3, which could not be run ({}: {}): install the Debian "
        "package python3, or name an interpreter in ARBO_PYTHON",
        python, std::strerror(rc)));
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      throw kernel::OutputError(
          fmt::format("arbo plot: waiting for {}: {}", python, std::strerror(errno)));
    }
  }
  // The script's exit codes are the CLI's (arbo/visualization.py), and it wrote its messages.
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status) &&
      (WTERMSIG(status) == SIGINT || WTERMSIG(status) == SIGTERM || WTERMSIG(status) == SIGHUP)) {
    return kernel::kExitInterrupted;
  }
  std::cerr << fmt::format("arbo: error: {} ended by signal {}\n", python,
                           WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  return kernel::kExitInternal;
}

}  // namespace arbo::cli
