// SPDX-License-Identifier: MIT
#include "arbo/kernel/study.hpp"

#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <limits>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "arbo/kernel/context.hpp"
#include "arbo/kernel/design.hpp"
#include "arbo/kernel/errors.hpp"
#include "arbo/kernel/guarded_call.hpp"
#include "arbo/sdk/acquisition.hpp"
#include "arbo/sdk/capabilities/acquisition.hpp"
#include "arbo/sdk/capabilities/constraint.hpp"
#include "arbo/sdk/capabilities/problem.hpp"
#include "arbo/sdk/capabilities/surrogate.hpp"
#include "arbo/sdk/constraint.hpp"
#include "arbo/sdk/error.hpp"
#include "arbo/sdk/inner_solver.hpp"
#include "arbo/sdk/problem.hpp"
#include "arbo/sdk/projection.hpp"
#include "arbo/sdk/surrogate.hpp"

#ifndef ARBO_VERSION
#define ARBO_VERSION "0.0.0"
#endif

namespace arbo::kernel {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

const char* to_string(Termination t) noexcept {
  switch (t) {
    case Termination::BudgetReached: return "budget reached";
    case Termination::TimeLimit: return "time limit reached";
    case Termination::Interrupted: return "interrupted";
  }
  return "unknown";
}

namespace {

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// Salts that keep the random streams of the components apart.
enum Salt : std::uint64_t {
  kSaltSolver = 1,
  kSaltAcquisition = 2,
  kSaltConstraint = 3,
  kSaltSurrogate = 100,  // + metric index
};

// When the inner solver fails although an observation satisfies the known constraints: uniform
// draws tried as they are, and how many of them are projected onto the constraints (each
// projection can take kDefaultProjectionSeconds).
constexpr std::size_t kFallbackDraws = 1000;
constexpr std::size_t kFallbackProjections = 3;

// The known constraints a problem declares (HasKnownConstraints), as one kernel-side
// constraint component: violation = worst excess over all of them (|g| for equalities).
class ProblemKnownConstraints final : public sdk::Constraint {
 public:
  ProblemKnownConstraints(std::shared_ptr<sdk::Problem> owner,
                          const sdk::HasKnownConstraints& known, std::string id)
      : owner_(std::move(owner)), known_(known), id_(std::move(id)) {
    specs_ = guarded_call(id_, "known_constraints", [&] { return known_.known_constraints(); });
    for (const auto& s : specs_) equality_.push_back(s.expression.find("==") != std::string::npos);
  }
  double violation(const Eigen::VectorXd& x) const override {
    guarded_call(id_, "known_values", [&] { known_.known_values(x, values_); });
    double worst = 0.0;
    for (Eigen::Index k = 0; k < values_.size(); ++k) {
      const double v = equality_[static_cast<std::size_t>(k)] ? std::abs(values_[k]) : values_[k];
      worst = std::max(worst, std::isnan(v) ? std::numeric_limits<double>::infinity() : v);
    }
    return worst;
  }
  std::string describe() const override {
    return fmt::format("{} known constraints of {}", specs_.size(), id_);
  }
  std::size_t size() const { return specs_.size(); }

 private:
  std::shared_ptr<sdk::Problem> owner_;  // keeps `known_` alive
  const sdk::HasKnownConstraints& known_;
  std::string id_;
  std::vector<sdk::KnownConstraintSpec> specs_;
  std::vector<bool> equality_;
  mutable Eigen::VectorXd values_;
};

}  // namespace

std::string params_to_json(const sdk::Space& space, const Eigen::VectorXd& x) {
  const auto values = space.decode(x);
  nlohmann::json j = nlohmann::json::object();
  for (std::size_t i = 0; i < space.size(); ++i) {
    std::visit(
        [&](const auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (!std::is_same_v<T, std::monostate>) j[space[i].name] = v;
        },
        values[i]);
  }
  return j.dump();
}

ComponentLookup lookup_from(const PluginRegistry& registry) {
  ComponentLookup lookup;
  lookup.find = [&registry](sdk::Kind kind, std::string_view name) -> const sdk::ComponentInfo* {
    const ComponentEntry* e = registry.find(kind, name);
    return e ? &e->info : nullptr;
  };
  lookup.names = [&registry](sdk::Kind kind) { return registry.names(kind); };
  return lookup;
}

struct Study::Impl {
  fs::path dir;
  StudyStore store;
  Pipeline pipeline;
  const PluginRegistry& registry;
  std::shared_ptr<spdlog::logger> logger;
  std::atomic<bool> never{false};
  const std::atomic<bool>* interrupt = &never;

