// SPDX-License-Identifier: MIT
// The process half of evaluations: spawning, reading, waiting, killing (see process.hpp).
#include "engine/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include <fmt/format.h>

namespace arbo::kernel {

namespace {

constexpr std::size_t kStderrTail = 2000;  // stderr characters quoted in failure reasons

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

// ---- The process half: spawning, reading, waiting, killing ----------------------------------

// After an interrupt (or the driver's death) the command's group gets SIGTERM and this long to
// finish before SIGKILL: enough to remove a temporary file, short enough for Ctrl-C.
constexpr int kTermGraceMs = 2000;
// How long the supervisor waits for a killed group to vanish (a process in uninterruptible
// sleep cannot die at once) before it exits and releases the study's lock anyway.
constexpr int kReapLimitMs = 5000;
// How often the driver looks at the interrupt flag while it waits (a signal usually wakes the
// wait at once; this bounds the race with a signal that arrives just before it).
constexpr int kInterruptPollMs = 100;

// What the supervisor tells the driver on the status pipe. Eight bytes, so each write is
// atomic and a read gets a whole report.
struct Report {
  std::int32_t kind = 0;
  std::int32_t value = 0;
};
constexpr std::int32_t kStarted = 1;     // value: the command's pid (= its process group)
constexpr std::int32_t kForkFailed = 2;  // value: errno
constexpr std::int32_t kExited = 3;      // value: the command's wait status

// Everything the two forked processes need, prepared before fork(): after it, only
// async-signal-safe calls are allowed (the driver may have threads).
struct SpawnPlan {
  char* const* argv = nullptr;
  const char* workdir = nullptr;
  int in_r = -1, out_w = -1, err_w = -1, exec_w = -1;  // the command's ends
  int status_w = -1, life_r = -1;                      // the supervisor's ends
  int driver_ends[6] = {-1, -1, -1, -1, -1, -1};       // closed in the supervisor
  // The driver's ends of the other evaluations running at once, also closed in the supervisor:
  // one that kept another command's stdin open would keep it from seeing its end, and one that
  // kept another's life pipe open would keep that supervisor from seeing the driver die.
  const int* other_ends = nullptr;
  std::size_t other_count = 0;
  sigset_t driver_mask{};  // the mask the command starts with
  int max_fd = 1024;       // descriptors to close without close_range
};

// Close-on-exec pipe; throws nothing, returns false with errno set.
bool make_pipe(int fds[2]) { return pipe2(fds, O_CLOEXEC) == 0; }

void close_fd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

void set_nonblock(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

std::int64_t monotonic_ms() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);  // async-signal-safe, unlike std::chrono in principle
  return static_cast<std::int64_t>(t.tv_sec) * 1000 + t.tv_nsec / 1000000;
}

void write_report(int fd, std::int32_t kind, std::int32_t value) {
  const Report r{kind, value};
  [[maybe_unused]] auto n = write(fd, &r, sizeof r);
}

extern "C" void on_sigchld(int) {}

// The command: its own process group, the driver's signal mask, stdin/stdout/stderr on the
// pipes and no other descriptor (a plugin or library may have opened one without
// close-on-exec), then exec. Never returns.
[[noreturn]] void exec_command(const SpawnPlan& p) {
  setpgid(0, 0);
  signal(SIGPIPE, SIG_DFL);  // the driver ignores it; a command expects the default
  signal(SIGCHLD, SIG_DFL);
  sigprocmask(SIG_SETMASK, &p.driver_mask, nullptr);
  // Lift the three ends above 2 first: with a closed stdin, pipe2() may have returned 0 or 1.
  const int in = fcntl(p.in_r, F_DUPFD_CLOEXEC, 3);
  const int out = fcntl(p.out_w, F_DUPFD_CLOEXEC, 3);
  const int err = fcntl(p.err_w, F_DUPFD_CLOEXEC, 3);
  const int exec_w = fcntl(p.exec_w, F_DUPFD_CLOEXEC, 3);
  int e = 0;
  if (in < 0 || out < 0 || err < 0 || exec_w < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 ||
      dup2(err, 2) < 0) {
    e = errno;
  }
  // Every other descriptor goes, but the one that reports a failed exec (close-on-exec).
  const auto x = static_cast<unsigned>(exec_w);
  if ((x > 3 && close_range(3, x - 1, 0) != 0) || close_range(x + 1, ~0u, 0) != 0) {
    for (int fd = 3; fd < p.max_fd; ++fd) {  // a kernel older than 5.9
      if (fd != exec_w) close(fd);
    }
  }
  if (e == 0 && chdir(p.workdir) != 0) e = errno;
  if (e == 0) {
    execvp(p.argv[0], p.argv);
    e = errno;
  }
  [[maybe_unused]] auto r = write(exec_w, &e, sizeof e);
  _exit(127);
}

// The supervisor: the parent of the command, outside its group. It reports the command's exit,
// kills what the command left in its group, and ends the group when the driver asks (a byte
// on the life pipe: SIGKILL at once) or closes the life pipe, which happens also when the
// driver dies, however it dies. It keeps the driver's other descriptors, the study's lock
// among them, until the group is gone. Never returns.
[[noreturn]] void supervise(const SpawnPlan& p) {
  for (int fd : p.driver_ends) close(fd);
  for (std::size_t i = 0; i < p.other_count; ++i) close(p.other_ends[i]);
  // Orphans of the command are re-parented here rather than to init: the supervisor reaps
  // them, and so knows when the whole group is gone.
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  signal(SIGPIPE, SIG_IGN);  // a report to a dead driver must not kill the supervisor
  struct sigaction sa {};
  sa.sa_handler = on_sigchld;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGCHLD, &sa, nullptr);
  // SIGCHLD is taken only inside ppoll(), which makes waiting for it race-free. SIGINT,
  // SIGTERM and SIGHUP stay blocked (the driver blocked them before fork()): the supervisor
  // sits in the terminal's process group and must outlive a second Ctrl-C.
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, nullptr);
  sigset_t wait_mask;
  sigprocmask(SIG_BLOCK, nullptr, &wait_mask);
  sigdelset(&wait_mask, SIGCHLD);

  const pid_t cmd = fork();
  if (cmd < 0) {
    write_report(p.status_w, kForkFailed, errno);
    _exit(1);
  }
  if (cmd == 0) exec_command(p);
  setpgid(cmd, cmd);  // also here, so that the group exists before any kill below
  write_report(p.status_w, kStarted, cmd);
  close(p.in_r);
  close(p.out_w);
  close(p.err_w);
  close(p.exec_w);

  int status = 0;
  bool exited = false;
  const auto reap = [&] {
    int st = 0;
    for (pid_t w; (w = waitpid(-1, &st, WNOHANG)) > 0;) {
      if (w == cmd) {
        status = st;
        exited = true;
      }
    }
  };
  int life = p.life_r;
  std::int64_t kill_at = -1;  // when SIGKILL follows the SIGTERM of an interrupt
  while (true) {
    reap();
    if (exited) break;
    const std::int64_t now = monotonic_ms();
    if (kill_at >= 0 && now >= kill_at) {
      kill(-cmd, SIGKILL);
      kill_at = -1;
    }
    timespec timeout{};
    if (kill_at >= 0) {
      timeout.tv_sec = (kill_at - now) / 1000;
      timeout.tv_nsec = (kill_at - now) % 1000 * 1000000;
    }
    pollfd pfd{life, POLLIN, 0};
    const int r = ppoll(&pfd, life >= 0 ? 1 : 0, kill_at >= 0 ? &timeout : nullptr, &wait_mask);
    if (r <= 0 || life < 0 || pfd.revents == 0) continue;
    char c = 0;
    const ssize_t n = read(life, &c, 1);
    if (n == 1) {
      kill(-cmd, SIGKILL);  // the timeout: no grace
    } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
      // The driver was interrupted, or died: ask the group to end, then make it.
      close(life);
      life = -1;
      kill(-cmd, SIGTERM);
      kill(-cmd, SIGCONT);  // a stopped process must run to act on SIGTERM
      kill_at = monotonic_ms() + kTermGraceMs;
    }
  }
  kill(-cmd, SIGKILL);  // what the command left running in its group
  write_report(p.status_w, kExited, status);
  const std::int64_t give_up = monotonic_ms() + kReapLimitMs;
  while ((kill(-cmd, 0) == 0 || errno == EPERM) && monotonic_ms() < give_up) {
    timespec tick{0, 10 * 1000000};
    ppoll(nullptr, 0, &tick, &wait_mask);
    reap();
  }
  _exit(0);
}
// Blocking read of exactly `n` bytes; false on EOF or error before that.
bool read_all(int fd, void* p, std::size_t n) {
  auto* c = static_cast<char*>(p);
  while (n > 0) {
    const ssize_t k = read(fd, c, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    c += k;
    n -= static_cast<std::size_t>(k);
  }
  return true;
}

}  // namespace

