// SPDX-License-Identifier: MIT
// Slurm evaluator: one batch job per evaluation (docs/slurm.md, decision 34).
//
// Each evaluation has a directory <study>/slurm/<observation id>/ that is its whole record:
//   input.json   what the command reads on stdin ({"id": N, "params": {...}})
//   job.sh       the batch script (runs the command with the files below)
//   job_id       the id sbatch returned (written atomically right after submission)
//   started      the job's id, written by the job itself when it starts
//   stdout, stderr   the command's outputs
//   exit_code    the command's exit status, written atomically by the job when the command ends
//   signalled    the job received SIGTERM (Slurm ending it), written before exit_code
//   slurm.out    what Slurm itself printed for the job (time limit, out of memory, ...)
//   cancelled    the driver cancelled the job (--cancel-on-exit): a resumed run submits again
// The files, not the driver, carry the state: a driver killed at any moment and resumed finds
// the job again (job_id, started, or squeue by job name and script path) and collects a result
// that was written while it was down, and submits again only what provably never ran.
#include <sys/wait.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "arbo/kernel/errors.hpp"
#include "arbo/kernel/evaluator.hpp"
#include "engine/process.hpp"
#include "util/clock.hpp"
#include "util/test_hook.hpp"

namespace arbo::kernel {

namespace fs = std::filesystem;

namespace {

// How often an evaluation looks for its result file: a stat() per running job, cheap even on
// a shared filesystem, and the bound on how late a finished job is noticed.
constexpr double kFilePollSeconds = 0.25;
// sbatch, squeue and scancel answer in milliseconds; a controller that does not answer in this
// time is down, and sbatch's own retries fit in it.
constexpr double kSlurmCommandTimeout = 120.0;
// How long a job whose command was killed by a signal is followed until Slurm says whether it
// was Slurm that ended it: the job's shell exits moments after recording the death, and slurmd
// kills what is left of a timed-out or cancelled job after KillWait (30 s by default).
constexpr double kSettleSeconds = 90.0;
constexpr std::size_t kSlurmOutTail = 1000;  // characters of slurm.out quoted in a reason

// Single-quoted for /bin/sh: the job script runs argv exactly as given, like the local
// executor's execvp.
std::string sh_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\'') {
      q += "'\\''";
    } else {
      q += c;
    }
  }
  return q + "'";
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Streams a file of any size into a TailBuffer (the last bytes are what counts).
void read_tail(const fs::path& p, TailBuffer& sink) {
  std::ifstream in(p, std::ios::binary);
  char buf[65536];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    sink.append(buf, static_cast<std::size_t>(in.gcount()));
  }
  sink.finish();
}

std::string trimmed(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  std::size_t b = 0;
  while (b < s.size() && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  return s.substr(b);
}

std::string last_chars(const std::string& s, std::size_t n) {
  const std::string t = trimmed(s);
  return t.size() > n ? "..." + t.substr(t.size() - n) : t;
}

// Writes `text` to `p` through a temporary file and a rename, so that a reader (a resumed
// driver) sees all of it or nothing.
void write_atomically(const fs::path& p, const std::string& text) {
  const fs::path tmp = p.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      throw StudyError(fmt::format("cannot write {}: {}", tmp.string(), std::strerror(errno)));
    }
  }
  fs::rename(tmp, p);
}

// States after which a job runs no more (squeue/sacct names; "CANCELLED by 0" is cut to its
// first word before this test).
bool ended(const std::string& state) {
  static const std::set<std::string> kEnded = {
      "BOOT_FAIL",     "CANCELLED", "COMPLETED", "DEADLINE", "FAILED", "NODE_FAIL",
      "OUT_OF_MEMORY", "PREEMPTED", "REVOKED",   "TIMEOUT",  "GONE"};
  return kEnded.count(state) > 0;
}

// Ended states in which Slurm, not the job's own command, ended the job.
bool ended_by_slurm(const std::string& state) {
  return ended(state) && state != "COMPLETED" && state != "FAILED" && state != "GONE";
}

// A job id as sbatch --parsable prints it ("123" or "123;cluster").
std::string parse_job_id(const std::string& out) {
  std::string id;
  for (char c : trimmed(out)) {
    if (c < '0' || c > '9') break;
    id += c;
  }
  return id;
}

// A Slurm command that ran to its end and exited 0.
bool succeeded(const ProcessRun& r) {
  return r.lost.empty() && !r.timed_out && WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0;
}