  // Contexts are declared before the components so that they outlive them.
  std::vector<std::unique_ptr<KernelContext>> contexts;
  // Specs of the constraint/polynomial components made from a problem's known constraints;
  // their ParamSets must outlive the components (CreateArgs holds references).
  std::vector<std::unique_ptr<ComponentSpec>> problem_constraint_specs;
  sdk::Space space;
  std::vector<BlackBoxConstraint> constraints;
  std::shared_ptr<sdk::Problem> problem;
  std::vector<std::shared_ptr<sdk::Constraint>> known;
  std::vector<std::string> known_ids;
  std::vector<std::shared_ptr<sdk::Surrogate>> surrogates;  // objective, then each constraint
  std::vector<KernelContext*> surrogate_contexts;
  std::shared_ptr<sdk::Acquisition> acquisition;
  KernelContext* acquisition_context = nullptr;
  std::shared_ptr<sdk::InnerSolver> solver;
  KernelContext* solver_context = nullptr;
  std::shared_ptr<sdk::InnerSolver> model_solver_component;
  sdk::ModelSolver* aux_solver = nullptr;  // the model solver every Context hands out
  std::vector<KernelContext*> known_contexts;
  std::unique_ptr<Evaluator> evaluator;
  std::string model_proposed_by;   // JSON of the model pipeline's component versions
  std::string design_proposed_by;  // JSON naming the design

  // Knowledge augmentation ([augmentation]): indices of the cheap constraints, and their
  // values at the extra points (aug_C column j belongs to constraint cheap[j], raw units).
  std::vector<std::size_t> cheap;
  Eigen::MatrixXd aug_X, aug_C;
  bool aug_ready = false;

  sdk::Dataset data;
  std::vector<Eigen::VectorXd> design;
  bool design_ready = false;
  std::int64_t total = 0;  // observations of any status
  std::int64_t failed = 0;
  std::optional<double> best;  // user's direction
  std::int64_t best_id = 0;

  double plugin_seconds = 0.0;
  double command_seconds = 0.0;

  Impl(fs::path d, StudyStore s, Pipeline p, const PluginRegistry& r)
      : dir(std::move(d)), store(std::move(s)), pipeline(std::move(p)), registry(r) {}

  KernelContext& new_context(const std::string& id) {
    contexts.push_back(std::make_unique<KernelContext>(id, logger, interrupt));
    return *contexts.back();
  }

  const ComponentEntry& entry(const ComponentSpec& spec) const {
    const ComponentEntry* e = registry.find(spec.kind, spec.name);
    if (e == nullptr) {
      throw ConfigError(fmt::format("component {} is not loaded (check --plugin-path)", spec.id()));
    }
    return *e;
  }

  template <class T>
  std::shared_ptr<T> make(const ComponentSpec& spec, KernelContext& ctx) {
    const sdk::CreateArgs args{ctx, spec.params, space};
    auto obj = registry.create_as<T>(entry(spec), args);
    if (!obj) throw PluginError(fmt::format("[{}] create() returned the wrong kind", spec.id()));
    return obj;
  }

  void build_components(const fs::path& base_dir) {
    if (pipeline.problem.plugin) {
      const ComponentSpec& ps = *pipeline.problem.plugin;
      KernelContext& ctx = new_context(ps.id());
      problem = make<sdk::Problem>(ps, ctx);
      space = guarded_call(ps.id(), "space", [&] { return problem->space(); });
      for (const auto& name :
           guarded_call(ps.id(), "constraint_names", [&] { return problem->constraint_names(); })) {
        constraints.push_back(BlackBoxConstraint{name, 0.0, true});
      }
      const bool problem_max =
          guarded_call(ps.id(), "info", [&] { return problem->info(); }).maximize;
      if (problem_max != pipeline.maximize) {
        logger->warn("problem {} is naturally {}d but the study is set to {}", ps.id(),
                     problem_max ? "maximize" : "minimize",
                     pipeline.maximize ? "maximize" : "minimize");
      }
      evaluator =
          make_problem_evaluator(problem, ps.id(), ctx, pipeline.seed, pipeline.problem.noise);
      if (const auto* hk = dynamic_cast<const sdk::HasKnownConstraints*>(problem.get())) {
        add_problem_known_constraints(ps.id(), *hk);
      }
    } else {
      try {
        space = sdk::Space(pipeline.problem.parameters);
      } catch (const sdk::InvalidArgument& e) {
        throw ConfigError(fmt::format("problem.parameters: {}", e.what()));
      }
      constraints = pipeline.black_box;
      evaluator = make_command_evaluator(pipeline.problem, constraints, base_dir);
    }
    if (space.empty()) throw ConfigError("the problem's search space has no parameters");

    for (std::size_t k = 0; k < pipeline.known_constraints.size(); ++k) {
      const ComponentSpec& cs = pipeline.known_constraints[k];
      KernelContext& ctx = new_context(cs.id());
      known_contexts.push_back(&ctx);
      known.push_back(make<sdk::Constraint>(cs, ctx));
      known_ids.push_back(cs.id());
    }
    nlohmann::json by = nlohmann::json::object();
    const auto version_of = [&](const ComponentSpec& s) {
      const ComponentEntry& e = entry(s);
      by[s.id()] = e.plugin_name + " " + e.plugin_version;
    };
    if (pipeline.surrogate) {
      for (std::size_t m = 0; m <= constraints.size(); ++m) {
        KernelContext& ctx = new_context(pipeline.surrogate->id());
        surrogate_contexts.push_back(&ctx);
        surrogates.push_back(make<sdk::Surrogate>(*pipeline.surrogate, ctx));
      }
      version_of(*pipeline.surrogate);
    }
    if (pipeline.acquisition) {
      KernelContext& ctx = new_context(pipeline.acquisition->id());
      acquisition_context = &ctx;
      acquisition = make<sdk::Acquisition>(*pipeline.acquisition, ctx);
      version_of(*pipeline.acquisition);
    }
    {
      KernelContext& ctx = new_context(pipeline.inner_solver.id());
      solver_context = &ctx;
      solver = make<sdk::InnerSolver>(pipeline.inner_solver, ctx);
      version_of(pipeline.inner_solver);
    }
    attach_model_solver();
    check_formulations();
    model_proposed_by = by.dump();
    design_proposed_by = nlohmann::json{{"design", to_string(pipeline.design)}}.dump();

    std::vector<std::string> names;
    for (const auto& c : constraints) names.push_back(c.name);
    data.reset(space.size(), names);
    data.maximize = pipeline.maximize;
    resolve_augmentation();
  }

