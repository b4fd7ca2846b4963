// SPDX-License-Identifier: MIT
// External-command evaluator: one child process per evaluation, JSON in, JSON out.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <regex>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "arbo/kernel/errors.hpp"
#include "arbo/kernel/evaluator.hpp"

namespace arbo::kernel {

namespace {

constexpr std::size_t kMaxOutput = 4u << 20;  // stdout kept; a runaway printer is cut off
constexpr std::size_t kStderrTail = 2000;     // stderr characters quoted in failure reasons

std::string tail(const std::string& s, std::size_t n) {
  std::string t = s.size() > n ? "..." + s.substr(s.size() - n) : s;
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r' || t.back() == ' ')) t.pop_back();
  return t;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

// Python's json module writes NaN/Infinity, which is not JSON; map them to null so the value
// is reported as non-finite rather than as unparsable output.
std::string neutralize_non_finite(const std::string& s) {
  static const std::regex tokens(R"((-?Infinity|NaN)(?=\s*[,}\]]|\s*$))");
  return std::regex_replace(s, tokens, "null");
}

std::optional<double> finite_number(const nlohmann::json& v) {
  if (!v.is_number()) return std::nullopt;
  const double d = v.get<double>();
  if (!std::isfinite(d)) return std::nullopt;
  return d;
}

EvalOutcome interpret(const nlohmann::json& j, const std::vector<BlackBoxConstraint>& cons) {
  EvalOutcome out;
  out.constraints = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(cons.size()));
  if (j.is_number() || j.is_null()) {
    if (!cons.empty()) {
      out.reason =
          "output is a bare number but the study declares black-box constraints; "
          "print {\"objective\": ..., \"constraints\": {...}}";
      return out;
    }
    auto v = finite_number(j);
    if (!v) {
      out.reason = "objective is NaN or infinite";
      return out;
    }
    out.ok = true;
    out.objective = *v;
    return out;
  }
  if (!j.is_object()) {
    out.reason = "output JSON is neither a number nor an object";
    return out;
  }
  if (auto e = j.find("error"); e != j.end()) {
    out.reason =
        "command reported an error: " + (e->is_string() ? e->get<std::string>() : e->dump());
    return out;
  }
  auto o = j.find("objective");
  if (o == j.end()) {
    out.reason = "output object has no \"objective\"";
    return out;
  }
  auto v = finite_number(*o);
  if (!v) {
    out.reason = o->is_number() || o->is_null() ? "objective is NaN or infinite"
                                                : "objective is not a number: " + o->dump();
    return out;
  }
  if (!cons.empty()) {
    auto c = j.find("constraints");
    if (c == j.end()) {
      out.reason =
          "output has no \"constraints\" but the study declares " + std::to_string(cons.size());
      return out;
    }
    for (std::size_t k = 0; k < cons.size(); ++k) {
      const nlohmann::json* cv = nullptr;
      if (c->is_object()) {
        auto it = c->find(cons[k].name);
        if (it == c->end()) {
          out.reason = fmt::format("constraint '{}' is missing from the output", cons[k].name);
          return out;
        }
        cv = &*it;
      } else if (c->is_array() && c->size() == cons.size()) {
        cv = &(*c)[k];
      } else {
        out.reason =
            fmt::format("\"constraints\" must be an object by name or an array of {}", cons.size());
        return out;
      }
      auto value = finite_number(*cv);
      if (!value) {
        out.reason = fmt::format("constraint '{}' is not a finite number", cons[k].name);
        return out;
      }
      out.constraints[static_cast<Eigen::Index>(k)] = *value;
    }
  }
  out.ok = true;
  out.objective = *v;
  return out;
}

void set_cloexec_nonblock(int fd) {
  fcntl(fd, F_SETFD, FD_CLOEXEC);
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

class CommandEvaluator final : public Evaluator {
 public:
  CommandEvaluator(ProblemSpec spec, std::vector<BlackBoxConstraint> cons,
                   std::filesystem::path base)
      : spec_(std::move(spec)), cons_(std::move(cons)) {
    if (spec_.command.empty()) throw ConfigError("external command is empty");
    // A command that exits without reading stdin must not kill arbo with SIGPIPE; the child
    // gets the default disposition back before exec.
    signal(SIGPIPE, SIG_IGN);
    std::filesystem::path wd =
        spec_.working_directory.empty() ? base : std::filesystem::path(spec_.working_directory);
    if (wd.is_relative()) wd = base / wd;
    workdir_ = wd.empty() ? std::string(".") : wd.string();
  }

  EvalOutcome evaluate(std::int64_t id, const Eigen::VectorXd&,
                       const std::string& params_json) override {
    const std::string input = fmt::format("{{\"id\": {}, \"params\": {}}}\n", id, params_json);
    std::string out_text, err_text;
    EvalOutcome failed;
    int status = 0;
    bool timed_out = false;
    if (!run(input, out_text, err_text, status, timed_out, failed.reason)) return failed;
    if (timed_out) {
      failed.reason = fmt::format("command timed out after {} s and was killed{}",
                                  spec_.timeout_seconds, stderr_suffix(err_text));
      return failed;
    }
    if (WIFSIGNALED(status)) {
      failed.reason = fmt::format("command killed by signal {} ({}){}", WTERMSIG(status),
                                  strsignal(WTERMSIG(status)), stderr_suffix(err_text));
      return failed;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
      failed.reason = fmt::format("command exited with status {}{}", WEXITSTATUS(status),
                                  stderr_suffix(err_text));
      return failed;
    }
    return parse_command_output(out_text, cons_);
  }

 private:
  static std::string stderr_suffix(const std::string& err) {
    const std::string t = tail(err, kStderrTail);
    return t.empty() ? std::string() : "; stderr: " + t;
  }

  // Runs the command with `input` on stdin. Returns false (with `error`) if it could not start.
  bool run(const std::string& input, std::string& out, std::string& err, int& status,
           bool& timed_out, std::string& error) {
    int in_pipe[2], out_pipe[2], err_pipe[2], exec_pipe[2];
    if (pipe(in_pipe) != 0 || pipe(out_pipe) != 0 || pipe(err_pipe) != 0 || pipe(exec_pipe) != 0) {
      error = fmt::format("cannot create pipes: {}", std::strerror(errno));
      return false;
    }
    fcntl(exec_pipe[1], F_SETFD, FD_CLOEXEC);
    std::vector<char*> argv;
    for (auto& a : spec_.command) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);

    const pid_t pid = fork();
    if (pid < 0) {
      error = fmt::format("fork failed: {}", std::strerror(errno));
      return false;
    }
    if (pid == 0) {
      // Child: own process group so a timeout kills the command and everything it started.
      setpgid(0, 0);
      dup2(in_pipe[0], 0);
      dup2(out_pipe[1], 1);
      dup2(err_pipe[1], 2);
      for (int fd : {in_pipe[0], in_pipe[1], out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1],
                     exec_pipe[0]}) {
        close(fd);
      }
      signal(SIGPIPE, SIG_DFL);
      if (chdir(workdir_.c_str()) != 0) {
        const int e = errno;
        [[maybe_unused]] auto r = write(exec_pipe[1], &e, sizeof e);
        _exit(127);
      }
      execvp(argv[0], argv.data());
      const int e = errno;
      [[maybe_unused]] auto r = write(exec_pipe[1], &e, sizeof e);
      _exit(127);
    }
    setpgid(pid, pid);  // also from the parent, to close the race with an early killpg
    close(in_pipe[0]);
    close(out_pipe[1]);
    close(err_pipe[1]);
    close(exec_pipe[1]);
    int exec_errno = 0;
    const bool exec_failed =
        read(exec_pipe[0], &exec_errno, sizeof exec_errno) == sizeof exec_errno;
    close(exec_pipe[0]);
    if (exec_failed) {
      close(in_pipe[1]);
      close(out_pipe[0]);
      close(err_pipe[0]);
      waitpid(pid, &status, 0);
      error = fmt::format("cannot run '{}' in {}: {}", spec_.command.front(), workdir_,
                          std::strerror(exec_errno));
      return false;
    }
    set_cloexec_nonblock(in_pipe[1]);
    set_cloexec_nonblock(out_pipe[0]);
    set_cloexec_nonblock(err_pipe[0]);

    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(spec_.timeout_seconds));
    std::size_t written = 0;
    int in_fd = in_pipe[1], out_fd = out_pipe[0], err_fd = err_pipe[0];
    char buf[65536];
    // Writing stdin and draining both outputs in one poll loop avoids deadlock when the child
    // prints a lot before reading its input.
    while (out_fd >= 0 || err_fd >= 0) {
      const auto now = std::chrono::steady_clock::now();
      if (now >= deadline) {
        timed_out = true;
        break;
      }
      const int wait_ms = static_cast<int>(std::min<long long>(
          1000, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count() + 1));
      pollfd fds[3];
      int nfds = 0;
      if (in_fd >= 0) fds[nfds++] = {in_fd, POLLOUT, 0};
      if (out_fd >= 0) fds[nfds++] = {out_fd, POLLIN, 0};
      if (err_fd >= 0) fds[nfds++] = {err_fd, POLLIN, 0};
      const int r = poll(fds, static_cast<nfds_t>(nfds), wait_ms);
      if (r < 0 && errno != EINTR) break;
      for (int k = 0; k < nfds; ++k) {
        if (fds[k].revents == 0) continue;
        if (fds[k].fd == in_fd) {
          const ssize_t w = write(in_fd, input.data() + written, input.size() - written);
          if (w > 0) written += static_cast<std::size_t>(w);
          if (w < 0 && errno != EAGAIN) written = input.size();  // EPIPE: child ignores stdin
          if (written >= input.size()) {
            close(in_fd);
            in_fd = -1;
          }
          continue;
        }
        int& fd = fds[k].fd == out_fd ? out_fd : err_fd;
        std::string& sink = fds[k].fd == out_fd ? out : err;
        const ssize_t n = read(fd, buf, sizeof buf);
        if (n > 0) {
          if (sink.size() < kMaxOutput) sink.append(buf, static_cast<std::size_t>(n));
        } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
          close(fd);
          fd = -1;
        }
      }
    }
    if (in_fd >= 0) close(in_fd);
    if (out_fd >= 0) close(out_fd);
    if (err_fd >= 0) close(err_fd);
    if (timed_out) {
      killpg(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return true;
    }
    // Outputs are closed; the child may still be running (it closed stdout early). Wait for it
    // within the remaining time.
    while (true) {
      const pid_t w = waitpid(pid, &status, WNOHANG);
      if (w == pid) break;
      if (std::chrono::steady_clock::now() >= deadline) {
        timed_out = true;
        killpg(pid, SIGKILL);
        waitpid(pid, &status, 0);
        break;
      }
      usleep(2000);
    }
    // Descendants that outlived the command would hold resources: clean up the group.
    killpg(pid, SIGKILL);
    return true;
  }

