// SPDX-License-Identifier: MIT
// External-command evaluator: one child process per evaluation, JSON in, JSON out.
#include <fmt/format.h>

#include "arbo/kernel/errors.hpp"
#include "arbo/kernel/evaluator.hpp"
#include "engine/process.hpp"

namespace arbo::kernel {

namespace {

class CommandEvaluator final : public Evaluator {
 public:
  CommandEvaluator(ProblemSpec spec, std::vector<BlackBoxConstraint> cons,
                   std::filesystem::path base)
      : spec_(std::move(spec)), cons_(std::move(cons)) {
    if (spec_.command.empty()) throw ConfigError("external command is empty");
    std::filesystem::path wd =
        spec_.working_directory.empty() ? base : std::filesystem::path(spec_.working_directory);
    if (wd.is_relative()) wd = base / wd;
    workdir_ = wd.empty() ? std::string(".") : wd.string();
  }

  // Safe to call from several threads at once (`[study] workers`): the members it reads are
  // constant, and ProcessRunner::run is thread-safe.
  EvalOutcome evaluate(std::int64_t id, const Eigen::VectorXd&,
                       const std::string& params_json) override {
    if (interrupted()) throw InterruptedError(interrupted_message(id));
    const std::string input = fmt::format("{{\"id\": {}, \"params\": {}}}\n", id, params_json);
    ProcessRun r;
    EvalOutcome failed;
    if (!runner_.run(spec_.command, workdir_, input, spec_.timeout_seconds, interrupt_flag(), r,
                     failed.reason)) {
      return failed;
    }
    if (r.interrupted) throw InterruptedError(interrupted_message(id));
    return outcome_of_run(r, spec_.timeout_seconds, cons_);
  }

 private:
  static std::string interrupted_message(std::int64_t id) {
    return fmt::format("interrupted during the evaluation of observation {}, which stays pending",
                       id);
  }

  ProblemSpec spec_;
  std::vector<BlackBoxConstraint> cons_;
  std::string workdir_;
  ProcessRunner runner_;
};

}  // namespace

std::unique_ptr<Evaluator> make_command_evaluator(const ProblemSpec& spec,
                                                  std::vector<BlackBoxConstraint> constraints,
                                                  const std::filesystem::path& base_dir) {
  return std::make_unique<CommandEvaluator>(spec, std::move(constraints), base_dir);
}

}  // namespace arbo::kernel
