// SPDX-License-Identifier: MIT
#include "engine/proposer.hpp"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "arbo/kernel/design.hpp"
#include "arbo/kernel/errors.hpp"
#include "arbo/kernel/guarded_call.hpp"
#include "arbo/kernel/problem_loader.hpp"
#include "arbo/kernel/random_streams.hpp"
#include "arbo/sdk/capabilities/inner_solver.hpp"
#include "arbo/sdk/capabilities/surrogate.hpp"
#include "arbo/sdk/exclusion.hpp"
#include "arbo/sdk/projection.hpp"
#include "util/clock.hpp"

namespace arbo::kernel {

namespace {

// When the inner solver fails although an observation satisfies the known constraints: uniform
// draws tried as they are, and how many of them are projected onto the constraints (each
// projection can take kDefaultProjectionSeconds).
constexpr std::size_t kFallbackDraws = 1000;
constexpr std::size_t kFallbackProjections = 3;

// Two points closer than this in every encoded coordinate are the same point.
constexpr double kSamePoint = 1e-9;

// With [proposal] exclude_evaluated, a space with at most this many points is enumerated when
// neither the solver nor the fallback finds an unevaluated point, to tell "every point has been
// evaluated" from a search that missed the last ones.
constexpr std::size_t kEnumerationLimit = std::size_t{1} << 22;

}  // namespace

const char* to_string(Origin origin) noexcept {
  switch (origin) {
    case Origin::Design: return "design";
    case Origin::Model: return "model";
    case Origin::Fallback: return "fallback";
  }
  return "unknown";
}

std::string ProposalStats::to_json() const {
  nlohmann::json st{{"fit_seconds", fit_seconds}, {"solve_seconds", solve_seconds}};
  if (certificate) {
    const SolveCertificate& c = *certificate;
    st["status"] = sdk::to_string(c.status);
    st["nodes"] = c.nodes;
    st["lp_iterations"] = c.lp_iterations;
    st["gap"] = c.gap;  // infinite gaps are written as null
    st["objective"] = c.objective;
    st["best_bound"] = c.best_bound;
    st["solver_seconds"] = c.solver_seconds;
  }
  if (!fallback.empty()) st["fallback"] = fallback;
  if (model_size) {
    st["variables"] = model_size->variables;
    st["binaries"] = model_size->binaries;
    st["integers"] = model_size->integers;
    st["linear_rows"] = model_size->linear_rows;
    st["quadratic_rows"] = model_size->quadratic_rows;
  }
  return st.dump();
}

Proposer::Proposer(const Pipeline& pipeline, Components& components,
                   KnowledgeAugmentation& augmentation, DatasetBuffer& data, spdlog::logger& logger)
    : pipeline_(pipeline),
      c_(components),
      augmentation_(augmentation),
      data_(data),
      logger_(logger),
      solver_ignores_data_(dynamic_cast<const sdk::IgnoresDataWithoutModel*>(c_.solver.get()) !=
                           nullptr) {}

const std::vector<Eigen::VectorXd>& Proposer::initial_design() {
  if (!design_ready_) {
    design_ = make_design(
        c_.space, pipeline_.design, static_cast<std::size_t>(pipeline_.design_size), pipeline_.seed,
        [&](const Eigen::VectorXd& x) { return c_.known_violation(x) <= 0.0; }, c_.known_balance);
    design_ready_ = true;
    top_up_design_by_projection();
    if (design_.size() < static_cast<std::size_t>(pipeline_.design_size)) {
      logger_.warn(
          "only {} of {} initial design points satisfy the known constraints; the "
          "inner solver proposes the rest",
          design_.size(), pipeline_.design_size);
    }
  }
  return design_;
}

// Known constraints with a tiny feasible set (Ising, G-problems) leave rejection sampling
// short: project further design points onto them with the pipeline's model solver. The
// candidates come from the same method with a derived seed, so the design stays a function
// of (method, size, seed).
void Proposer::top_up_design_by_projection() {
  const auto wanted = static_cast<std::size_t>(pipeline_.design_size);
  if (design_.size() >= wanted || c_.model_solver == nullptr || c_.known.empty()) return;
  if (!sdk::can_formulate(c_.known_list)) return;
  const auto candidates =
      make_design(c_.space, pipeline_.design, 3 * (wanted - design_.size()),
                  pipeline_.seed ^ kProjectionSeedXor, nullptr, c_.known_balance);
  std::size_t projected = 0;
  for (Eigen::VectorXd x : candidates) {
    if (design_.size() >= wanted) break;
    const bool ok = guarded_call("model solver", "solve", [&] {
      return sdk::project_onto_constraints(c_.space, c_.known_list, *c_.model_solver, x);
    });
    if (!ok || c_.known_violation(x) > kKnownTolerance) continue;
    const bool duplicate = std::any_of(
        design_.begin(), design_.end(),
        [&](const Eigen::VectorXd& y) { return (x - y).cwiseAbs().maxCoeff() <= kSamePoint; });
    if (duplicate) continue;
    design_.push_back(std::move(x));
    ++projected;
  }
  if (projected > 0) {
    logger_.info("{} initial design points were projected onto the known constraints", projected);
  }
}

// Completed observations that satisfy every known constraint. O(n constraints).
std::size_t Proposer::feasible_observations(const sdk::Dataset& data) const {
  std::size_t n = 0;
  for (Eigen::Index i = 0; i < data.X.rows(); ++i) {
    n += c_.known_violation(data.X.row(i).transpose()) <= kKnownTolerance ? 1 : 0;
  }
  return n;
}

// A point a component returned: the space's length and no NaN (else a PluginError naming
// `component`.`method`), then snapped.
void Proposer::snap_returned_point(const std::string& component, const char* method,
                                   Eigen::VectorXd& x) const {
  if (x.size() != static_cast<Eigen::Index>(c_.space.size()) || x.hasNaN()) {
    throw PluginError(
        component_error(component, method,
                        fmt::format("returned a point of length {} (space has {}) or with NaN",
                                    x.size(), c_.space.size())));
  }
  c_.space.snap(x);
}

// [proposal] representative: the objective surrogate's representative point of the region
// holding x (checked at start-up to exist), kept only if it satisfies the known constraints
// the solver had to respect.
void Proposer::represent(Eigen::VectorXd& x, bool penalized,
                         const sdk::EvaluatedPoints* evaluated) const {
  const auto& model = c_.surrogates.front();
  const auto& regions = dynamic_cast<const sdk::RepresentsRegions&>(*model.guarded);
  Eigen::VectorXd y = guarded_call(pipeline_.surrogate->id(), "representative",
                                   [&] { return regions.representative(x); });
  snap_returned_point(pipeline_.surrogate->id(), "representative", y);
  if (!penalized && c_.known_violation(y) > kKnownTolerance) {
    logger_.debug(
        "the representative {} violates the known constraints; proposing the "
        "solver's point",
        c_.space.describe(y));
    return;
  }
  if (evaluated != nullptr && evaluated->contains(y)) {
    logger_.debug("the representative {} has been evaluated; proposing the solver's point",
                  c_.space.describe(y));
    return;
  }
  x = std::move(y);
}

// A point for proposal number `uk` when the inner solver failed although the known
// constraints hold somewhere: the first of a few uniform draws (a derived seed, so a rerun
// gives the same point) that satisfies them, else one projected onto them by the model
// solver. Points already observed are skipped.
bool Proposer::fallback_point(const sdk::Dataset& data, std::uint64_t uk,
                              const sdk::EvaluatedPoints* evaluated, Eigen::VectorXd& x) const {
  const bool can_project = c_.model_solver != nullptr && sdk::can_formulate(c_.known_list);
  const auto candidates =
      make_design(c_.space, DesignMethod::Random, kFallbackDraws,
                  pipeline_.seed ^ (kFallbackSeedBase + uk), nullptr, c_.known_balance);
  const auto observed = [&](const Eigen::VectorXd& y) {
    if (evaluated != nullptr) return evaluated->contains(y);
    return contains_point(data.X, y);
  };
  for (const Eigen::VectorXd& cand : candidates) {
    if (c_.known_violation(cand) <= 0.0 && !observed(cand)) {
      x = cand;
      return true;
    }
  }
  if (!can_project) return false;
  for (std::size_t k = 0; k < std::min<std::size_t>(candidates.size(), kFallbackProjections); ++k) {
    Eigen::VectorXd y = candidates[k];
    const bool ok = guarded_call("model solver", "solve", [&] {
      return sdk::project_onto_constraints(c_.space, c_.known_list, *c_.model_solver, y);
    });
    if (ok && c_.known_violation(y) <= kKnownTolerance && !observed(y)) {
      x = std::move(y);
      return true;
    }
  }
  return false;
}

// [proposal] exclude_evaluated on a small space: the first point in a seeded order that
// satisfies the known constraints and has not been evaluated. Empty when there is none, or when
// the space is too large to enumerate (`*enumerated` says which).
std::optional<Eigen::VectorXd> Proposer::unevaluated_point(const sdk::EvaluatedPoints& evaluated,
                                                           std::uint64_t uk,
                                                           bool* enumerated) const {
  const std::size_t n = sdk::count_points(c_.space, kEnumerationLimit);
  *enumerated = n > 0;
  if (n == 0) return std::nullopt;
  // A seeded starting index, so that the points a study ends with are not always the
  // lexicographically first ones.
  const std::size_t start =
      static_cast<std::size_t>((pipeline_.seed ^ (kFallbackSeedBase + uk)) % n);
  Eigen::VectorXd x;
  for (std::size_t j = 0; j < n; ++j) {
    sdk::point_at(c_.space, (start + j) % n, x);
    if (!evaluated.contains(x) && c_.known_violation(x) <= kKnownTolerance) return x;
  }
  return std::nullopt;
}

std::optional<std::string> Proposer::blame(const std::exception* e, std::string_view what) const {
  return c_.faults.blame(e, what);
}

// Fits one surrogate per metric and binds the acquisition; returns the seconds it took.
double Proposer::fit_and_bind(std::uint64_t uk) {
  augmentation_.ensure();
  const auto t0 = Clock::now();
  const sdk::Dataset& data = with_lies(data_.view());
  for (std::size_t m = 0; m < c_.surrogates.size(); ++m) {
    MetricModel& model = c_.surrogates[m];
    sdk::Metric metric;
    metric.index = m == 0 ? sdk::Metric::kObjective : static_cast<int>(m - 1);
    metric.name = m == 0 ? "objective" : c_.constraints[m - 1].name;
    model.context->reseed(pipeline_.seed, uk, kSaltSurrogate + m);
    if (m > 0 && augmentation_.column(m) >= 0) {
      augmentation_.fit_partial(m, data, metric);
      continue;
    }
    guarded_call(pipeline_.surrogate->id(), "fit", [&] { model.surrogate->fit(data, metric); });
  }
  // The acquisition gets the surrogates' proxies, so that an error of a surrogate called by
  // the acquisition (here or inside the solver) names the surrogate.
  // The incumbent is the best feasible *completed* observation: a lie is not one.
  sdk::AcquisitionInputs in{data,
                            c_.surrogates.empty() ? nullptr : c_.surrogates[0].guarded.get(),
                            {},
                            data_.view().incumbent()};
  for (std::size_t m = 1; m < c_.surrogates.size(); ++m) {
    in.constraints.push_back(c_.surrogates[m].guarded.get());
  }
  c_.acquisition_context->reseed(pipeline_.seed, uk, kSaltAcquisition);
  c_.faults.clear();
  guarded_call(
      pipeline_.acquisition->id(), "bind", [&] { c_.acquisition->bind(in); },
      [&](const std::exception* e, std::string_view what) { return blame(e, what); });
  return seconds_since(t0);
}

std::map<int, std::string> Proposer::save_states() const {
  std::map<int, std::string> out;
  for (std::size_t m = 0; m < c_.surrogates.size(); ++m) {
    const auto* saver = dynamic_cast<const sdk::SavesState*>(c_.surrogates[m].surrogate.get());
    if (saver == nullptr) continue;
    out[static_cast<int>(m)] =
        guarded_call(pipeline_.surrogate->id(), "save_state", [&] { return saver->save_state(); });
  }
  return out;
}

void Proposer::restore_states(const std::map<int, std::string>& states) {
  // Not a structured binding: clang 14 (the sanitizer build) cannot capture one in a lambda.
  for (const auto& entry : states) {
    const int m = entry.first;
    const std::string& state = entry.second;
    const std::string metric =
        m == 0 ? std::string("the objective")
        : m > 0 && static_cast<std::size_t>(m) <= c_.constraints.size()
            ? fmt::format("constraint '{}'", c_.constraints[static_cast<std::size_t>(m - 1)].name)
            : fmt::format("metric {}", m);
    auto* saver = m >= 0 && static_cast<std::size_t>(m) < c_.surrogates.size()
                      ? dynamic_cast<sdk::SavesState*>(
                            c_.surrogates[static_cast<std::size_t>(m)].surrogate.get())
                      : nullptr;
    if (saver == nullptr) {
      logger_.warn(
          "the study holds a saved state of the surrogate of {}, which {} cannot restore (did "
          "the plugin change?): the next proposals continue from a fresh state and may differ "
          "from those of an uninterrupted run",
          metric, pipeline_.surrogate ? pipeline_.surrogate->id() : "the pipeline (it has none)");
      continue;
    }
    guarded_call(pipeline_.surrogate->id(), "restore_state", [&] { saver->restore_state(state); });
  }
}

// A black-box solver that saw one value everywhere had nothing to maximize: its answer is
// whatever its search order makes it, no better than a random point. Said once per proposal,
// because the user would otherwise take the proposals for the model's.
void Proposer::warn_if_constant(const std::string& solver_id) const {
  const ValueRange& r = c_.acquisition_values;
  if (!r.constant()) return;
  logger_.warn(
      "{} was {} at all {} points {} evaluated, so this proposal is no better than a random "
      "point: the models give the acquisition nothing to choose by (e.g. expected improvement "
      "underflows to 0 where the predicted uncertainty is tiny against the objective's scale, "
      "or every constraint model predicts infeasibility with certainty)",
      pipeline_.acquisition->id(), r.lowest(), r.count(), solver_id);
}

// [proposal] pending, the constant liars (Ginsbourger, Le Riche & Carraro 2010, Sec. 3.2):
// `data` plus one row per pending point whose objective and constraint values are the largest
// (worst: y is minimized, c <= 0 holds), smallest (best) or mean completed value of each
// column. Returns `data` itself when there is nothing to add. O((n + p) (d + m)), a copy that
// the fits it precedes exceed.
const sdk::Dataset& Proposer::with_lies(const sdk::Dataset& data) {
  using Rule = ProposalOptions::Pending;
  const Rule rule = pipeline_.proposal.pending;
  const Eigen::Index p = data.X_pending.rows();
  const Eigen::Index n = data.X.rows();
  if (p == 0 || n == 0 || rule == Rule::Ignore) return data;
  const auto lie = [&](const Eigen::VectorXd& v) {
    switch (rule) {
      case Rule::ConstantLiarBest: return v.minCoeff();
      case Rule::ConstantLiarMean: return v.mean();
      default: return v.maxCoeff();
    }
  };
  lied_ = data;
  lied_.X.conservativeResize(n + p, Eigen::NoChange);
  lied_.X.bottomRows(p) = data.X_pending;
  lied_.y.conservativeResize(n + p);
  lied_.y.tail(p).setConstant(lie(data.y));
  lied_.C.conservativeResize(n + p, Eigen::NoChange);
  for (Eigen::Index j = 0; j < data.C.cols(); ++j) {
    lied_.C.col(j).tail(p).setConstant(lie(data.C.col(j)));
  }
  for (Eigen::Index i = n; i < n + p; ++i) {
    lied_.feasible.push_back(
        static_cast<std::uint8_t>(lied_.C.cols() == 0 || lied_.C.row(i).maxCoeff() <= 0.0));
  }
  return lied_;
}

bool Proposer::contains_point(const Eigen::MatrixXd& rows, const Eigen::VectorXd& x) {
  for (Eigen::Index i = 0; i < rows.rows(); ++i) {
    if ((rows.row(i).transpose() - x).cwiseAbs().maxCoeff() <= kSamePoint) return true;
  }
  return false;
}

ProposedPoint Proposer::propose(std::int64_t k) {
  ProposedPoint out = propose_any(k);
  const Eigen::MatrixXd& pending = data_.pending();
  if (!contains_point(pending, out.x)) return out;
  // A deterministic solver on a model that the lies did not change enough, a snapped design
  // point, or a solver that saw no data: the point would be evaluated twice at once.
  const auto uk = static_cast<std::uint64_t>(k);
  std::optional<sdk::EvaluatedPoints> evaluated;
  if (pipeline_.proposal.exclude_evaluated) evaluated.emplace(data_.view());
  const auto candidates =
      make_design(c_.space, DesignMethod::Random, kFallbackDraws,
                  pipeline_.seed ^ (kPendingSeedBase + uk), nullptr, c_.known_balance);
  const bool penalized = pipeline_.proposal.known_penalty > 0.0 && out.stage == Origin::Model;
  for (const Eigen::VectorXd& cand : candidates) {
    if (contains_point(pending, cand) || (evaluated && evaluated->contains(cand))) continue;
    if (!penalized && c_.known_violation(cand) > kKnownTolerance) continue;
    logger_.info("proposal {} repeated the pending point {}; proposing the random point {} instead",
                 k + 1, c_.space.describe(out.x), c_.space.describe(cand));
    out.x = cand;
    out.origin = Origin::Fallback;
    return out;
  }
  out.repeats_pending = true;
  return out;
}

ProposedPoint Proposer::propose_any(std::int64_t k) {
  const auto uk = static_cast<std::uint64_t>(k);
  ProposedPoint out;
  // The design is built only while it is still being proposed: a study resumed past it
  // would otherwise redo its projections (up to 10 s each on Alkylation) for nothing.
  const bool exclude = pipeline_.proposal.exclude_evaluated;
  std::optional<sdk::EvaluatedPoints> evaluated;
  if (exclude) evaluated.emplace(data_.view());
  if (k < pipeline_.design_size) {
    const auto& d = initial_design();
    // An excluded design point (a duplicate of the snapped design, or one evaluated before a
    // resume) leaves its slot to the inner solver.
    if (static_cast<std::size_t>(k) < d.size() &&
        !(exclude && evaluated->contains(d[static_cast<std::size_t>(k)]))) {
      out.x = d[static_cast<std::size_t>(k)];
      return out;
    }
  }
  // Without data (or while completing a short design) the solver runs without the model;
  // such a point still belongs to the design stage, unless the pipeline has no model at all.
  const bool use_model = c_.acquisition && data_.size() > 0 && k >= pipeline_.design_size;
  out.stage = use_model || !c_.acquisition ? Origin::Model : Origin::Design;
  ProposalStats stats;
  if (use_model) {
    stats.fit_seconds = fit_and_bind(uk);
    out.plugin_seconds += stats.fit_seconds;
    out.surrogate_states = save_states();
  }
  // Bringing the dataset up to date copies every observation (sdk::Dataset grows by copy):
  // a solver that reads no data without a model gets an empty one instead, so a model-free
  // study's proposal does not grow with the number of observations.
  const sdk::Dataset& data =
      use_model || !solver_ignores_data_ || exclude ? data_.view() : data_.empty();
  // With [proposal] known_penalty the model's search ignores the known constraints (the
  // surrogates see them as a penalty); the design stage still respects them.
  const bool penalized = use_model && pipeline_.proposal.known_penalty > 0.0;
  static const std::vector<const sdk::Constraint*> kNone;
  const sdk::SolveRequest request{use_model ? c_.guarded_acquisition.get() : nullptr, c_.space,
                                  penalized ? kNone : c_.known_list, data, exclude};
  c_.solver_context->reseed(pipeline_.seed, uk, kSaltSolver);
  for (const auto& kc : c_.known) {
    if (kc.context != nullptr) kc.context->reseed(pipeline_.seed, uk, kSaltConstraint);
  }
  const std::string& sid = pipeline_.inner_solver.id();
  const auto t0 = Clock::now();
  c_.faults.clear();
  c_.acquisition_values.reset();
  sdk::Proposal p = guarded_call(
      sid, "maximize", [&] { return c_.solver->maximize(request); },
      [&](const std::exception* e, std::string_view what) { return blame(e, what); });
  stats.solve_seconds = seconds_since(t0);
  if (use_model && !p.certificate) warn_if_constant(sid);
  out.plugin_seconds += stats.solve_seconds;
  out.origin = out.stage;
  if (!p.found) {
    std::vector<std::string> known_ids;
    for (const auto& kc : c_.known) known_ids.push_back(kc.id);
    const std::string failure = fmt::format(
        "{} found no point satisfying the known constraints{}{}", sid,
        known_ids.empty() ? "" : " (" + fmt::format("{}", fmt::join(known_ids, ", ")) + ")",
        p.note.empty() ? "" : ": " + p.note);
    const sdk::Dataset& observed = data_.view();
    const std::size_t witnesses = feasible_observations(observed);
    if (witnesses == 0) throw InfeasibleError(failure);
    const std::string exhausted = fmt::format(
        "every point satisfying the known constraints has been evaluated ({} evaluations; "
        "[proposal] exclude_evaluated)",
        evaluated ? evaluated->size() : 0);
    if (exclude && p.exhausted)
      throw ExhaustedError(exhausted + fmt::format(", proven by {}", sid));
    // An observation satisfies the constraints, so the set is not empty and the solver
    // failed (a false infeasibility of a badly scaled nonconvex model, as on Alkylation):
    // stopping the study would be wrong, so this one proposal comes from outside the model.
    stats.fallback = fmt::format("{}, though {} of the {} completed observations satisfy them",
                                 failure, witnesses, observed.X.rows());
    // No point found by the fallback either: exit 6 ("admit no point that could be found"),
    // as when no observation satisfies them; the remedy is the same (a model solver that
    // projects, or looser constraints), and the solver did not throw.
    if (!fallback_point(observed, uk, evaluated ? &*evaluated : nullptr, p.x)) {
      bool enumerated = false;
      std::optional<Eigen::VectorXd> left =
          exclude ? unevaluated_point(*evaluated, uk, &enumerated) : std::nullopt;
      if (enumerated && !left) throw ExhaustedError(exhausted + ", found by enumeration");
      if (!left) {
        throw InfeasibleError(stats.fallback +
                              ", and no random point could be made to satisfy them");
      }
      p.x = std::move(*left);
    }
    p.found = true;
    out.origin = Origin::Fallback;
    logger_.warn("{}: this proposal is a random point satisfying them instead", stats.fallback);
  }
  snap_returned_point(sid, "maximize", p.x);
  if (use_model && !p.certificate && pipeline_.proposal.representative) {
    represent(p.x, penalized, evaluated ? &*evaluated : nullptr);
  }
  if (exclude && evaluated->contains(p.x)) {
    throw PluginError(component_error(
        sid, "maximize",
        fmt::format("returned the evaluated point {} although [proposal] exclude_evaluated is "
                    "set (the solver declares arbo::sdk::ExcludesEvaluated)",
                    c_.space.describe(p.x))));
  }
  std::string which;
  const double v = penalized ? 0.0 : c_.known_violation(p.x, &which);
  if (v > kKnownTolerance) {
    throw PluginError(component_error(
        sid, "maximize",
        fmt::format("returned a point violating {} by {}: {}", which, v, c_.space.describe(p.x))));
  }
  out.x = std::move(p.x);
  if (use_model) {
    if (p.certificate) {
      const sdk::SolveResult& r = *p.certificate;
      stats.certificate = SolveCertificate{r.status,    r.nodes,      r.lp_iterations, r.gap,
                                           r.objective, r.best_bound, r.seconds};
    }
    stats.model_size = p.model_size;
    out.stats = std::move(stats);
  }
  return out;
}

}  // namespace arbo::kernel