  ProblemSpec spec_;
  std::vector<BlackBoxConstraint> cons_;
  std::string workdir_;
};

}  // namespace

EvalOutcome parse_command_output(const std::string& stdout_text,
                                 const std::vector<BlackBoxConstraint>& constraints) {
  const std::string text = trim(stdout_text);
  if (text.empty()) {
    EvalOutcome out;
    out.reason = "command printed nothing on stdout";
    return out;
  }
  // Whole output first; else its last non-empty line (programs often log before the result).
  std::vector<std::string> candidates{text};
  if (auto nl = text.find_last_of('\n'); nl != std::string::npos) {
    candidates.push_back(trim(text.substr(nl + 1)));
  }
  for (const auto& c : candidates) {
    auto j = nlohmann::json::parse(neutralize_non_finite(c), nullptr, false);
    if (!j.is_discarded()) return interpret(j, constraints);
  }
  EvalOutcome out;
  out.reason = fmt::format("command output is not valid JSON: '{}'", tail(text, 200));
  return out;
}

std::unique_ptr<Evaluator> make_command_evaluator(const ProblemSpec& spec,
                                                  std::vector<BlackBoxConstraint> constraints,
                                                  const std::filesystem::path& base_dir) {
  return std::make_unique<CommandEvaluator>(spec, std::move(constraints), base_dir);
}

}  // namespace arbo::kernel
