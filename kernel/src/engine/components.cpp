// SPDX-License-Identifier: MIT
// Assembling a study's components from a resolved pipeline, and loading a problem plugin (shared
// with `arbo problems` / `arbo problem eval`).
#include "engine/components.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "arbo/kernel/errors.hpp"
#include "arbo/kernel/guarded_call.hpp"
#include "arbo/kernel/problem_loader.hpp"
#include "arbo/sdk/capabilities/acquisition.hpp"
#include "arbo/sdk/capabilities/constraint.hpp"
#include "arbo/sdk/capabilities/inner_solver.hpp"
#include "arbo/sdk/capabilities/problem.hpp"
#include "arbo/sdk/capabilities/surrogate.hpp"
#include "arbo/sdk/error.hpp"
#include "arbo/sdk/exclusion.hpp"

namespace arbo::kernel {

namespace {

// The known constraints a problem declares (HasKnownConstraints), as one kernel-side
// constraint component: violation = worst excess over all of them (|g| for equalities).
class ProblemKnownConstraints final : public sdk::Constraint, public sdk::ReportsRowExcesses {
 public:
  ProblemKnownConstraints(std::shared_ptr<sdk::Problem> owner,
                          const sdk::HasKnownConstraints& known,
                          std::vector<sdk::KnownConstraintSpec> specs, std::string id)
      : owner_(std::move(owner)), known_(known), id_(std::move(id)), specs_(std::move(specs)) {}
  double violation(const Eigen::VectorXd& x) const override {
    guarded_call(id_, "known_values", [&] { known_.known_values(x, values_); });
    double worst = 0.0;
    for (Eigen::Index k = 0; k < values_.size(); ++k) {
      worst = std::max(worst, known_excess(specs_[static_cast<std::size_t>(k)], values_[k]));
    }
    return worst;
  }
  double squared_excess(const Eigen::VectorXd& x) const override {
    guarded_call(id_, "known_values", [&] { known_.known_values(x, values_); });
    double sum = 0.0;
    for (Eigen::Index k = 0; k < values_.size(); ++k) {
      const double v = std::max(0.0, known_excess(specs_[static_cast<std::size_t>(k)], values_[k]));
      sum += v * v;
    }
    return std::min(sum, std::numeric_limits<double>::max());
  }
  std::string describe() const override {
    return fmt::format("{} known constraints of {}", specs_.size(), id_);
  }

