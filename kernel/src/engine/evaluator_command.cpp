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

#include <fmt/format.h>

#include "arbo/kernel/errors.hpp"
#include "arbo/kernel/evaluator.hpp"
#include "engine/evaluation_output.hpp"

namespace arbo::kernel {

namespace {

constexpr std::size_t kMaxOutput = 4u << 20;  // stdout kept; a runaway printer is cut off
constexpr std::size_t kStderrTail = 2000;     // stderr characters quoted in failure reasons

std::string tail(const std::string& s, std::size_t n) {
  std::string t = s.size() > n ? "..." + s.substr(s.size() - n) : s;
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r' || t.back() == ' ')) t.pop_back();
  return t;
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
    return read_evaluation_result(out_text, cons_).outcome;
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

std::unique_ptr<Evaluator> make_command_evaluator(const ProblemSpec& spec,
                                                  std::vector<BlackBoxConstraint> constraints,
                                                  const std::filesystem::path& base_dir) {
  return std::make_unique<CommandEvaluator>(spec, std::move(constraints), base_dir);
}

}  // namespace arbo::kernel