// Slurm's time limit, in whole minutes (its unit), at least one.
std::int64_t minutes_for(double seconds) {
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(seconds / 60.0)));
}

// The study's view of the queue: one squeue call for all of its running jobs per poll
// interval, shared by the evaluations (each on its own thread), so that q jobs cost the
// controller one query per interval, not q.
class JobStates {
 public:
  JobStates(ProcessRunner& runner, double poll) : runner_(runner), poll_(poll) {}

  void watch(const std::string& job) {
    std::lock_guard<std::mutex> lock(mutex_);
    watched_.insert(job);
  }
  void forget(const std::string& job) {
    std::lock_guard<std::mutex> lock(mutex_);
    watched_.erase(job);
    states_.erase(job);
  }

  // The job's state as of a query at most one poll interval old: a squeue state name, "GONE"
  // when neither squeue nor sacct knows the job, or empty when squeue could not be asked (the
  // controller down): the evaluation then waits, as the job may still write its result.
  std::string state(const std::string& job) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!queried_ || seconds_since(*queried_) >= poll_ || states_.count(job) == 0) query();
    const auto it = states_.find(job);
    return it == states_.end() ? std::string() : it->second;
  }

 private:
  void query() {
    queried_ = Clock::now();
    std::string ids;
    for (const auto& j : watched_) ids += (ids.empty() ? "" : ",") + j;
    if (ids.empty()) return;
    ProcessRun r;
    std::string error;
    const std::vector<std::string> argv = {"squeue", "--noheader", "--states=all", "--jobs=" + ids,
                                           "--format=%i|%T"};
    if (!runner_.run(argv, ".", "", kSlurmCommandTimeout, nullptr, r, error)) {
      throw ConfigError(fmt::format("problem.executor = \"slurm\": {}", error));
    }
    const bool exited = r.lost.empty() && !r.timed_out && WIFEXITED(r.status);
    // squeue exits 1 with "Invalid job id" when none of the ids is known any more.
    const bool none_known = exited && WEXITSTATUS(r.status) != 0 &&
                            r.err.text().find("Invalid job id") != std::string::npos;
    if (!exited || (WEXITSTATUS(r.status) != 0 && !none_known)) return;  // asked again later
    std::set<std::string> seen;
    std::istringstream lines(none_known ? std::string() : r.out.text());
    for (std::string line; std::getline(lines, line);) {
      const auto bar = line.find('|');
      if (bar == std::string::npos) continue;
      const std::string id = trimmed(line.substr(0, bar));
      if (watched_.count(id) == 0) continue;
      states_[id] = trimmed(line.substr(bar + 1));
      seen.insert(id);
    }
    for (const auto& id : watched_) {
      if (seen.count(id) == 0) states_[id] = accounted_state(id);
    }
  }

  // A job squeue no longer lists (it forgets ended jobs after MinJobAge, 300 s by default):
  // sacct knows its final state where the cluster keeps accounting.
  std::string accounted_state(const std::string& id) {
    ProcessRun r;
    std::string error;
    const std::vector<std::string> argv = {"sacct",       "--noheader",   "--allocations",
                                           "--parsable2", "--jobs=" + id, "--format=State"};
    if (runner_.run(argv, ".", "", kSlurmCommandTimeout, nullptr, r, error) && succeeded(r)) {
      std::string state = trimmed(r.out.text());
      state = state.substr(0, state.find_first_of(" \n"));
      if (!state.empty()) return state;
    }
    return "GONE";
  }

  ProcessRunner& runner_;
  double poll_;
  std::mutex mutex_;
  std::set<std::string> watched_;
  std::map<std::string, std::string> states_;
  std::optional<Clock::time_point> queried_;
};

class SlurmEvaluator final : public Evaluator {
 public:
  SlurmEvaluator(ProblemSpec spec, std::vector<BlackBoxConstraint> cons, fs::path study_dir)
      : spec_(std::move(spec)),
        cons_(std::move(cons)),
        root_(fs::absolute(study_dir) / "slurm"),
        states_(runner_, spec_.slurm.poll_seconds),
        cancel_on_exit_(spec_.slurm.cancel_on_exit) {
    if (spec_.command.empty()) throw ConfigError("external command is empty");
    fs::path wd = spec_.working_directory.empty() ? fs::absolute(study_dir)
                                                  : fs::path(spec_.working_directory);
    if (wd.is_relative()) wd = fs::absolute(study_dir) / wd;
    workdir_ = wd.string();
  }

  void cancel_on_interrupt(bool on) override { cancel_on_exit_ = spec_.slurm.cancel_on_exit || on; }

