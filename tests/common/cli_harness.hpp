// SPDX-License-Identifier: MIT
// Harness of the tests that drive the real `arbo` binary: a fresh directory per test, the
// command run there through the shell, its exit code, stdout and stderr captured. The test
// target defines ARBO_CLI, the path of the binary.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "common/temp_dir.hpp"

#ifndef ARBO_CLI
#error "cli_harness.hpp needs ARBO_CLI, the path of the arbo binary"
#endif

namespace arbo::test {

namespace fs = std::filesystem;

struct CliResult {
  int code = -1;
  std::string out, err;
};

/// The whole file; empty when it cannot be read.
inline std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Runs `arbo` in `dir_`.
class CliTest : public TempDirTest {
 protected:
  /// `env` ("NAME='value' ") goes before the binary, `leading_args` before each command's
  /// arguments: the plugin path of the test's own plugins, for example.
  explicit CliTest(std::string prefix, std::string env = "", std::string leading_args = "")
      : TempDirTest(std::move(prefix)),
        env_(std::move(env)),
        leading_args_(std::move(leading_args)) {}

  /// Runs `arbo <args>` (shell words) with `input` on stdin, or /dev/null without one.
  /// `stdout_to` (a shell word) takes the standard output instead of `CliResult::out`.
  CliResult arbo(const std::string& args, const std::optional<std::string>& input = std::nullopt,
                 const std::string& stdout_to = "") {
    if (input) std::ofstream(dir_ / "in.txt") << *input;
    const std::string cmd = "cd '" + dir_.string() + "' && " + env_ + "'" + ARBO_CLI + "' " +
                            leading_args_ + args + " >" +
                            (stdout_to.empty() ? "out.txt" : stdout_to) + " 2>err.txt " +
                            (input ? "<in.txt" : "</dev/null");
    const int status = std::system(cmd.c_str());
    CliResult r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (stdout_to.empty()) r.out = slurp(dir_ / "out.txt");
    r.err = slurp(dir_ / "err.txt");
    return r;
  }

  /// Starts `arbo <args>` in `dir_` in the background, with the same environment as arbo(),
  /// stdout to bg_out.txt and stderr to bg_err.txt; returns its pid (the shell execs arbo).
  /// `before` (shell commands ending with ';') runs first, `trap '' INT;` for example.
  pid_t spawn(const std::vector<std::string>& args, const std::string& before = "") {
    std::string cmd = "cd '" + dir_.string() + "' && " + before + " exec env " + env_ + "'" +
                      ARBO_CLI + "' " + leading_args_;
    for (const auto& a : args) cmd += "'" + a + "' ";
    cmd += ">bg_out.txt 2>bg_err.txt </dev/null";
    const pid_t pid = fork();
    if (pid == 0) {
      execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    return pid;
  }

 private:
  std::string env_, leading_args_;
};

}  // namespace arbo::test