  // Names of the cheap constraints -> indices; the surrogate must accept partial rows.
  void resolve_augmentation() {
    const Augmentation& aug = pipeline.augmentation;
    if (aug.cheap_constraints.empty()) return;
    std::vector<std::string> names;
    for (const auto& c : constraints) names.push_back(c.name);
    for (const auto& name : aug.cheap_constraints) {
      const auto it = std::find(names.begin(), names.end(), name);
      if (it == names.end()) {
        throw ConfigError(fmt::format(
            "augmentation.cheap_constraints: the problem has no black-box constraint '{}' ({})",
            name,
            names.empty() ? std::string("it has none")
                          : fmt::format("it has: {}", fmt::join(names, ", "))));
      }
      cheap.push_back(static_cast<std::size_t>(it - names.begin()));
    }
    if (surrogates.empty() ||
        dynamic_cast<const sdk::FitsPartialObservations*>(surrogates[0].get()) == nullptr) {
      throw ConfigError(fmt::format(
          "[augmentation] needs a surrogate that learns from partial observations (capability "
          "arbo::sdk::FitsPartialObservations), and {} does not; use surrogate \"tpe\" or remove "
          "[augmentation]",
          pipeline.surrogate ? pipeline.surrogate->id() : std::string("the pipeline")));
    }
  }

  // Evaluates the augmentation points once and stores the cheap constraints' values in the
  // study; a resumed study reads them back instead. They are neither observations nor part of
  // the budget. Evaluator ids are negative (-1, -2, ...) so that they never collide with
  // observation ids (and a noisy problem draws from its own stream).
  void ensure_augmentation(bool quiet = false) {
    if (cheap.empty() || aug_ready) return;
    aug_ready = true;
    if (const auto stored = store.meta("augmentation")) {
      const auto j = nlohmann::json::parse(*stored);
      const auto& xs = j.at("X");
      const auto& cs = j.at("values");
      aug_X.resize(static_cast<Eigen::Index>(xs.size()), static_cast<Eigen::Index>(space.size()));
      aug_C.resize(static_cast<Eigen::Index>(cs.size()), static_cast<Eigen::Index>(cheap.size()));
      for (std::size_t i = 0; i < xs.size(); ++i) {
        for (std::size_t d = 0; d < space.size(); ++d) {
          aug_X(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(d)) =
              xs[i][d].get<double>();
        }
        for (std::size_t k = 0; k < cheap.size(); ++k) {
          aug_C(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(k)) =
              cs[i][k].get<double>();
        }
      }
      if (!quiet) {
        logger->info("knowledge augmentation: read {} stored points of the cheap constraints",
                     aug_X.rows());
      }
      return;
    }
    const auto points = make_design(
        space, DesignMethod::Random, static_cast<std::size_t>(pipeline.augmentation.points),
        pipeline.seed ^ 0x6175676d656e7421ull /* "augment!" */,
        [&](const Eigen::VectorXd& x) { return known_violation(x) <= 0.0; });
    nlohmann::json xs = nlohmann::json::array();
    nlohmann::json cs = nlohmann::json::array();
    std::int64_t failed_points = 0;
    for (std::size_t i = 0; i < points.size(); ++i) {
      const EvalOutcome out = evaluator->evaluate(-static_cast<std::int64_t>(i + 1), points[i],
                                                  params_to_json(space, points[i]));
      if (!out.ok || out.constraints.size() != static_cast<Eigen::Index>(constraints.size())) {
        ++failed_points;
        continue;
      }
      nlohmann::json row = nlohmann::json::array();
      for (std::size_t k : cheap) row.push_back(out.constraints[static_cast<Eigen::Index>(k)]);
      cs.push_back(std::move(row));
      xs.push_back(std::vector<double>(points[i].data(), points[i].data() + points[i].size()));
    }
    store.set_meta(
        "augmentation",
        nlohmann::json{
            {"constraints", pipeline.augmentation.cheap_constraints}, {"X", xs}, {"values", cs}}
            .dump());
    logger->info("knowledge augmentation: evaluated {} points of the cheap constraints ({})",
                 points.size(), fmt::join(pipeline.augmentation.cheap_constraints, ", "));
    if (failed_points > 0) {
      logger->warn("knowledge augmentation: {} of {} points failed and are not used", failed_points,
                   points.size());
    }
    aug_ready = false;  // parse what was stored, so a fresh and a resumed study see the same
    ensure_augmentation(true);
  }