  // Thread-safe ([study] workers): each call works in its own directory; the runner and the
  // queue view serialize what they share.
  EvalOutcome evaluate(std::int64_t id, const Eigen::VectorXd&,
                       const std::string& params_json) override {
    if (interrupted()) throw InterruptedError(interrupted_message(id, {}));
    const fs::path dir = root_ / std::to_string(id);
    std::string job = attach(dir, id);
    if (job.empty()) job = submit(dir, id, params_json);
    states_.watch(job);
    struct Forget {
      JobStates& states;
      const std::string& job;
      ~Forget() { states.forget(job); }
    } forget{states_, job};
    return wait(dir, id, job);
  }

 private:
  std::string job_name(std::int64_t id) const {
    return fmt::format("{}-{}", spec_.slurm.job_name, id);
  }

  // The job of an evaluation that an earlier run started, or empty when there is none to
  // follow (and the directory is cleared for a new submission).
  std::string attach(const fs::path& dir, std::int64_t id) {
    std::error_code ec;
    if (!fs::exists(dir, ec)) return {};
    // A job the driver cancelled (--cancel-on-exit) is submitted again, whatever it wrote
    // while it was being killed.
    if (!fs::exists(dir / "cancelled", ec)) {
      if (fs::exists(dir / "job_id", ec)) return trimmed(read_text(dir / "job_id"));
      if (fs::exists(dir / "started", ec)) {
        const std::string job = parse_job_id(read_text(dir / "started"));
        if (!job.empty()) {
          write_atomically(dir / "job_id", job + "\n");
          return job;
        }
      }
      // Killed between sbatch and the job_id file: the job, if sbatch accepted it, carries this
      // evaluation's name and script.
      if (fs::exists(dir / "job.sh", ec)) {
        if (std::string job = find_by_name(dir, id); !job.empty()) {
          write_atomically(dir / "job_id", job + "\n");
          return job;
        }
      }
    }
    fs::remove_all(dir, ec);
    if (ec) {
      throw StudyError(
          fmt::format("cannot clear {} for a new submission: {}", dir.string(), ec.message()));
    }
    return {};
  }

  std::string find_by_name(const fs::path& dir, std::int64_t id) {
    ProcessRun r;
    std::string error;
    const std::vector<std::string> argv = {"squeue", "--noheader", "--states=all",
                                           "--name=" + job_name(id), "--format=%i|%o"};
    if (!runner_.run(argv, ".", "", kSlurmCommandTimeout, interrupt_flag(), r, error)) {
      throw ConfigError(fmt::format("problem.executor = \"slurm\": {}", error));
    }
    if (r.interrupted) throw InterruptedError(interrupted_message(id, {}));
    if (!succeeded(r)) {
      // Not knowing whether the job exists, submitting again could run the evaluation twice.
      throw StudyError(fmt::format(
          "observation {} may have been submitted to Slurm by a run that was killed, and squeue "
          "cannot say (it failed{}); run again when the controller answers",
          id, stderr_suffix(r.err.text())));
    }
    const std::string script = (dir / "job.sh").string();
    std::istringstream lines(r.out.text());
    for (std::string line; std::getline(lines, line);) {
      const auto bar = line.find('|');
      if (bar != std::string::npos && trimmed(line.substr(bar + 1)) == script) {
        return trimmed(line.substr(0, bar));
      }
    }
    return {};
  }

