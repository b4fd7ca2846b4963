// SPDX-License-Identifier: MIT
/// @file
/// @brief `to_toml`: the resolved pipeline as a complete document that reads back identically.
#include <fmt/format.h>

#include "arbo/kernel/pipeline.hpp"
#include "config/toml_util.hpp"

namespace arbo::kernel {

namespace {

using config::format_double;
using config::format_key;
using config::quote_string;

// A TOML array of basic strings.
std::string quote_strings(const std::vector<std::string>& values) {
  std::string array = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) array += ", ";
    array += quote_string(values[i]);
  }
  return array + "]";
}

std::string format_param(const sdk::ParamValue& value) {
  struct Visitor {
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(std::int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const { return format_double(d); }
    std::string operator()(const std::string& s) const { return quote_string(s); }
    std::string operator()(const std::vector<double>& v) const {
      std::string out = "[";
      for (std::size_t i = 0; i < v.size(); ++i) {
        if (i > 0) out += ", ";
        out += format_double(v[i]);
      }
      return out + "]";
    }
  };
  return std::visit(Visitor{}, value);
}

std::string format_value(const sdk::Value& value) {
  struct Visitor {
    // An inactive marker has no TOML form; callers never pass one (defaults are optional).
    std::string operator()(std::monostate) const { return "\"\""; }
    std::string operator()(double d) const { return format_double(d); }
    std::string operator()(std::int64_t i) const { return std::to_string(i); }
    std::string operator()(const std::string& s) const { return quote_string(s); }
    std::string operator()(bool b) const { return b ? "true" : "false"; }
  };
  return std::visit(Visitor{}, value);
}

void write_kv(std::string& out, std::string_view key, std::string_view value) {
  out += fmt::format("{} = {}\n", format_key(key), value);
}

// A plugin slot's body: `plugin = "<name>"` and then every parameter, defaults included.
void write_component_body(std::string& out, const ComponentSpec& spec) {
  write_kv(out, "plugin", quote_string(spec.name));
  for (const auto& [key, value] : spec.params.values()) write_kv(out, key, format_param(value));
}

void write_parameter(std::string& out, const sdk::Parameter& p) {
  out += "\n[[problem.parameters]]\n";
  write_kv(out, "name", quote_string(p.name));
  write_kv(out, "type", quote_string(sdk::to_string(p.type)));
  switch (p.type) {
    case sdk::ParamType::Real:
      write_kv(out, "low", format_double(p.lower));
      write_kv(out, "high", format_double(p.upper));
      write_kv(out, "log", p.log_scale ? "true" : "false");
      break;
    case sdk::ParamType::Integer:
      write_kv(out, "low", std::to_string(static_cast<std::int64_t>(p.lower)));
      write_kv(out, "high", std::to_string(static_cast<std::int64_t>(p.upper)));
      write_kv(out, "log", p.log_scale ? "true" : "false");
      break;
    case sdk::ParamType::Categorical: write_kv(out, "choices", quote_strings(p.choices)); break;
    case sdk::ParamType::Binary: break;
  }
  // An automatic default (monostate) is the absence of the key.
  if (!std::holds_alternative<std::monostate>(p.default_value)) {
    write_kv(out, "default", format_value(p.default_value));
  }
  if (p.condition) {
    std::string values = "[";
    for (std::size_t i = 0; i < p.condition->values.size(); ++i) {
      if (i > 0) values += ", ";
      values += format_value(p.condition->values[i]);
    }
    values += "]";
    write_kv(out, "active_if",
             fmt::format("{{ {} = {} }}", format_key(p.condition->parent), values));
  }
}

}  // namespace

const char* to_string(ProposalOptions::Pending rule) noexcept {
  switch (rule) {
    case ProposalOptions::Pending::ConstantLiarWorst: return "constant_liar_worst";
    case ProposalOptions::Pending::ConstantLiarBest: return "constant_liar_best";
    case ProposalOptions::Pending::ConstantLiarMean: return "constant_liar_mean";
    case ProposalOptions::Pending::Ignore: return "ignore";
  }
  return "unknown";
}