  // Cheap constraint metric m (1-based) -> its column in aug_C, or -1.
  int augmentation_column(std::size_t m) const {
    for (std::size_t k = 0; k < cheap.size(); ++k) {
      if (cheap[k] + 1 == m) return static_cast<int>(k);
    }
    return -1;
  }

  // A problem's known constraints become `constraint/polynomial` components when that plugin
  // is loaded (so model-based solvers can formulate them and designs can project onto them);
  // otherwise one kernel-side adapter checks them by value.
  void add_problem_known_constraints(const std::string& problem_id,
                                     const sdk::HasKnownConstraints& hk) {
    auto adapter = std::make_shared<ProblemKnownConstraints>(problem, hk, problem_id);
    if (adapter->size() == 0) return;
    const ComponentEntry* poly = registry.find(sdk::Kind::Constraint, "polynomial");
    if (poly == nullptr) {
      known.push_back(adapter);
      known_ids.push_back(problem_id + " (known constraints)");
      return;
    }
    const auto specs =
        guarded_call(problem_id, "known_constraints", [&] { return hk.known_constraints(); });
    for (const auto& spec : specs) {
      ComponentSpec cs;
      cs.kind = sdk::Kind::Constraint;
      cs.name = "polynomial";
      cs.params = sdk::validate_params(
          guarded_call(poly->id, "params",
                       [&]() -> const sdk::ParamSpecList& { return poly->info.params(); }),
          {{"expression", spec.expression}}, poly->id);
      problem_constraint_specs.push_back(std::make_unique<ComponentSpec>(std::move(cs)));
      KernelContext& ctx = new_context(poly->id);
      known_contexts.push_back(&ctx);
      try {
        known.push_back(make<sdk::Constraint>(*problem_constraint_specs.back(), ctx));
      } catch (const PluginError& e) {
        throw PluginError(fmt::format("{}: known constraint '{}' ({}): {}", problem_id, spec.name,
                                      spec.expression, e.what()));
      }
      known_ids.push_back(fmt::format("{} {} (constraint/polynomial)", problem_id, spec.name));
    }
  }

  // Every component's Context gets the pipeline's model solver: [model_solver] if given, else
  // the inner solver when it is one.
  void attach_model_solver() {
    sdk::ModelSolver* ms = nullptr;
    if (pipeline.model_solver) {
      KernelContext& ctx = new_context(pipeline.model_solver->id());
      model_solver_component = make<sdk::InnerSolver>(*pipeline.model_solver, ctx);
      ms = dynamic_cast<sdk::ModelSolver*>(model_solver_component.get());
      if (ms == nullptr) {
        throw ConfigError(
            fmt::format("[model_solver] {} cannot solve models (it does not "
                        "implement arbo::sdk::ModelSolver)",
                        pipeline.model_solver->id()));
      }
    } else {
      ms = dynamic_cast<sdk::ModelSolver*>(solver.get());
    }
    for (auto& c : contexts) c->set_model_solver(ms);
    aux_solver = ms;
  }

  // A model-based inner solver (one that is a ModelSolver) optimizes the acquisition as a
  // model: reject a pipeline whose components cannot formulate themselves, at load time.
  void check_formulations() const {
    if (dynamic_cast<const sdk::ModelSolver*>(solver.get()) == nullptr) return;
    const std::string sid = pipeline.inner_solver.id();
    const auto missing = [&](const std::string& who, const char* capability) {
      return ConfigError(
          fmt::format("{} optimizes the acquisition as a model, but {} cannot "
                      "formulate itself (capability arbo::sdk::{} missing); use a "
                      "black-box inner solver or a component that can",
                      sid, who, capability));
    };
    if (acquisition && !dynamic_cast<const sdk::FormulatesAcquisition*>(acquisition.get())) {
      throw missing(pipeline.acquisition->id(), "FormulatesAcquisition");
    }
    if (!surrogates.empty() &&
        !dynamic_cast<const sdk::FormulatesSurrogate*>(surrogates[0].get())) {
      throw missing(pipeline.surrogate->id(), "FormulatesSurrogate");
    }
    for (std::size_t k = 0; k < known.size(); ++k) {
      if (!dynamic_cast<const sdk::FormulatesConstraint*>(known[k].get())) {
        throw missing(known_ids[k], "FormulatesConstraint");
      }
    }
  }

  double known_violation(const Eigen::VectorXd& x, std::string* which = nullptr) {
    double worst = 0.0;
    for (std::size_t k = 0; k < known.size(); ++k) {
      const double v =
          guarded_call(known_ids[k], "violation", [&] { return known[k]->violation(x); });
      if (v > worst) {
        worst = v;
        if (which) *which = known_ids[k];
      }
    }
    return worst;
  }

  // Adds a finished observation to the in-memory dataset and the incumbent.
  void absorb(const Observation& o) {
    if (o.status == ObsStatus::Failed) {
      data.append_failed(o.x);
      ++failed;
      return;
    }
    if (o.status != ObsStatus::Complete) return;
    Eigen::VectorXd c(static_cast<Eigen::Index>(constraints.size()));
    for (std::size_t k = 0; k < constraints.size(); ++k) {
      c[static_cast<Eigen::Index>(k)] =
          constraints[k].normalized(o.constraints[static_cast<Eigen::Index>(k)]);
    }
    data.append(o.x, pipeline.maximize ? -o.objective : o.objective, c);
    if (o.feasible) {
      const bool better = !best || (pipeline.maximize ? o.objective > *best : o.objective < *best);
      if (better) {
        best = o.objective;
        best_id = o.id;
      }
    }
  }