  std::string submit(const fs::path& dir, std::int64_t id, const std::string& params_json) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) {
      throw StudyError(fmt::format("cannot create {}: {}", dir.string(), ec.message()));
    }
    const auto file = [&](const char* name) { return sh_quote((dir / name).string()); };
    write_atomically(dir / "input.json",
                     fmt::format("{{\"id\": {}, \"params\": {}}}\n", id, params_json));
    std::string argv;
    for (const auto& a : spec_.command) argv += (argv.empty() ? "" : " ") + sh_quote(a);
    write_atomically(
        dir / "job.sh",
        fmt::format("#!/bin/sh\n"
                    "# arbo: observation {} of the study in {}\n"
                    "arbo_signalled() {{ : > {}; }}\n"
                    "trap arbo_signalled TERM\n"
                    "echo \"$SLURM_JOB_ID\" > {}\n"
                    "{} < {} > {} 2> {}\n"
                    "echo $? > {} && mv {} {}\n",
                    id, root_.parent_path().string(), file("signalled"), file("started"), argv,
                    file("input.json"), file("stdout"), file("stderr"), file("exit_code.tmp"),
                    file("exit_code.tmp"), file("exit_code")));
    const SlurmOptions& o = spec_.slurm;
    std::vector<std::string> sbatch = {
        "sbatch",
        "--parsable",
        "--job-name=" + job_name(id),
        "--output=" + (dir / "slurm.out").string(),
        "--chdir=" + workdir_,
        fmt::format("--time={}", minutes_for(spec_.timeout_seconds))};
    if (!o.partition.empty()) sbatch.push_back("--partition=" + o.partition);
    if (!o.memory.empty()) sbatch.push_back("--mem=" + o.memory);
    if (o.cpus > 0) sbatch.push_back(fmt::format("--cpus-per-task={}", o.cpus));
    sbatch.insert(sbatch.end(), o.sbatch_args.begin(), o.sbatch_args.end());
    sbatch.push_back((dir / "job.sh").string());

    ProcessRun r;
    std::string error;
    if (!runner_.run(sbatch, ".", "", kSlurmCommandTimeout, interrupt_flag(), r, error)) {
      throw ConfigError(fmt::format("problem.executor = \"slurm\": {}", error));
    }
    // Interrupted while sbatch ran: the job may exist; a resumed run finds it by name.
    if (r.interrupted) throw InterruptedError(interrupted_message(id, {}));
    const std::string job = parse_job_id(r.out.text());
    if (!succeeded(r) || job.empty()) {
      fs::remove_all(dir, ec);
      const std::string why = r.timed_out ? fmt::format("no answer in {} s", kSlurmCommandTimeout)
                              : !r.lost.empty() ? r.lost
                              : succeeded(r)    ? fmt::format("no job id in its output '{}'",
                                                              last_chars(r.out.text(), 200))
                                                : last_chars(r.err.text(), 2000);
      throw ConfigError(
          fmt::format("sbatch refused the job of observation {}: {} (check [problem.slurm] and "
                      "problem.timeout: sbatch {})",
                      id, why, fmt::join(sbatch.begin() + 1, sbatch.end(), " ")));
    }
    test_signal_point("slurm:submitted");
    write_atomically(dir / "job_id", job + "\n");
    return job;
  }

  EvalOutcome wait(const fs::path& dir, std::int64_t id, const std::string& job) {
    const auto poll = std::chrono::duration<double>(spec_.slurm.poll_seconds);
    auto next_query = Clock::now() + std::chrono::duration_cast<Clock::duration>(poll);
    std::optional<Clock::time_point> ended_at;
    std::error_code ec;
    while (true) {
      if (fs::exists(dir / "exit_code", ec)) return collect(dir, job);
      if (interrupted()) {
        if (cancel_on_exit_) cancel(dir, job);
        throw InterruptedError(interrupted_message(id, job));
      }
      if (Clock::now() >= next_query) {
        next_query = Clock::now() + std::chrono::duration_cast<Clock::duration>(poll);
        const std::string state = states_.state(job);
        if (ended(state)) {
          // The result file may show up a moment after the state on a shared filesystem: one
          // more interval before the job counts as ended without one.
          if (!ended_at) {
            ended_at = Clock::now();
          } else {
            if (fs::exists(dir / "exit_code", ec)) return collect(dir, job);
            return ended_without_result(dir, job, state);
          }
        }
      }
      std::this_thread::sleep_for(std::chrono::duration<double>(kFilePollSeconds));
    }
  }

  // The result the job recorded. Slurm ends a job (its time limit, scancel) by sending SIGTERM
  // to all of its processes; the job's shell catches it, lets the command end, and records the
  // command's status and that the job was signalled (job.sh). The shell may also record a
  // command killed by a signal before its own SIGTERM arrives, or the signal may have come from
  // elsewhere (the memory limit, the command itself). In both cases the job's final state says
  // whether Slurm ended it, and such a job is a failed observation naming the state, with what
  // Slurm printed, whatever the command wrote. The state is asked for until the job has ended
  // (moments after the shell exits), at most kSettleSeconds; a controller that does not answer
  // by then leaves the recorded result.
  EvalOutcome collect(const fs::path& dir, const std::string& job) {
    int signal = 0;
    long code = 0;
    EvalOutcome out = recorded_result(dir, job, signal, code);
    std::error_code ec;
    if (signal == 0 && !fs::exists(dir / "signalled", ec)) return out;
    const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                             std::chrono::duration<double>(kSettleSeconds));
    while (Clock::now() < deadline && !interrupted()) {
      const std::string state = states_.state(job);
      if (ended(state)) {
        if (!ended_by_slurm(state)) return out;
        return ended_without_result(
            dir, job, state,
            signal != 0
                ? fmt::format("; its command was killed by signal {}", signal)
                : fmt::format("; its command exited with status {} after Slurm's SIGTERM", code));
      }
      std::this_thread::sleep_for(std::chrono::duration<double>(kFilePollSeconds));
    }
    return out;
  }

  // The exit status and outputs the job wrote; `signal` is set when they say the command was
  // killed by a signal, `code` to the exit status.
  EvalOutcome recorded_result(const fs::path& dir, const std::string& job, int& signal,
                              long& code) {
    ProcessRun r;
    const std::string code_text = trimmed(read_text(dir / "exit_code"));
    char* end = nullptr;
    code = std::strtol(code_text.c_str(), &end, 10);
    if (code_text.empty() || *end != '\0' || code < 0 || code > 255) {
      EvalOutcome failed;
      failed.reason =
          fmt::format("slurm job {}: unreadable exit status '{}'", job, last_chars(code_text, 40));
      return failed;
    }
    read_tail(dir / "stdout", r.out);
    read_tail(dir / "stderr", r.err);
    // The shell reports a command killed by signal N as 128 + N: read back as such.
    signal = code > 128 && code < 128 + NSIG ? static_cast<int>(code - 128) : 0;
    r.status = signal != 0 ? signal : static_cast<int>(code) << 8;
    EvalOutcome out = outcome_of_run(r, spec_.timeout_seconds, cons_);
    if (!out.ok) out.reason = fmt::format("slurm job {}: {}", job, out.reason);
    return out;
  }

  // `left` says what the job recorded, if anything, before Slurm ended it.
  EvalOutcome ended_without_result(const fs::path& dir, const std::string& job,
                                   const std::string& state,
                                   const std::string& left = " and wrote no result") {
    EvalOutcome failed;
    std::string what = state == "GONE" ? std::string("is no longer known to squeue or sacct")
                                       : fmt::format("ended {}", state);
    if (state == "TIMEOUT") {
      what += fmt::format(" (its time limit: problem.timeout = {} s, {} min in Slurm)",
                          spec_.timeout_seconds, minutes_for(spec_.timeout_seconds));
    }
    std::error_code ec;
    const std::string slurm_out = fs::exists(dir / "slurm.out", ec)
                                      ? last_chars(read_text(dir / "slurm.out"), kSlurmOutTail)
                                      : std::string();
    TailBuffer err(kStderrKept);
    if (fs::exists(dir / "stderr", ec)) read_tail(dir / "stderr", err);
    failed.reason = fmt::format("slurm job {} {}{}{}{}", job, what, left,
                                slurm_out.empty() ? std::string() : "; slurm: " + slurm_out,
                                stderr_suffix(err.text()));
    return failed;
  }

  // --cancel-on-exit: the job is marked, then cancelled, so that a resumed run submits the
  // evaluation again (what the killed command left, an exit status of its SIGTERM among it, is
  // not a result). A job that has already written its result is left to be collected, and one
  // scancel could not cancel is unmarked, to be followed again: neither runs twice.
  void cancel(const fs::path& dir, const std::string& job) {
    std::error_code ec;
    if (fs::exists(dir / "exit_code", ec)) return;
    write_atomically(dir / "cancelled", job + "\n");
    ProcessRun r;
    std::string error;
    const bool cancelled =
        runner_.run({"scancel", job}, ".", "", kSlurmCommandTimeout, nullptr, r, error) &&
        succeeded(r);
    if (!cancelled) fs::remove(dir / "cancelled", ec);
  }

  static std::string interrupted_message(std::int64_t id, const std::string& job) {
    return fmt::format("interrupted during the evaluation of observation {}, which stays pending{}",
                       id, job.empty() ? std::string() : fmt::format(" (slurm job {})", job));
  }

  ProblemSpec spec_;
  std::vector<BlackBoxConstraint> cons_;
  fs::path root_;
  std::string workdir_;
  ProcessRunner runner_;
  JobStates states_;
  std::atomic<bool> cancel_on_exit_;
};

}  // namespace

std::unique_ptr<Evaluator> make_slurm_evaluator(const ProblemSpec& spec,
                                                std::vector<BlackBoxConstraint> constraints,
                                                const std::filesystem::path& study_dir) {
  return std::make_unique<SlurmEvaluator>(spec, std::move(constraints), study_dir);
}

}  // namespace arbo::kernel