std::string to_toml(const Pipeline& pipeline) {
  std::string out;
  out += "[study]\n";
  write_kv(out, "name", quote_string(pipeline.name));
  // TOML integers are signed 64-bit; the loader only accepts seeds in that range.
  write_kv(out, "seed", std::to_string(pipeline.seed));
  write_kv(out, "budget", std::to_string(pipeline.budget));
  write_kv(out, "direction", pipeline.maximize ? "\"maximize\"" : "\"minimize\"");
  write_kv(out, "time_limit", format_double(pipeline.time_limit_seconds));
  write_kv(out, "workers", std::to_string(pipeline.workers));

  const ProblemSpec& problem = pipeline.problem;
  out += "\n[problem]\n";
  if (problem.plugin) {
    write_component_body(out, *problem.plugin);
    write_kv(out, "noise", format_double(problem.noise));
  } else {
    write_kv(out, "command", quote_strings(problem.command));
    write_kv(out, "timeout", format_double(problem.timeout_seconds));
    write_kv(out, "workdir", quote_string(problem.working_directory));
    // Written only for Slurm, so that local pipelines read back byte for byte as before.
    if (problem.executor == Executor::Slurm) write_kv(out, "executor", "\"slurm\"");
    for (const auto& p : problem.parameters) write_parameter(out, p);
    if (problem.executor == Executor::Slurm) {
      const SlurmOptions& o = problem.slurm;
      out += "\n[problem.slurm]\n";
      if (!o.partition.empty()) write_kv(out, "partition", quote_string(o.partition));
      if (!o.memory.empty()) write_kv(out, "memory", quote_string(o.memory));
      if (o.cpus > 0) write_kv(out, "cpus", std::to_string(o.cpus));
      write_kv(out, "job_name", quote_string(o.job_name));
      write_kv(out, "sbatch_args", quote_strings(o.sbatch_args));
      write_kv(out, "poll", format_double(o.poll_seconds));
      write_kv(out, "cancel_on_exit", o.cancel_on_exit ? "true" : "false");
    }
    // A built-in problem's constraints come from the problem itself (the engine fills
    // `black_box`), so they are written only for an external command.
    for (const auto& c : pipeline.black_box) {
      out += "\n[[black_box_constraints]]\n";
      write_kv(out, "name", quote_string(c.name));
      write_kv(out, "sense", c.less_equal ? "\"<=\"" : "\">=\"");
      write_kv(out, "threshold", format_double(c.threshold));
    }
  }

  for (const auto& c : pipeline.known_constraints) {
    out += "\n[[known_constraints]]\n";
    write_component_body(out, c);
  }

  out += "\n[initial_design]\n";
  write_kv(out, "method", quote_string(to_string(pipeline.design)));
  write_kv(out, "size", std::to_string(pipeline.design_size));

  if (pipeline.surrogate) {
    out += "\n[surrogate]\n";
    write_component_body(out, *pipeline.surrogate);
  }
  if (pipeline.acquisition) {
    out += "\n[acquisition]\n";
    write_component_body(out, *pipeline.acquisition);
  }
  out += "\n[inner_solver]\n";
  write_component_body(out, pipeline.inner_solver);
  if (pipeline.model_solver) {
    out += "\n[model_solver]\n";
    write_component_body(out, *pipeline.model_solver);
  }
  // Written only when on, so that pipelines without it read back byte for byte as before.
  if (!pipeline.augmentation.cheap_constraints.empty()) {
    out += "\n[augmentation]\n";
    write_kv(out, "cheap_constraints", quote_strings(pipeline.augmentation.cheap_constraints));
    write_kv(out, "points", std::to_string(pipeline.augmentation.points));
  }
  const ProposalOptions& proposal = pipeline.proposal;
  if (proposal.representative || proposal.known_penalty > 0.0 || proposal.exclude_evaluated ||
      proposal.pending != ProposalOptions::Pending::ConstantLiarWorst) {
    out += "\n[proposal]\n";
    write_kv(out, "representative", proposal.representative ? "true" : "false");
    write_kv(out, "known_penalty", format_double(proposal.known_penalty));
    write_kv(out, "exclude_evaluated", proposal.exclude_evaluated ? "true" : "false");
    write_kv(out, "pending", quote_string(to_string(proposal.pending)));
  }
  return out;
}

}  // namespace arbo::kernel