  void load_observations(std::vector<Observation>& pending) {
    for (auto& o : store.observations()) {
      ++total;
      if (o.status == ObsStatus::Pending) {
        pending.push_back(std::move(o));
      } else {
        absorb(o);
      }
    }
  }

  const std::vector<Eigen::VectorXd>& initial_design() {
    if (!design_ready) {
      design = make_design(space, pipeline.design, static_cast<std::size_t>(pipeline.design_size),
                           pipeline.seed,
                           [&](const Eigen::VectorXd& x) { return known_violation(x) <= 0.0; });
      design_ready = true;
      top_up_design_by_projection();
      if (design.size() < static_cast<std::size_t>(pipeline.design_size)) {
        logger->warn(
            "only {} of {} initial design points satisfy the known constraints; the "
            "inner solver proposes the rest",
            design.size(), pipeline.design_size);
      }
    }
    return design;
  }

  // Known constraints with a tiny feasible set (Ising, G-problems) leave rejection sampling
  // short: project further design points onto them with the pipeline's model solver. The
  // candidates come from the same method with a derived seed, so the design stays a function
  // of (method, size, seed).
  void top_up_design_by_projection() {
    const auto wanted = static_cast<std::size_t>(pipeline.design_size);
    if (design.size() >= wanted || aux_solver == nullptr || known.empty()) return;
    std::vector<const sdk::Constraint*> cons;
    for (const auto& c : known) cons.push_back(c.get());
    if (!sdk::can_formulate(cons)) return;
    const auto candidates =
        make_design(space, pipeline.design, 3 * (wanted - design.size()),
                    pipeline.seed ^ 0x70726f6a65637421ull /* "project!" */, nullptr);
    std::size_t projected = 0;
    for (Eigen::VectorXd x : candidates) {
      if (design.size() >= wanted) break;
      const bool ok = guarded_call("model solver", "solve", [&] {
        return sdk::project_onto_constraints(space, cons, *aux_solver, x);
      });
      if (!ok || known_violation(x) > 1e-6) continue;
      const bool duplicate = std::any_of(
          design.begin(), design.end(),
          [&](const Eigen::VectorXd& y) { return (x - y).cwiseAbs().maxCoeff() <= 1e-9; });
      if (duplicate) continue;
      design.push_back(std::move(x));
      ++projected;
    }
    if (projected > 0) {
      logger->info("{} initial design points were projected onto the known constraints", projected);
    }
  }

  // Completed observations that satisfy every known constraint. O(n constraints).
  std::size_t feasible_observations() {
    std::size_t n = 0;
    for (Eigen::Index i = 0; i < data.X.rows(); ++i) {
      n += known_violation(data.X.row(i).transpose()) <= 1e-6 ? 1 : 0;
    }
    return n;
  }

  // A point for proposal number `uk` when the inner solver failed although the known
  // constraints hold somewhere: the first of a few uniform draws (a derived seed, so a rerun
  // gives the same point) that satisfies them, else one projected onto them by the model
  // solver. Points already observed are skipped.
  bool fallback_point(std::uint64_t uk, Eigen::VectorXd& x) {
    std::vector<const sdk::Constraint*> cons;
    for (const auto& c : known) cons.push_back(c.get());
    const bool can_project = aux_solver != nullptr && sdk::can_formulate(cons);
    const auto candidates =
        make_design(space, DesignMethod::Random, kFallbackDraws,
                    pipeline.seed ^ (0x66616c6c6261636bull /* "fallback" */ + uk), nullptr);
    const auto observed = [&](const Eigen::VectorXd& y) {
      for (Eigen::Index i = 0; i < data.X.rows(); ++i) {
        if ((data.X.row(i).transpose() - y).cwiseAbs().maxCoeff() <= 1e-9) return true;
      }
      return false;
    };
    for (const Eigen::VectorXd& c : candidates) {
      if (known_violation(c) <= 0.0 && !observed(c)) {
        x = c;
        return true;
      }
    }
    if (!can_project) return false;
    for (std::size_t k = 0; k < std::min<std::size_t>(candidates.size(), kFallbackProjections);
         ++k) {
      Eigen::VectorXd y = candidates[k];
      const bool ok = guarded_call("model solver", "solve", [&] {
        return sdk::project_onto_constraints(space, cons, *aux_solver, y);
      });
      if (ok && known_violation(y) <= 1e-6 && !observed(y)) {
        x = std::move(y);
        return true;
      }
    }
    return false;
  }