 private:
  std::shared_ptr<sdk::Problem> owner_;  // keeps `known_` alive
  const sdk::HasKnownConstraints& known_;
  std::string id_;
  std::vector<sdk::KnownConstraintSpec> specs_;
  mutable Eigen::VectorXd values_;
};

const ComponentEntry& entry_of(const PluginRegistry& registry, const ComponentSpec& spec) {
  const ComponentEntry* e = registry.find(spec.kind, spec.name);
  if (e == nullptr) {
    throw ConfigError(fmt::format("component {} is not loaded (check --plugin-path)", spec.id()));
  }
  return *e;
}

template <class T>
std::shared_ptr<T> make(const PluginRegistry& registry, const ComponentSpec& spec,
                        KernelContext& ctx, const sdk::Space& space) {
  const sdk::CreateArgs args{ctx, spec.params, space};
  auto obj = registry.create_as<T>(entry_of(registry, spec), args);
  if (!obj) throw PluginError(component_error(spec.id(), "create", "returned the wrong kind"));
  return obj;
}

// A message about a component the plugin refused at creation (a known constraint's
// expression), followed by where it was written: the parameter the message names, else the
// only one given, else the table.
std::string with_source(const std::string& message, const ComponentSpec& spec) {
  if (spec.sources.empty()) return message;
  const std::string* where = nullptr;
  std::size_t given = 0;
  for (const auto& [key, source] : spec.sources) {
    if (key.empty() || key == "plugin") continue;
    ++given;
    if (where == nullptr && message.find(key) != std::string::npos) where = &source;
  }
  if (where == nullptr) {
    const auto only = std::find_if(spec.sources.begin(), spec.sources.end(), [](const auto& kv) {
      return !kv.first.empty() && kv.first != "plugin";
    });
    where = given == 1 ? &only->second : &spec.sources.begin()->second;
  }
  return fmt::format("{}\n --> {}", message, *where);
}

}  // namespace

// Constraint/polynomial components, so that model-based solvers can formulate the known
// constraints and designs can project onto them; the adapter when that plugin is not loaded.
void add_problem_known_constraints(Components& c, const PluginRegistry& registry,
                                   const std::string& problem_id, const LoadedProblem& lp,
                                   const std::shared_ptr<spdlog::logger>& logger,
                                   const std::atomic<bool>* interrupt) {
  if (lp.known == nullptr || lp.known_specs.empty()) return;
  const ComponentEntry* poly = registry.find(sdk::Kind::Constraint, "polynomial");
  if (poly == nullptr) {
    c.add_known(problem_id + " (known constraints)",
                std::make_shared<ProblemKnownConstraints>(lp.problem, *lp.known, lp.known_specs,
                                                          problem_id),
                nullptr);
    return;
  }
  for (const auto& spec : lp.known_specs) {
    ComponentSpec cs;
    cs.kind = sdk::Kind::Constraint;
    cs.name = "polynomial";
    cs.params = sdk::validate_params(
        guarded_call(poly->id, "params",
                     [&]() -> const sdk::ParamSpecList& { return poly->info.params(); }),
        {{"expression", spec.expression}}, poly->id);
    c.problem_constraint_specs.push_back(std::make_unique<ComponentSpec>(std::move(cs)));
    KernelContext& ctx = c.add_context(poly->id, logger, interrupt);
    std::shared_ptr<sdk::Constraint> made;
    try {
      made = make<sdk::Constraint>(registry, *c.problem_constraint_specs.back(), ctx, c.space);
    } catch (const PluginError& e) {
      // The message names constraint/polynomial already; say which constraint it was making.
      throw PluginError(fmt::format("{} (known constraint '{}' of {}: {})", e.what(), spec.name,
                                    problem_id, spec.expression));
    }
    c.add_known(fmt::format("{} {} (constraint/polynomial)", problem_id, spec.name),
                std::move(made), &ctx);
  }
}

namespace {

// Every component's Context gets the pipeline's model solver: [model_solver] if given, else
// the inner solver when it is one.
void attach_model_solver(Components& c, const Pipeline& pipeline, const PluginRegistry& registry,
                         const std::shared_ptr<spdlog::logger>& logger,
                         const std::atomic<bool>* interrupt) {
  sdk::ModelSolver* ms = nullptr;
  if (pipeline.model_solver) {
    KernelContext& ctx = c.add_context(pipeline.model_solver->id(), logger, interrupt);
    c.model_solver_component =
        make<sdk::InnerSolver>(registry, *pipeline.model_solver, ctx, c.space);
    ms = dynamic_cast<sdk::ModelSolver*>(c.model_solver_component.get());
    if (ms == nullptr) {
      throw ConfigError(
          fmt::format("[model_solver] {} cannot solve models (it does not "
                      "implement arbo::sdk::ModelSolver)",
                      pipeline.model_solver->id()));
    }
  } else {
    ms = dynamic_cast<sdk::ModelSolver*>(c.solver.get());
  }
  for (auto& ctx : c.contexts) ctx->set_model_solver(ms);
  c.model_solver = ms;
}

// A model-based inner solver (one that is a ModelSolver) optimizes the acquisition as a
// model: reject a pipeline whose components cannot formulate themselves, at load time.
void check_formulations(const Components& c, const Pipeline& pipeline) {
  if (dynamic_cast<const sdk::ModelSolver*>(c.solver.get()) == nullptr) return;
  const std::string sid = pipeline.inner_solver.id();
  const auto missing = [&](const std::string& who, const char* capability) {
    return ConfigError(
        fmt::format("{} optimizes the acquisition as a model, but {} cannot "
                    "formulate itself (capability arbo::sdk::{} missing); use a "
                    "black-box inner solver or a component that can",
                    sid, who, capability));
  };
  if (c.acquisition && !dynamic_cast<const sdk::FormulatesAcquisition*>(c.acquisition.get())) {
    throw missing(pipeline.acquisition->id(), "FormulatesAcquisition");
  }
  if (!c.surrogates.empty() &&
      !dynamic_cast<const sdk::FormulatesSurrogate*>(c.surrogates[0].surrogate.get()) &&
      !dynamic_cast<const sdk::FormulatesMixture*>(c.surrogates[0].surrogate.get())) {
    throw missing(pipeline.surrogate->id(), "FormulatesSurrogate (or FormulatesMixture)");
  }
  for (const auto& k : c.known) {
    if (!dynamic_cast<const sdk::FormulatesConstraint*>(k.constraint.get())) {
      throw missing(k.id, "FormulatesConstraint");
    }
  }
}

// An acquisition that ignores the black-box constraint models would optimize as if the problem
// had none, spending the study's budget on points the models call infeasible: refuse it.
void check_black_box_constraints(const Components& c, const Pipeline& pipeline) {
  if (c.constraints.empty() || !c.acquisition) return;
  if (dynamic_cast<const sdk::RespectsBlackBoxConstraints*>(c.acquisition.get()) != nullptr) {
    return;
  }
  std::vector<std::string> names;
  for (const auto& bc : c.constraints) names.push_back(bc.name);
  throw ConfigError(fmt::format(
      "[acquisition] {} ignores black-box constraints (capability "
      "arbo::sdk::RespectsBlackBoxConstraints missing), and the problem has {}: {}; use an "
      "acquisition that respects them (acquisition/cwei, acquisition/lcb, acquisition/ctpe)",
      pipeline.acquisition->id(), names.size(), fmt::join(names, ", ")));
}

// [proposal] exclude_evaluated needs a discrete space and a solver that honours it.
void check_exclusion(const Components& c, const Pipeline& pipeline) {
  if (!pipeline.proposal.exclude_evaluated) return;
  const std::string real = sdk::first_continuous_parameter(c.space);
  if (!real.empty()) {
    throw ConfigError(fmt::format(
        "proposal.exclude_evaluated = true needs a space without real parameters (an excluded "
        "point removes nothing from a continuum), and parameter '{}' is real; remove the key "
        "or make the parameter integer",
        real));
  }
  if (dynamic_cast<const sdk::ExcludesEvaluated*>(c.solver.get()) == nullptr) {
    throw ConfigError(fmt::format(
        "proposal.exclude_evaluated = true needs an inner solver that excludes evaluated "
        "points (capability arbo::sdk::ExcludesEvaluated), and [inner_solver] {} does not; use "
        "glpk_bnb, random, sampling, nelder_mead, candidate_pool or regularized_evolution",
        pipeline.inner_solver.id()));
  }
}

// [proposal] representative asks the objective's surrogate for a region's representative.
void check_proposal(const Components& c, const Pipeline& pipeline) {
  check_exclusion(c, pipeline);
  if (!pipeline.proposal.representative) return;
  if (c.surrogates.empty() ||
      dynamic_cast<const sdk::RepresentsRegions*>(c.surrogates[0].surrogate.get()) == nullptr) {
    throw ConfigError(fmt::format(
        "proposal.representative = true needs a surrogate whose prediction is constant on "
        "regions and that names one point of each (capability arbo::sdk::RepresentsRegions), "
        "and {} does not; use surrogate \"tree_gp\" or remove the key",
        pipeline.surrogate ? pipeline.surrogate->id() : std::string("the pipeline has none")));
  }
}

// Names of the cheap constraints -> indices; the surrogate must accept partial rows.
void resolve_augmentation(Components& c, const Pipeline& pipeline) {
  const Augmentation& aug = pipeline.augmentation;
  if (aug.cheap_constraints.empty()) return;
  std::vector<std::string> names;
  for (const auto& bc : c.constraints) names.push_back(bc.name);
  for (const auto& name : aug.cheap_constraints) {
    const auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) {
      throw ConfigError(fmt::format(
          "augmentation.cheap_constraints: the problem has no black-box constraint '{}' ({})", name,
          names.empty() ? std::string("it has none")
                        : fmt::format("it has: {}", fmt::join(names, ", "))));
    }
    c.cheap.push_back(static_cast<std::size_t>(it - names.begin()));
  }
  if (c.surrogates.empty() || dynamic_cast<const sdk::FitsPartialObservations*>(
                                  c.surrogates[0].surrogate.get()) == nullptr) {
    throw ConfigError(fmt::format(
        "[augmentation] needs a surrogate that learns from partial observations (capability "
        "arbo::sdk::FitsPartialObservations), and {} does not; use surrogate \"tpe\" or remove "
        "[augmentation]",
        pipeline.surrogate ? pipeline.surrogate->id() : std::string("the pipeline")));
  }
}

}  // namespace

