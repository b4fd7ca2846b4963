// SPDX-License-Identifier: MIT
// Harness of the tests that drive the real `arbo` binary: a fresh directory per test, the
// command run there through the shell, its exit code, stdout and stderr captured. The test
// target defines ARBO_CLI, the path of the binary.
#pragma once

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

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

/// Starts `arbo <args>` in `dir` without waiting, with `env` ("NAME=value") added to (or
/// replacing in) the environment, stdout and stderr to the files `out` and `err`; returns its
/// pid. The child makes only async-signal-safe calls before exec, so threads may use it.
inline pid_t spawn_arbo(const fs::path& dir, const std::vector<std::string>& args,
                        const std::vector<std::string>& env, const fs::path& out,
                        const fs::path& err) {
  std::vector<std::string> env_strings;
  for (char** e = ::environ; *e != nullptr; ++e) {
    bool replaced = false;
    for (const auto& v : env) {
      const auto eq = v.find('=');
      replaced = replaced || std::strncmp(*e, v.c_str(), eq + 1) == 0;
    }
    if (!replaced) env_strings.emplace_back(*e);
  }
  env_strings.insert(env_strings.end(), env.begin(), env.end());
  std::vector<std::string> arg_strings = args;
  std::vector<char*> envp, argv{const_cast<char*>(ARBO_CLI)};
  for (auto& e : env_strings) envp.push_back(e.data());
  for (auto& a : arg_strings) argv.push_back(a.data());
  envp.push_back(nullptr);
  argv.push_back(nullptr);
  const int out_fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const int err_fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const std::string cwd = dir.string();
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::chdir(cwd.c_str()) != 0 || ::dup2(out_fd, 1) < 0 || ::dup2(err_fd, 2) < 0) _exit(127);
    ::execve(ARBO_CLI, argv.data(), envp.data());
    _exit(127);
  }
  ::close(out_fd);
  ::close(err_fd);
  return pid;
}

/// Waits for a spawned process: its exit status, or 128 + the signal that ended it (-1 when
/// it cannot be waited for).
// True while process `pid` exists and is not a zombie (an orphan's zombie may wait for an init
// that does not reap).
inline bool alive(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return false;
  const auto paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] != 'Z';
}

// Polls `done` until it holds or `seconds` pass; whether it held.
inline bool wait_until(const std::function<bool()>& done, double seconds = 60.0) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

inline int wait_exit_code(pid_t pid) {
  int status = 0;
  if (pid <= 0 || ::waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/// A quick study: random search on the built-in constrained Branin problem (two parameters,
/// one black-box constraint), four initial points.
inline std::string random_search_pipeline(int seed, int budget) {
  return "[study]\nseed = " + std::to_string(seed) + "\nbudget = " + std::to_string(budget) +
         "\n[problem]\nplugin = \"branin_constrained\"\n[initial_design]\nsize = 4\n"
         "[inner_solver]\nplugin = \"random\"\n";
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

  /// Every observation of `study`, as `arbo export --format json` prints them; an empty
  /// array (and a test failure) when the export fails.
  nlohmann::json export_json(const std::string& study) {
    const CliResult r = arbo("export " + study + " --format json");
    EXPECT_EQ(r.code, 0) << r.err;
    return r.code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::array();
  }

 private:
  std::string env_, leading_args_;
};

}  // namespace arbo::test