  // Fills x, origin and proposed_by for observation number `k` (0-based).
  void propose(std::int64_t k, Observation& obs) {
    const auto uk = static_cast<std::uint64_t>(k);
    // The design is built only while it is still being proposed: a study resumed past it
    // would otherwise redo its projections (up to 10 s each on Alkylation) for nothing.
    if (k < pipeline.design_size) {
      const auto& d = initial_design();
      if (static_cast<std::size_t>(k) < d.size()) {
        obs.x = d[static_cast<std::size_t>(k)];
        obs.proposed_by_json = design_proposed_by;
        return;
      }
    }
    const bool use_model = acquisition && data.size() > 0 && k >= pipeline.design_size;
    double fit_seconds = 0.0;
    if (use_model) {
      ensure_augmentation();
      const auto t0 = Clock::now();
      for (std::size_t m = 0; m < surrogates.size(); ++m) {
        sdk::Metric metric;
        metric.index = m == 0 ? sdk::Metric::kObjective : static_cast<int>(m - 1);
        metric.name = m == 0 ? "objective" : constraints[m - 1].name;
        surrogate_contexts[m]->reseed(pipeline.seed, uk, kSaltSurrogate + m);
        const int aug = m == 0 ? -1 : augmentation_column(m);
        if (aug >= 0) {
          // Partial rows reach only this surrogate, and only through the capability.
          Eigen::VectorXd values(aug_C.rows());
          for (Eigen::Index i = 0; i < aug_C.rows(); ++i) {
            values[i] = constraints[m - 1].normalized(aug_C(i, aug));
          }
          auto* partial = dynamic_cast<sdk::FitsPartialObservations*>(surrogates[m].get());
          guarded_call(pipeline.surrogate->id(), "fit_partial",
                       [&] { partial->fit_partial(data, metric, aug_X, values); });
          continue;
        }
        guarded_call(pipeline.surrogate->id(), "fit", [&] { surrogates[m]->fit(data, metric); });
      }
      sdk::AcquisitionInputs in{
          data, surrogates.empty() ? nullptr : surrogates[0].get(), {}, data.incumbent()};
      for (std::size_t m = 1; m < surrogates.size(); ++m)
        in.constraints.push_back(surrogates[m].get());
      acquisition_context->reseed(pipeline.seed, uk, kSaltAcquisition);
      guarded_call(pipeline.acquisition->id(), "bind", [&] { acquisition->bind(in); });
      fit_seconds = seconds_since(t0);
      plugin_seconds += fit_seconds;
    }
    std::vector<const sdk::Constraint*> cons;
    for (const auto& c : known) cons.push_back(c.get());
    const sdk::SolveRequest request{use_model ? acquisition.get() : nullptr, space, cons, data};
    solver_context->reseed(pipeline.seed, uk, kSaltSolver);
    for (auto* kc : known_contexts) kc->reseed(pipeline.seed, uk, kSaltConstraint);
    const auto t0 = Clock::now();
    sdk::Proposal p = guarded_call(pipeline.inner_solver.id(), "maximize",
                                   [&] { return solver->maximize(request); });
    const double solve_seconds = seconds_since(t0);
    plugin_seconds += solve_seconds;
    std::string fallback;
    if (!p.found) {
      const std::string failure = fmt::format(
          "{} found no point satisfying the known constraints{}{}", pipeline.inner_solver.id(),
          known_ids.empty() ? "" : " (" + fmt::format("{}", fmt::join(known_ids, ", ")) + ")",
          p.note.empty() ? "" : ": " + p.note);
      const std::size_t witnesses = feasible_observations();
      if (witnesses == 0) throw InfeasibleError(failure);
      // An observation satisfies the constraints, so the set is not empty and the solver
      // failed (a false infeasibility of a badly scaled nonconvex model, as on Alkylation):
      // stopping the study would be wrong, so this one proposal comes from outside the model.
      fallback = fmt::format("{}, though {} of the {} completed observations satisfy them", failure,
                             witnesses, data.X.rows());
      // No point found by the fallback either: exit 6 ("admit no point that could be found"),
      // as when no observation satisfies them; the remedy is the same (a model solver that
      // projects, or looser constraints), and the solver did not throw.
      if (!fallback_point(uk, p.x)) {
        throw InfeasibleError(fallback + ", and no random point could be made to satisfy them");
      }
      p.found = true;
      logger->warn("{}: this proposal is a random point satisfying them instead", fallback);
    }
    if (p.x.size() != static_cast<Eigen::Index>(space.size()) || p.x.hasNaN()) {
      throw PluginError(
          fmt::format("[{}] maximize() returned a point of length {} (space has {}) "
                      "or with NaN",
                      pipeline.inner_solver.id(), p.x.size(), space.size()));
    }
    space.snap(p.x);
    std::string which;
    const double v = known_violation(p.x, &which);
    if (v > 1e-6) {
      throw PluginError(fmt::format("[{}] maximize() returned a point violating {} by {}: {}",
                                    pipeline.inner_solver.id(), which, v, space.describe(p.x)));
    }
    obs.x = std::move(p.x);
    obs.proposed_by_json = use_model || !acquisition ? model_proposed_by : design_proposed_by;
    if (use_model) {
      // Per-iteration statistics of model-based proposals (fit, solve, model size,
      // certificate), stored with the observation and shown by `arbo export`.
      nlohmann::json st{{"fit_seconds", fit_seconds}, {"solve_seconds", solve_seconds}};
      if (p.certificate) {
        const sdk::SolveResult& c = *p.certificate;
        st["status"] = sdk::to_string(c.status);
        st["nodes"] = c.nodes;
        st["lp_iterations"] = c.lp_iterations;
        st["gap"] = c.gap;  // infinite gaps are written as null
        st["objective"] = c.objective;
        st["best_bound"] = c.best_bound;
        st["solver_seconds"] = c.seconds;
      }
      if (!fallback.empty()) st["fallback"] = fallback;
      if (p.model_size) {
        st["variables"] = p.model_size->variables;
        st["binaries"] = p.model_size->binaries;
        st["integers"] = p.model_size->integers;
        st["linear_rows"] = p.model_size->linear_rows;
        st["quadratic_rows"] = p.model_size->quadratic_rows;
      }
      obs.stats_json = st.dump();
    }
  }