double known_excess(const sdk::KnownConstraintSpec& spec, double g) {
  const double v = spec.expression.find("==") != std::string::npos ? std::abs(g) : g;
  return std::isnan(v) ? std::numeric_limits<double>::infinity() : v;
}

LoadedProblem load_problem(const PluginRegistry& registry, const ComponentEntry& entry,
                           const sdk::ParamSet& params, KernelContext& context) {
  // A problem is created before any space exists; CreateArgs holds a reference for the
  // component's lifetime, so it gets one that lives as long as the program.
  static const sdk::Space kNoSpace;
  LoadedProblem lp;
  lp.problem = registry.create_as<sdk::Problem>(entry, sdk::CreateArgs{context, params, kNoSpace});
  if (!lp.problem)
    throw PluginError(component_error(entry.id, "create", "returned the wrong kind"));
  lp.space = guarded_call(entry.id, "space", [&] { return lp.problem->space(); });
  lp.constraint_names =
      guarded_call(entry.id, "constraint_names", [&] { return lp.problem->constraint_names(); });
  lp.info = guarded_call(entry.id, "info", [&] { return lp.problem->info(); });
  lp.known = dynamic_cast<const sdk::HasKnownConstraints*>(lp.problem.get());
  if (lp.known != nullptr) {
    lp.known_specs =
        guarded_call(entry.id, "known_constraints", [&] { return lp.known->known_constraints(); });
  }
  return lp;
}

