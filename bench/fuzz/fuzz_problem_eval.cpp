// SPDX-License-Identifier: MIT
// libFuzzer harness of `arbo problem eval NAME`: the input is its standard input, run through the
// CLI's own cmd_problem (kernel/src/cli/commands_problems.cpp, compiled into this harness) for
// two problems with every parameter type between them: mondrian_suite's mixed_branin (reals,
// categoricals, a black-box constraint) and leafgp_suite's pressure_vessel (integers, reals,
// known constraints). Only those two plugins are on the search path, through a private folder
// of links.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <streambuf>
#include <string>
#include <system_error>

#include "cli/cli.hpp"
#include "fuzz_strict.hpp"

namespace {

namespace fs = std::filesystem;

class NullBuffer : public std::streambuf {
 protected:
  int overflow(int c) override { return c; }
  std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
};

arbo::cli::Globals globals;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  unsetenv("ARBO_PLUGIN_PATH");
  std::error_code ec;
  const fs::path dir = fs::temp_directory_path() /
                       ("arbo_fuzz_problem_eval." + std::to_string(static_cast<long>(getpid())));
  fs::create_directories(dir);
  for (const char* so : {"libarbo_problem_mondrian_suite.so", "libarbo_problem_leafgp_suite.so"}) {
    fs::remove(dir / so, ec);
    fs::create_symlink(fs::path(ARBO_PLUGIN_DIR) / so, dir / so);
  }
  globals.plugin_paths.push_back(dir.string());
  // Not the build's plugin directory too, which libarbo_kernel.so's location would add: every
  // input would load every plugin (300 s instead of 100 s for the corpus under ASan).
  globals.builtin_plugin_dirs = false;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static NullBuffer null;
  const std::string input(reinterpret_cast<const char*>(data), size);
  for (const char* problem : {"mixed_branin", "pressure_vessel"}) {
    std::istringstream in(input);
    std::streambuf* const old_in = std::cin.rdbuf(in.rdbuf());
    std::streambuf* const old_out = std::cout.rdbuf(&null);
    std::cin.clear();
    try {
      // A bad line is answered with {"error": ...} and the stream goes on; anything escaping
      // would end the process with the internal-error exit code.
      arbo::cli::cmd_problem({"eval", problem}, globals);
    } catch (const std::exception& e) {
      std::cin.rdbuf(old_in);
      std::cout.rdbuf(old_out);
      arbo::fuzz::finding("cmd_problem threw", e.what());
    }
    std::cin.rdbuf(old_in);
    std::cout.rdbuf(old_out);
  }
  return 0;
}
