// SPDX-License-Identifier: MIT
/// @file
/// @brief The components of a study, assembled from a resolved pipeline (engine-internal).
#pragma once

#include <atomic>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "arbo/kernel/context.hpp"
#include "arbo/kernel/evaluator.hpp"
#include "arbo/kernel/pipeline.hpp"
#include "arbo/kernel/plugin_registry.hpp"
#include "arbo/kernel/problem_loader.hpp"
#include "arbo/sdk/acquisition.hpp"
#include "arbo/sdk/balance.hpp"
#include "arbo/sdk/constraint.hpp"
#include "arbo/sdk/inner_solver.hpp"
#include "arbo/sdk/problem.hpp"
#include "arbo/sdk/surrogate.hpp"
#include "engine/guarded_components.hpp"

namespace arbo::kernel {

/// One known constraint of the study.
struct KnownConstraint {
  std::string id;  ///< as named in messages, e.g. "constraint/linear" or "problem/g1 c1 (...)"
  std::shared_ptr<sdk::Constraint> constraint;
  KernelContext* context = nullptr;  ///< null for the kernel-side adapter of a problem's
                                     ///< constraints, which has no random stream
};

/// The surrogate of one metric (objective, or one black-box constraint).
struct MetricModel {
  std::shared_ptr<sdk::Surrogate> surrogate;  ///< the plugin's object (the kernel fits it)
  std::shared_ptr<sdk::Surrogate> guarded;    ///< its proxy, what the acquisition is bound to
  KernelContext* context = nullptr;
};

/// Everything a study runs with. Members are declared so that contexts outlive the components
/// that hold references to them, and the fault recorder outlives the proxies.
struct Components {
  std::vector<std::unique_ptr<KernelContext>> contexts;
  // Specs of the constraint/polynomial components made from a problem's known constraints;
  // their ParamSets must outlive the components (CreateArgs holds references).
  std::vector<std::unique_ptr<ComponentSpec>> problem_constraint_specs;
  FaultRecorder faults;
  ValueRange acquisition_values;  ///< what the acquisition's proxy returned in the current solve

  sdk::Space space;
  std::vector<BlackBoxConstraint> constraints;  ///< in effect (declared, or the problem's own)
  std::shared_ptr<sdk::Problem> problem;        ///< null for an external command
  std::unique_ptr<Evaluator> evaluator;
  std::vector<KnownConstraint> known;
  std::vector<const sdk::Constraint*> known_list;  ///< the same, as a SolveRequest takes them
  /// Their subset-balance equalities (`sdk::detect_balance_pairs`), which the kernel's random
  /// points (design, fallbacks) keep exactly.
  std::vector<sdk::BalancePair> known_balance;
  std::vector<MetricModel> surrogates;                    ///< objective, then each constraint
  std::shared_ptr<sdk::Acquisition> acquisition;          ///< null in a model-free pipeline
  std::shared_ptr<sdk::Acquisition> guarded_acquisition;  ///< its proxy, handed to the solver
  KernelContext* acquisition_context = nullptr;
  std::shared_ptr<sdk::InnerSolver> solver;
  KernelContext* solver_context = nullptr;
  std::shared_ptr<sdk::InnerSolver> model_solver_component;  ///< [model_solver], if given
  sdk::ModelSolver* model_solver = nullptr;  ///< what every Context hands out, or null
  std::string model_proposed_by;             ///< JSON of the model pipeline's component versions
  std::string design_proposed_by;            ///< JSON naming the design
  /// Knowledge augmentation: indices of the cheap black-box constraints (empty: off).
  std::vector<std::size_t> cheap;

  /// A new context for component `id`, owned here.
  KernelContext& add_context(const std::string& id, std::shared_ptr<spdlog::logger> logger,
                             const std::atomic<bool>* interrupt);
  /// Appends a known constraint (and its entry in `known_list`).
  void add_known(std::string id, std::shared_ptr<sdk::Constraint> constraint,
                 KernelContext* context);
  /// Appends the surrogate of the next metric, with its proxy.
  void add_surrogate(std::shared_ptr<sdk::Surrogate> surrogate, const std::string& id,
                     KernelContext& context);
  /// Sets the acquisition, with its proxy.
  void set_acquisition(std::shared_ptr<sdk::Acquisition> acquisition, const std::string& id,
                       KernelContext& context);

  /// Worst violation of the known constraints at `x` (0 when all hold); `which`, when given,
  /// receives the id of the worst one. Guarded: a throwing constraint is a PluginError.
  double known_violation(const Eigen::VectorXd& x, std::string* which = nullptr) const;
  /// Sum over the known constraints of their squared row excesses in user units
  /// (`sdk::ReportsRowExcesses`, else violation^2): the [proposal] known_penalty's term.
  /// Guarded like `known_violation`; finite.
  double known_squared_excess(const Eigen::VectorXd& x) const;
};

/// Adds a loaded problem's known constraints to `c.known` as a study checks them: one
/// `constraint/polynomial` component per constraint when that plugin is loaded (each row's
/// violation scaled by max(1, 1e-4 x its magnitude over the box, docs/decisions.md decision
/// 19), else one kernel-side adapter comparing the raw values. `c.space` must already be the
/// problem's space (the components keep a reference to it). @throws PluginError if a
/// component cannot be made.
void add_problem_known_constraints(Components& c, const PluginRegistry& registry,
                                   const std::string& problem_id, const LoadedProblem& lp,
                                   const std::shared_ptr<spdlog::logger>& logger,
                                   const std::atomic<bool>* interrupt);

/// A new instance of the pipeline's surrogate on `context` (which must outlive it), outside any
/// `Components`: for a fit that must leave the study's surrogates as its proposals left them
/// (`Study::predict`). @throws ConfigError if the pipeline has no surrogate or it is not
/// loaded, PluginError if the plugin fails to create it.
std::shared_ptr<sdk::Surrogate> make_surrogate(const Pipeline& pipeline,
                                               const PluginRegistry& registry,
                                               KernelContext& context, const sdk::Space& space);

/// Creates every component of `pipeline` from `registry`, each with its own Context (logging
/// to `logger`, cancelled by `interrupt`), hands every Context the pipeline's model solver,
/// and checks that the components fit together (formulations for a model-based solver,
/// [augmentation] against the surrogate). `base_dir` resolves an external command's relative
/// working directory.
/// @throws ConfigError (a component is not loaded, the components do not fit together, the
///         space is empty) or PluginError (a plugin failed while being created or queried).
std::unique_ptr<Components> assemble(const Pipeline& pipeline, const PluginRegistry& registry,
                                     const std::shared_ptr<spdlog::logger>& logger,
                                     const std::atomic<bool>* interrupt,
                                     const std::filesystem::path& base_dir);

}  // namespace arbo::kernel