KernelContext& Components::add_context(const std::string& id,
                                       std::shared_ptr<spdlog::logger> logger,
                                       const std::atomic<bool>* interrupt) {
  contexts.push_back(std::make_unique<KernelContext>(id, std::move(logger), interrupt));
  return *contexts.back();
}

void Components::add_known(std::string id, std::shared_ptr<sdk::Constraint> constraint,
                           KernelContext* context) {
  known_list.push_back(constraint.get());
  known.push_back(KnownConstraint{std::move(id), std::move(constraint), context});
}

void Components::add_surrogate(std::shared_ptr<sdk::Surrogate> surrogate, const std::string& id,
                               KernelContext& context) {
  auto proxy = make_guarded_surrogate(surrogate, id, faults);
  surrogates.push_back(MetricModel{std::move(surrogate), std::move(proxy), &context});
}

void Components::set_acquisition(std::shared_ptr<sdk::Acquisition> a, const std::string& id,
                                 KernelContext& context) {
  guarded_acquisition = make_guarded_acquisition(a, id, faults, acquisition_values);
  acquisition = std::move(a);
  acquisition_context = &context;
}

double Components::known_violation(const Eigen::VectorXd& x, std::string* which) const {
  double worst = 0.0;
  for (const auto& k : known) {
    const double v = guarded_call(k.id, "violation", [&] { return k.constraint->violation(x); });
    if (v > worst) {
      worst = v;
      if (which) *which = k.id;
    }
  }
  return worst;
}

double Components::known_squared_excess(const Eigen::VectorXd& x) const {
  double sum = 0.0;
  for (const auto& k : known) {
    if (const auto* rows = dynamic_cast<const sdk::ReportsRowExcesses*>(k.constraint.get())) {
      sum += guarded_call(k.id, "squared_excess", [&] { return rows->squared_excess(x); });
    } else {
      const double v = guarded_call(k.id, "violation", [&] { return k.constraint->violation(x); });
      sum += v * v;
    }
  }
  return std::min(sum, std::numeric_limits<double>::max());
}

std::shared_ptr<sdk::Surrogate> make_surrogate(const Pipeline& pipeline,
                                               const PluginRegistry& registry,
                                               KernelContext& context, const sdk::Space& space) {
  if (!pipeline.surrogate) throw ConfigError("the pipeline has no [surrogate]");
  return make<sdk::Surrogate>(registry, *pipeline.surrogate, context, space);
}

