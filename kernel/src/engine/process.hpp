// SPDX-License-Identifier: MIT
// Running a program to its end under a supervisor process, and reading what a run means for an
// evaluation. Used by the local command evaluator (the objective itself) and by the Slurm
// evaluator (sbatch, squeue, scancel).
#pragma once

#include <atomic>
#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

#include "arbo/kernel/evaluator.hpp"

namespace arbo::kernel {

constexpr std::size_t kMaxOutput = 4u << 20;    // last bytes of stdout kept; the result is in them
constexpr std::size_t kStderrKept = 64u << 10;  // last bytes of stderr kept

// The last `cap` bytes of a stream of any length, in at most twice that memory: a command may
// print gigabytes of logs before its result line.
class TailBuffer {
 public:
  explicit TailBuffer(std::size_t cap) : cap_(cap) {}

  void append(const char* p, std::size_t n) {
    data_.append(p, n);
    // Trimming only past twice the cap keeps the cost of erase() amortized O(1) per byte.
    if (data_.size() > 2 * cap_) drop_front(data_.size() - cap_);
  }
  // Keeps exactly the last `cap` bytes, so what is kept does not depend on read sizes.
  void finish() {
    if (data_.size() > cap_) drop_front(data_.size() - cap_);
  }
  bool truncated() const noexcept { return dropped_ > 0; }
  const std::string& text() const noexcept { return data_; }
  // The kept text from its first whole line on (all of it if nothing was dropped).
  std::string whole_lines() const {
    if (!truncated() || last_dropped_ == '\n') return data_;
    const auto nl = data_.find('\n');
    return nl == std::string::npos ? std::string() : data_.substr(nl + 1);
  }

 private:
  void drop_front(std::size_t n) {
    last_dropped_ = data_[n - 1];
    data_.erase(0, n);
    dropped_ += n;
  }

  std::size_t cap_;
  std::size_t dropped_ = 0;
  char last_dropped_ = 0;
  std::string data_;
};

// What one run of a program left: the tails of its outputs and how it ended.
struct ProcessRun {
  TailBuffer out{kMaxOutput};
  TailBuffer err{kStderrKept};
  int status = 0;  // wait status (when it exited)
  bool timed_out = false;
  bool interrupted = false;
  std::string lost;  // why the program's fate is unknown (its group was killed)
};

// Runs programs, each in its own process group under a small supervisor process, which ends
// the group when the program exits (what it left behind is killed), on a timeout (SIGKILL), on
// an interrupt (SIGTERM, a grace period of 2 s, then SIGKILL) and when the driver dies, even by
// SIGKILL. The supervisor keeps the driver's descriptors, among them the study's lock, until
// the group is gone. The program inherits no descriptor but its stdin, stdout and stderr.
//
// `run` may be called from several threads at once: the forks are serialized, and each
// supervisor closes the driver's pipe ends of the other running programs.
class ProcessRunner {
 public:
  ProcessRunner();

  // Runs `argv` (searched in PATH) in `workdir` with `input` on stdin until it exits, runs
  // longer than `timeout_seconds` (<= 0: no limit) or `*interrupt` is set (null: never).
  // Returns false with `error` set when it could not start (no such program, no pipes).
  bool run(const std::vector<std::string>& argv, const std::string& workdir,
           const std::string& input, double timeout_seconds, const std::atomic<bool>* interrupt,
           ProcessRun& r, std::string& error);

 private:
  void close_driver_end(int& fd);

  // Recursive: a failure while spawning closes the pipes with the lock held.
  std::recursive_mutex spawn_mutex_;
  std::vector<int> open_ends_;  // the driver's ends of the running programs' pipes
};

// "; stderr: <its last 2,000 characters>", or nothing for an empty stderr.
std::string stderr_suffix(const std::string& err);

// The outcome of an objective program that ran to its end (not interrupted): a failure naming
// the cause (lost, timed out after `timeout_seconds`, killed by a signal, non-zero exit, with
// the tail of stderr), else its stdout parsed by parse_command_output; when stdout overflowed
// kMaxOutput, its last whole line.
EvalOutcome outcome_of_run(const ProcessRun& r, double timeout_seconds,
                           const std::vector<BlackBoxConstraint>& constraints);

}  // namespace arbo::kernel