  Observation propose_and_record(const std::string& origin) {
    Observation obs;
    const auto t0 = Clock::now();
    propose(total, obs);
    obs.origin = origin == "auto"
                     ? (obs.proposed_by_json == design_proposed_by ? "design" : "model")
                     : origin;
    obs.params_json = params_to_json(space, obs.x);
    obs.propose_seconds = seconds_since(t0);
    obs.created_at = unix_now();
    obs.id = store.add_pending(obs);
    if (!obs.stats_json.empty()) store.set_proposal_stats(obs.id, obs.stats_json);
    ++total;
    return obs;
  }

  void evaluate_and_record(Observation& obs) {
    const auto t0 = Clock::now();
    EvalOutcome out = evaluator->evaluate(obs.id, obs.x, obs.params_json);
    obs.eval_seconds = seconds_since(t0);
    if (problem) {
      plugin_seconds += obs.eval_seconds;
    } else {
      command_seconds += obs.eval_seconds;
    }
    record(obs, out);
  }

  void record(Observation& obs, const EvalOutcome& out) {
    obs.finished_at = unix_now();
    if (out.ok) {
      if (out.constraints.size() != static_cast<Eigen::Index>(constraints.size())) {
        throw PluginError(fmt::format("evaluation returned {} constraint values, study has {}",
                                      out.constraints.size(), constraints.size()));
      }
      bool feasible = true;
      for (std::size_t k = 0; k < constraints.size(); ++k) {
        feasible = feasible &&
                   constraints[k].normalized(out.constraints[static_cast<Eigen::Index>(k)]) <= 0.0;
      }
      store.complete(obs.id, out.objective, out.constraints, feasible, obs.eval_seconds);
      obs.status = ObsStatus::Complete;
      obs.objective = out.objective;
      obs.constraints = out.constraints;
      obs.feasible = feasible;
    } else {
      store.fail(obs.id, out.reason, obs.eval_seconds);
      obs.status = ObsStatus::Failed;
      obs.reason = out.reason;
      logger->warn("observation {} failed: {}", obs.id, out.reason);
    }
    absorb(obs);
  }
};

Study::Study(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Study::~Study() = default;

std::unique_ptr<Study> Study::create(const fs::path& dir, Pipeline pipeline,
                                     const std::string& source_text, const PluginRegistry& registry,
                                     bool verbose) {
  if (StudyStore::exists(dir)) {
    throw StudyError(
        fmt::format("{} already holds a study; use --resume to continue it or "
                    "choose another --study directory",
                    dir.string()));
  }
  // Resolve the command's working directory now, so the stored pipeline runs from anywhere.
  if (!pipeline.problem.plugin) {
    fs::path base = pipeline.source_path.empty()
                        ? fs::current_path()
                        : fs::absolute(fs::path(pipeline.source_path)).parent_path();
    fs::path wd = pipeline.problem.working_directory.empty()
                      ? base
                      : fs::path(pipeline.problem.working_directory);
    if (wd.is_relative()) wd = base / wd;
    pipeline.problem.working_directory = wd.lexically_normal().string();
  }
  fs::create_directories(dir);
  StudyLock lock(dir);
  auto impl = std::make_unique<Impl>(dir, StudyStore::create(dir), std::move(pipeline), registry);
  impl->logger = make_logger("arbo", (dir / "arbo.log").string(), verbose);
  try {
    impl->build_components(dir);
  } catch (...) {
    // A study whose components cannot be built must not be left half-created.
    impl.reset();
    std::error_code ec;
    fs::remove(dir / "study.db", ec);
    fs::remove(dir / "study.db-wal", ec);
    fs::remove(dir / "study.db-shm", ec);
    throw;
  }
  auto& store = impl->store;
  store.set_meta("pipeline", to_toml(impl->pipeline));
  store.set_meta("source", source_text);
  store.set_meta("source_path", impl->pipeline.source_path);
  store.set_meta("arbo_version", ARBO_VERSION);
  store.set_meta("created_at", fmt::format("{}", unix_now()));
  // Plain copies of what `show` and `export` need, so they work without loading any plugin.
  store.set_meta("name", impl->pipeline.name);
  store.set_meta("direction", impl->pipeline.maximize ? "maximize" : "minimize");
  store.set_meta("budget", std::to_string(impl->pipeline.budget));
  nlohmann::json pnames = nlohmann::json::array();
  for (const auto& p : impl->space.parameters()) pnames.push_back(p.name);
  store.set_meta("parameter_names", pnames.dump());
  nlohmann::json names = nlohmann::json::array();
  for (const auto& c : impl->constraints) names.push_back(c.name);
  store.set_meta("constraint_names", names.dump());
  impl->logger->info("created study {} ({} evaluations, seed {})", dir.string(),
                     impl->pipeline.budget, impl->pipeline.seed);
  return std::unique_ptr<Study>(new Study(std::move(impl)));
}

std::unique_ptr<Study> Study::open(const fs::path& dir, const PluginRegistry& registry,
                                   bool verbose) {
  StudyStore store = StudyStore::open(dir);
  const auto text = store.meta("pipeline");
  if (!text) throw StudyError(fmt::format("{}: the study has no stored pipeline", dir.string()));
  Pipeline pipeline = parse_pipeline(*text, (dir / "study.db").string() + " [stored pipeline]", {},
                                     lookup_from(registry));
  pipeline.source_path = store.meta("source_path").value_or("");
  auto impl = std::make_unique<Impl>(dir, std::move(store), std::move(pipeline), registry);
  impl->logger = make_logger("arbo", (dir / "arbo.log").string(), verbose);
  impl->build_components(dir);
  std::vector<Observation> pending;
  impl->load_observations(pending);
  return std::unique_ptr<Study>(new Study(std::move(impl)));
}

RunSummary Study::run(const RunOptions& options) {
  Impl& s = *impl_;
  StudyLock lock(s.dir);
  if (options.interrupt) s.interrupt = options.interrupt;
  RunSummary summary;
  const auto t0 = Clock::now();
  s.plugin_seconds = 0.0;
  s.command_seconds = 0.0;
  const double limit = s.pipeline.time_limit_seconds;

  const auto report = [&](const Observation& o) {
    ++summary.evaluations;
    if (options.on_progress) {
      ProgressEvent ev;
      ev.observation = &o;
      ev.done = s.total - s.store.count(ObsStatus::Pending);
      ev.budget = s.pipeline.budget;
      ev.best = s.best;
      ev.elapsed_seconds = seconds_since(t0);
      options.on_progress(ev);
    }
  };

  // Evaluations that a killed run (or an unanswered `ask`) left pending are re-run first.
  for (auto& o : s.store.observations()) {
    if (o.status != ObsStatus::Pending) continue;
    s.logger->info("re-running pending observation {}", o.id);
    s.evaluate_and_record(o);
    report(o);
  }

  summary.termination = Termination::BudgetReached;
  while (s.total < s.pipeline.budget) {
    if (s.interrupt->load()) {
      summary.termination = Termination::Interrupted;
      break;
    }
    if (limit > 0 && seconds_since(t0) >= limit) {
      summary.termination = Termination::TimeLimit;
      break;
    }
    if (limit > 0) s.solver_context->set_budget(limit - seconds_since(t0));
    Observation obs = s.propose_and_record("auto");
    s.evaluate_and_record(obs);
    report(obs);
  }
  summary.wall_seconds = seconds_since(t0);
  summary.plugin_seconds = s.plugin_seconds;
  summary.command_seconds = s.command_seconds;
  summary.total = s.total;
  summary.failed = s.failed;
  summary.best = s.best;
  s.logger->info("run ended: {} after {} evaluations ({:.3f} s)", to_string(summary.termination),
                 summary.evaluations, summary.wall_seconds);
  s.logger->flush();
  return summary;
}

Observation Study::ask() {
  StudyLock lock(impl_->dir);
  return impl_->propose_and_record("ask");
}

void Study::tell(std::int64_t id, const EvalOutcome& outcome) {
  StudyLock lock(impl_->dir);
  auto obs = impl_->store.observation(id);
  if (!obs) throw StudyError(fmt::format("observation {} does not exist", id));
  if (obs->status != ObsStatus::Pending) {
    throw StudyError(fmt::format("observation {} is not pending (status {})", id,
                                 kernel::to_string(obs->status)));
  }
  impl_->record(*obs, outcome);
}

EvalOutcome Study::outcome_from_json(const std::string& json_text) const {
  return parse_command_output(json_text, impl_->constraints);
}

void Study::set_limits(std::int64_t budget, double time_limit_seconds) {
  Impl& s = *impl_;
  if (budget < s.total) {
    throw ConfigError(
        fmt::format("study.budget = {} is below the {} observations the study "
                    "already has",
                    budget, s.total));
  }
  if (budget == s.pipeline.budget && time_limit_seconds == s.pipeline.time_limit_seconds) return;
  s.pipeline.budget = budget;
  s.pipeline.time_limit_seconds = time_limit_seconds;
  s.store.set_meta("pipeline", to_toml(s.pipeline));
  s.store.set_meta("budget", std::to_string(budget));
}

const Pipeline& Study::pipeline() const noexcept { return impl_->pipeline; }
const sdk::Space& Study::space() const noexcept { return impl_->space; }
StudyStore& Study::store() noexcept { return impl_->store; }
const sdk::Dataset& Study::dataset() const noexcept { return impl_->data; }
const std::vector<BlackBoxConstraint>& Study::constraints() const noexcept {
  return impl_->constraints;
}

std::optional<Observation> Study::best() const {
  if (!impl_->best) return std::nullopt;
  return impl_->store.observation(impl_->best_id);
}

}  // namespace arbo::kernel