std::unique_ptr<Components> assemble(const Pipeline& pipeline, const PluginRegistry& registry,
                                     const std::shared_ptr<spdlog::logger>& logger,
                                     const std::atomic<bool>* interrupt,
                                     const std::filesystem::path& base_dir) {
  auto c = std::make_unique<Components>();
  if (pipeline.problem.plugin) {
    const ComponentSpec& ps = *pipeline.problem.plugin;
    KernelContext& ctx = c->add_context(ps.id(), logger, interrupt);
    LoadedProblem lp = load_problem(registry, entry_of(registry, ps), ps.params, ctx);
    c->problem = lp.problem;
    c->space = lp.space;
    for (const auto& name : lp.constraint_names) {
      c->constraints.push_back(BlackBoxConstraint{name, 0.0, true});
    }
    if (lp.info.maximize != pipeline.maximize) {
      logger->warn("problem {} is naturally {}d but the study is set to {}", ps.id(),
                   lp.info.maximize ? "maximize" : "minimize",
                   pipeline.maximize ? "maximize" : "minimize");
    }
    c->evaluator =
        make_problem_evaluator(c->problem, ps.id(), ctx, pipeline.seed, pipeline.problem.noise);
    add_problem_known_constraints(*c, registry, ps.id(), lp, logger, interrupt);
  } else {
    try {
      c->space = sdk::Space(pipeline.problem.parameters);
    } catch (const sdk::InvalidArgument& e) {
      throw ConfigError(fmt::format("problem.parameters: {}", e.what()));
    }
    c->constraints = pipeline.black_box;
    c->evaluator = pipeline.problem.executor == Executor::Slurm
                       ? make_slurm_evaluator(pipeline.problem, c->constraints, base_dir)
                       : make_command_evaluator(pipeline.problem, c->constraints, base_dir);
  }
  if (c->space.empty()) throw ConfigError("the problem's search space has no parameters");

  for (const ComponentSpec& cs : pipeline.known_constraints) {
    KernelContext& ctx = c->add_context(cs.id(), logger, interrupt);
    try {
      c->add_known(cs.id(), make<sdk::Constraint>(registry, cs, ctx, c->space), &ctx);
    } catch (const PluginError& e) {
      throw PluginError(with_source(e.what(), cs));
    }
  }
  nlohmann::json by = nlohmann::json::object();
  const auto version_of = [&](const ComponentSpec& s) {
    const ComponentEntry& e = entry_of(registry, s);
    by[s.id()] = e.plugin_name + " " + e.plugin_version;
  };
  if (pipeline.surrogate) {
    for (std::size_t m = 0; m <= c->constraints.size(); ++m) {
      KernelContext& ctx = c->add_context(pipeline.surrogate->id(), logger, interrupt);
      c->add_surrogate(make<sdk::Surrogate>(registry, *pipeline.surrogate, ctx, c->space),
                       pipeline.surrogate->id(), ctx);
    }
    version_of(*pipeline.surrogate);
  }
  if (pipeline.acquisition) {
    KernelContext& ctx = c->add_context(pipeline.acquisition->id(), logger, interrupt);
    c->set_acquisition(make<sdk::Acquisition>(registry, *pipeline.acquisition, ctx, c->space),
                       pipeline.acquisition->id(), ctx);
    version_of(*pipeline.acquisition);
  }
  {
    KernelContext& ctx = c->add_context(pipeline.inner_solver.id(), logger, interrupt);
    c->solver_context = &ctx;
    c->solver = make<sdk::InnerSolver>(registry, pipeline.inner_solver, ctx, c->space);
    version_of(pipeline.inner_solver);
  }
  attach_model_solver(*c, pipeline, registry, logger, interrupt);
  check_formulations(*c, pipeline);
  if (!c->known.empty()) {
    // A formulate() that throws something other than sdk::Error (which only means "cannot")
    // is a plugin fault; the detection formulates every known constraint, so all are named.
    std::vector<std::string> ids;
    for (const auto& k : c->known) ids.push_back(k.id);
    c->known_balance = guarded_call(fmt::format("{}", fmt::join(ids, ", ")), "formulate", [&] {
      return sdk::detect_balance_pairs(c->space, c->known_list).pairs;
    });
  }
  check_black_box_constraints(*c, pipeline);
  check_proposal(*c, pipeline);
  c->model_proposed_by = by.dump();
  c->design_proposed_by = nlohmann::json{{"design", to_string(pipeline.design)}}.dump();
  resolve_augmentation(*c, pipeline);
  return c;
}

}  // namespace arbo::kernel