ProcessRunner::ProcessRunner() {
  // A program that exits without reading stdin must not kill arbo with SIGPIPE; the child
  // gets the default disposition back before exec.
  signal(SIGPIPE, SIG_IGN);
}

bool ProcessRunner::run(const std::vector<std::string>& command, const std::string& workdir,
                        const std::string& input, double timeout_seconds,
                        const std::atomic<bool>* interrupt, ProcessRun& r, std::string& error) {
  const auto interrupted = [interrupt] { return interrupt != nullptr && interrupt->load(); };
  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1}, exec[2] = {-1, -1},
      status[2] = {-1, -1}, life[2] = {-1, -1};
  const auto close_all = [&] {
    for (int* p : {in, out, err, exec, status, life}) {
      close_driver_end(p[0]);
      close_driver_end(p[1]);
    }
  };
  // From the first pipe to the registration of the driver's ends, no other evaluation forks:
  // its supervisor would keep this one's ends open (see SpawnPlan::other_ends).
  std::unique_lock<std::recursive_mutex> spawning(spawn_mutex_);
  if (!make_pipe(in) || !make_pipe(out) || !make_pipe(err) || !make_pipe(exec) ||
      !make_pipe(status) || !make_pipe(life)) {
    error = fmt::format("cannot create pipes: {}", std::strerror(errno));
    close_all();
    return false;
  }
  std::vector<char*> argv;
  for (auto& a : command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  SpawnPlan plan;
  plan.argv = argv.data();
  plan.workdir = workdir.c_str();
  plan.in_r = in[0];
  plan.out_w = out[1];
  plan.err_w = err[1];
  plan.exec_w = exec[1];
  plan.status_w = status[1];
  plan.life_r = life[0];
  plan.max_fd = static_cast<int>(std::clamp<long>(sysconf(_SC_OPEN_MAX), 1024, 1 << 20));
  const int driver_ends[6] = {in[1], out[0], err[0], exec[0], status[0], life[1]};
  std::copy(std::begin(driver_ends), std::end(driver_ends), std::begin(plan.driver_ends));
  const std::vector<int> others = open_ends_;  // allocated before fork()
  plan.other_ends = others.data();
  plan.other_count = others.size();

  // Interrupts stay blocked in the supervisor; blocking them across fork() also keeps the
  // CLI's handler from running in the child.
  sigset_t interrupts;
  sigemptyset(&interrupts);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&interrupts, s);
  pthread_sigmask(SIG_BLOCK, &interrupts, &plan.driver_mask);
  const pid_t sup = fork();
  if (sup == 0) supervise(plan);
  const int fork_errno = errno;
  pthread_sigmask(SIG_SETMASK, &plan.driver_mask, nullptr);
  for (int* fd : {&in[0], &out[1], &err[1], &exec[1], &status[1], &life[0]}) close_fd(*fd);
  open_ends_.insert(open_ends_.end(), std::begin(driver_ends), std::end(driver_ends));
  spawning.unlock();
  if (sup < 0) {
    error = fmt::format("fork failed: {}", std::strerror(fork_errno));
    close_all();
    return false;
  }
  const auto finish = [&] {
    close_all();
    while (waitpid(sup, nullptr, 0) < 0 && errno == EINTR) {
    }
  };

  Report started;
  if (!read_all(status[0], &started, sizeof started) || started.kind != kStarted) {
    error = started.kind == kForkFailed
                ? fmt::format("fork failed: {}", std::strerror(started.value))
                : std::string("the process supervising the command could not start");
    finish();
    return false;
  }
  int exec_errno = 0;
  if (read_all(exec[0], &exec_errno, sizeof exec_errno)) {
    error = fmt::format("cannot run '{}' in {}: {}", command.front(), workdir,
                        std::strerror(exec_errno));
    finish();
    return false;
  }
  close_driver_end(exec[0]);
  set_nonblock(in[1]);
  set_nonblock(out[0]);
  set_nonblock(err[0]);
  set_nonblock(status[0]);

  // Beyond 10^9 s the steady clock's nanoseconds would overflow; that is no deadline at all.
  const auto deadline = timeout_seconds > 0 && timeout_seconds < 1e9
                            ? std::chrono::steady_clock::now() +
                                  std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                      std::chrono::duration<double>(timeout_seconds))
                            : std::chrono::steady_clock::time_point::max();
  std::size_t written = 0;
  char buf[65536];
  // Bytes read into `sink`; 0 when nothing was ready, and then `fd` is closed at its end.
  const auto read_into = [&](int& fd, TailBuffer& sink) -> std::size_t {
    ssize_t n;
    do {
      n = read(fd, buf, sizeof buf);
    } while (n < 0 && errno == EINTR);
    if (n > 0) {
      sink.append(buf, static_cast<std::size_t>(n));
      return static_cast<std::size_t>(n);
    }
    if (n == 0 || errno != EAGAIN) close_driver_end(fd);
    return 0;
  };
  // Writing stdin and draining both outputs in one poll loop avoids deadlock when the
  // command prints a lot before reading its input. The loop ends with the supervisor's
  // report that the command exited, not with the end of its output: a process the command
  // left behind may hold stdout open.
  bool reported = false;
  while (!reported && r.lost.empty()) {
    if (interrupted()) {
      r.interrupted = true;
      break;
    }
    const auto now = std::chrono::steady_clock::now();
    if (!r.timed_out && now >= deadline) {
      r.timed_out = true;
      const char kill_now = 'K';
      [[maybe_unused]] auto w = write(life[1], &kill_now, 1);
    }
    int wait_ms = kInterruptPollMs;
    if (!r.timed_out && deadline != std::chrono::steady_clock::time_point::max()) {
      wait_ms = static_cast<int>(std::min<long long>(
          wait_ms,
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count() + 1));
    }
    pollfd fds[4];
    int nfds = 0;
    fds[nfds++] = {status[0], POLLIN, 0};
    if (in[1] >= 0) fds[nfds++] = {in[1], POLLOUT, 0};
    if (out[0] >= 0) fds[nfds++] = {out[0], POLLIN, 0};
    if (err[0] >= 0) fds[nfds++] = {err[0], POLLIN, 0};
    if (poll(fds, static_cast<nfds_t>(nfds), wait_ms) < 0 && errno != EINTR) {
      r.lost = fmt::format("waiting for the command failed: {}; its group was killed",
                           std::strerror(errno));
      killpg(started.value, SIGKILL);
      break;
    }
    for (int k = 1; k < nfds; ++k) {
      if (fds[k].revents == 0) continue;
      if (fds[k].fd == in[1]) {
        const ssize_t w = write(in[1], input.data() + written, input.size() - written);
        if (w > 0) written += static_cast<std::size_t>(w);
        if (w < 0 && errno != EAGAIN) written = input.size();  // EPIPE: stdin ignored
        if (written >= input.size()) close_driver_end(in[1]);
      } else if (fds[k].fd == out[0]) {
        read_into(out[0], r.out);
      } else {
        read_into(err[0], r.err);
      }
    }
    if (fds[0].revents != 0) {
      Report rep;
      const ssize_t n = read(status[0], &rep, sizeof rep);
      if (n == sizeof rep && rep.kind == kExited) {
        r.status = rep.value;
        reported = true;
      } else if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
        // The supervisor died without a report (killed by someone): end the group here.
        killpg(started.value, SIGKILL);
        r.lost = "the process supervising the command died unexpectedly; its group was killed";
        reported = true;
      }
    }
  }
  if (r.interrupted) {
    // Closing the life pipe makes the supervisor end the group (SIGTERM, grace, SIGKILL);
    // closing the outputs first lets a command blocked on a full pipe die of SIGPIPE.
    finish();
    return true;
  }
  // The command has exited; what it wrote is in the pipes, at most a pipe's capacity each.
  // Reading that much (not up to EOF, which a process that left the group may hold back)
  // gets all of it.
  for (auto [fd, sink] : {std::pair{&out[0], &r.out}, std::pair{&err[0], &r.err}}) {
    if (*fd < 0) continue;
    const int capacity = fcntl(*fd, F_GETPIPE_SZ);
    std::size_t left = capacity > 0 ? static_cast<std::size_t>(capacity) : sizeof buf;
    while (*fd >= 0 && left > 0) {
      const std::size_t got = read_into(*fd, *sink);
      if (got == 0) break;
      left -= std::min(left, got);
    }
  }
  r.out.finish();
  r.err.finish();
  finish();
  return true;
}

// Closes one of the driver's ends of a pipe and forgets it (no-op for -1).
void ProcessRunner::close_driver_end(int& fd) {
  if (fd < 0) return;
  std::lock_guard<std::recursive_mutex> lock(spawn_mutex_);
  const auto it = std::find(open_ends_.begin(), open_ends_.end(), fd);
  if (it != open_ends_.end()) open_ends_.erase(it);
  close_fd(fd);
}

std::string stderr_suffix(const std::string& err) {
  const std::string t = tail(err, kStderrTail);
  return t.empty() ? std::string() : "; stderr: " + t;
}

EvalOutcome outcome_of_run(const ProcessRun& r, double timeout_seconds,
                           const std::vector<BlackBoxConstraint>& constraints) {
  EvalOutcome failed;
  if (!r.lost.empty()) {
    failed.reason = r.lost + stderr_suffix(r.err.text());
    return failed;
  }
  const int status = r.status;
  if (r.timed_out) {
    failed.reason = fmt::format("command timed out after {} s and was killed{}", timeout_seconds,
                                stderr_suffix(r.err.text()));
    return failed;
  }
  if (WIFSIGNALED(status)) {
    failed.reason = fmt::format("command killed by signal {} ({}){}", WTERMSIG(status),
                                strsignal(WTERMSIG(status)), stderr_suffix(r.err.text()));
    return failed;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
    failed.reason = fmt::format("command exited with status {}{}", WEXITSTATUS(status),
                                stderr_suffix(r.err.text()));
    return failed;
  }
  if (!r.out.truncated()) return parse_command_output(r.out.text(), constraints);
  // More than kMaxOutput: the result is the last line, which must be whole in the tail.
  const std::string lines = r.out.whole_lines();
  if (trim(lines).empty()) {
    failed.reason = fmt::format(
        "command output ends with a line longer than {} MiB, the most that is read of a result",
        kMaxOutput >> 20);
    return failed;
  }
  return parse_command_output(lines, constraints);
}

}  // namespace arbo::kernel
