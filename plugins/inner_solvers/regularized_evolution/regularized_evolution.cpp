// SPDX-License-Identifier: MIT
#include "regularized_evolution.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include <arbo/sdk/error.hpp>
#include <arbo/sdk/projection.hpp>

namespace arbo::plugins {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Model-free breeding polls cancellation every this many children (a child costs microseconds).
constexpr std::int64_t kPollChildren = 64;
// Spaces with at most this many points are enumerated when evolution and uniform draws find no
// unevaluated point: the answer is then exact ("every point is evaluated" is proven).
constexpr std::size_t kEnumerationLimit = 1u << 16;

// The paper's settings (Papalexopoulos et al. 2022): App. C.3 (NN+RegEvo), C.2 (RegEvo, outer
// loop), C.6 (ConEvo) and C.7 (NN+ConEvo).
constexpr std::int64_t kTournamentModel = 20;
constexpr std::int64_t kTournamentModelFree = 10;
constexpr std::int64_t kTournamentConEvo = 20;
constexpr std::int64_t kPopulationModel = 1000;
// ConEvo's alive population is not given (digest ambiguity); RegEvo's outer-loop D = 100 is used.
constexpr std::int64_t kPopulationModelFree = 100;
constexpr double kCrossoverModel = 0.2;
constexpr double kCrossoverModelFree = 0.1;
constexpr double kMutationModel = 0.01;
constexpr double kMutationModelFree = 0.1;
constexpr double kMutationConEvo = 0.05;

void check_auto(const sdk::ParamSet& params, const char* key, bool probability) {
  const double v = params.get_real(key);
  if (v == -1.0 || (v >= (probability ? 0.0 : 1.0) && (!probability || v <= 1.0))) return;
  throw sdk::ParamError(key, fmt::format("inner_solver/regularized_evolution: parameter '{}' = {} "
                                         "is out of range; expected -1 (auto) or {}",
                                         key, v, probability ? "a value in [0, 1]" : ">= 1"));
}

}  // namespace

const sdk::ParamSpecList& RegularizedEvolution::params() {
  static const sdk::ParamSpecList specs{
      sdk::ParamSpec::integer(
          "candidates",
          "With an acquisition: children scored per proposal (the paper's B = 10,000 "
          "acquisition evaluations, App. C.3). Unused without an acquisition.",
          10000, 1, 1e9),
      sdk::ParamSpec::integer(
          "batch_size",
          "With an acquisition: children bred from the same population and scored in one "
          "Acquisition::values call before they join it (the paper's b = 100).",
          100, 1, 1e7),
      sdk::ParamSpec::integer(
          "tournament_size",
          "Members drawn (without replacement) from the alive population per tournament; the "
          "best two are the parents (ConEvo: the best one). -1 = the paper's value for the "
          "mode: 20 with an acquisition (App. C.3, C.7) and for ConEvo (C.6), 10 for "
          "model-free RegEvo (C.2).",
          -1, -1, 1e9),
      sdk::ParamSpec::integer(
          "population_size",
          "Alive population D: the most recent members (observations satisfying the known "
          "constraints, then the children scored in this call). -1 = 1,000 with an acquisition "
          "(App. C.3), 100 without (C.2; ConEvo's size is not given, RegEvo's is used).",
          -1, -1, 1e9),
      sdk::ParamSpec::real(
          "crossover_probability",
          "p_c: probability of switching to the other parent after each copied position "
          "(the starting parent is drawn uniformly). -1 = 0.2 with an acquisition (App. C.3), "
          "0.1 without (C.2). ConEvo does not recombine.",
          -1.0, -1.0, 1.0),
      sdk::ParamSpec::real(
          "mutation_probability",
          "p_m: probability that a position changes to a different value (ConEvo: that a "
          "position of the independent side of a balance pair flips). -1 = 0.01 with an "
          "acquisition (App. C.3), 0.1 without (C.2), 0.05 for ConEvo either way (C.6, C.7).",
          -1.0, -1.0, 1.0),
      sdk::ParamSpec::choice(
          "operators",
          "'regevo': two parents, crossover, token mutation. 'conevo': the best parent alone, "
          "no crossover, ConEvo's feasible mutation on the subset-balance equalities found "
          "among the known constraints (token mutation elsewhere). 'auto': conevo when such "
          "equalities exist, else regevo.",
          "auto", {"auto", "regevo", "conevo"}),
      sdk::ParamSpec::choice(
          "real_mutation",
          "How a mutated Real coordinate changes (the paper's spaces are discrete): 'gaussian' "
          "adds N(0, (real_step x range)^2) in encoded units (log scale: multiplicative), "
          "reflected at the bounds; 'uniform' redraws it over its range.",
          "gaussian", {"gaussian", "uniform"}),
      sdk::ParamSpec::real("real_step",
                           "Standard deviation of the Gaussian mutation of a Real coordinate, "
                           "as a fraction of its encoded range.",
                           0.1, 0.0, 10.0),
      sdk::ParamSpec::integer(
          "attempts",
          "Children bred for one slot until one satisfies the known constraints (without an "
          "acquisition: and is not an evaluated point). A slot whose children all violate "
          "them is projected (see projections) or dropped.",
          100, 1, 1e9),
      sdk::ParamSpec::integer(
          "projections",
          "Per call, at most this many rejected children are projected onto the known "
          "constraints with the pipeline's model solver (needs constraints that formulate "
          "themselves); 0 disables. Also the projected uniform draws of the fallback.",
          20, 0, 1e6),
      FeasibleSampler::projection_time_limit_param(),
      sdk::ParamSpec::integer(
          "max_tries",
          "Uniform draws of the fallback used when evolution yields no acceptable point (no "
          "population yet, or every child evaluated or infeasible); spaces of at most 65,536 "
          "points are then enumerated.",
          100000, 1, 1e12)};
  return specs;
}

RegularizedEvolution::RegularizedEvolution(const sdk::CreateArgs& args)
    : ctx_(args.context),
      candidates_(args.params.get_int("candidates")),
      batch_size_(args.params.get_int("batch_size")),
      tournament_(args.params.get_int("tournament_size")),
      population_(args.params.get_int("population_size")),
      p_c_(args.params.get_real("crossover_probability")),
      p_m_(args.params.get_real("mutation_probability")),
      operators_(args.params.get_string("operators")),
      real_mutation_(args.params.get_string("real_mutation") == "uniform"
                         ? regevo::RealMutation::Uniform
                         : regevo::RealMutation::Gaussian),
      real_step_(args.params.get_real("real_step")),
      max_retries_(args.params.get_int("attempts")),
      projections_(args.params.get_int("projections")),
      max_tries_(args.params.get_int("max_tries")),
      projection_seconds_(args.params.get_real("projection_time_limit")),
      sampler_(args.context, projection_seconds_),
      mutator_(args.space, real_mutation_, real_step_) {
  check_auto(args.params, "tournament_size", false);
  check_auto(args.params, "population_size", false);
  check_auto(args.params, "crossover_probability", true);
  check_auto(args.params, "mutation_probability", true);
}

RegularizedEvolution::Settings RegularizedEvolution::resolve(bool with_model, bool conevo) const {
  Settings s;
  s.conevo = conevo;
  s.tournament = tournament_ >= 1 ? tournament_
                 : conevo         ? kTournamentConEvo
                 : with_model     ? kTournamentModel
                                  : kTournamentModelFree;
  s.population = population_ >= 1 ? population_
                 : with_model     ? kPopulationModel
                                  : kPopulationModelFree;
  s.p_c = p_c_ >= 0.0 ? p_c_ : (with_model ? kCrossoverModel : kCrossoverModelFree);
  s.p_m = p_m_ >= 0.0  ? p_m_
          : conevo     ? kMutationConEvo
          : with_model ? kMutationModel
                       : kMutationModelFree;
  return s;
}

void RegularizedEvolution::breed(const sdk::Space& space, const Settings& s) {
  const auto d = static_cast<Eigen::Index>(space.size());
  std::mt19937_64& rng = ctx_.rng();
  const auto [first, second] = population_buf_.tournament(s.tournament, rng);
  if (s.conevo) {
    // ConEvo (App. C.6): the tournament's best is the only parent; no recombination.
    const double* parent = population_buf_.row(first);
    std::copy(parent, parent + d, child_.data());
    balance_mutator_.mutate(child_, sampler_.balance().pairs, s.p_m, rng);
    mutator_.mutate(child_, s.p_m, rng, sampler_.balance().in_pair);
  } else {
    regevo::crossover(population_buf_.row(first), population_buf_.row(second), d, s.p_c, child_,
                      rng);
    mutator_.mutate(child_, s.p_m, rng);
  }
  space.snap(child_);
}

bool RegularizedEvolution::project_child(const sdk::SolveRequest& request) {
  sdk::ModelSolver* solver = ctx_.model_solver();
  if (solver == nullptr || request.constraints.empty() ||
      !sdk::can_formulate(request.constraints)) {
    return false;
  }
  sdk::SolveOptions options = sdk::default_projection_options();
  options.time_limit_seconds = projection_seconds_;
  if (!sdk::project_onto_constraints(request.space, request.constraints, *solver, child_,
                                     options)) {
    return false;
  }
  return sdk::satisfies(request.constraints, child_, FeasibleSampler::kProjectionTolerance);
}

sdk::Proposal RegularizedEvolution::maximize(const sdk::SolveRequest& request) {
  const sdk::Space& space = request.space;
  const auto d = static_cast<Eigen::Index>(space.size());
  if (mutator_.size() != d) mutator_ = regevo::TokenMutator(space, real_mutation_, real_step_);
  child_.resize(d);
  evaluated_ = sdk::EvaluatedPoints(request.data);
  // The balance equalities: ConEvo's mutation keeps them, and the sampler's uniform draws
  // (population seeds, fallbacks) keep them exactly.
  sampler_.prepare(request);
  const sdk::BalanceStructure& balance = sampler_.balance();
  const bool conevo = operators_ == "conevo" || (operators_ == "auto" && !balance.pairs.empty());
  const bool with = request.acquisition != nullptr;
  const Settings s = resolve(with, conevo);
  sdk::Proposal p = with ? with_model(request, s) : model_free(request, s);
  // The kernel keeps a solver's note only when it finds nothing; how each point was bred
  // (evolution, projection, fallback) is worth a debug line.
  ctx_.debug("{}", p.note);
  return p;
}

sdk::Proposal RegularizedEvolution::with_model(const sdk::SolveRequest& request,
                                               const Settings& s) {
  const sdk::Space& space = request.space;
  const sdk::Dataset& data = request.data;
  const auto d = static_cast<Eigen::Index>(space.size());
  const sdk::Acquisition& acquisition = *request.acquisition;
  population_buf_.reset(s.population, d);

  double best_value = -kInf;
  bool have_best = false;
  std::int64_t generated = 0;
  // Scores the rows of `m` in one call, adds them to the population and, for candidates (not
  // observations), keeps the best that is not an evaluated point.
  const auto absorb = [&](const Eigen::MatrixXd& m, bool candidates) {
    acquisition.values(m, values_);
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
      child_ = m.row(i).transpose();
      const double v = values_[i];
      population_buf_.push(child_.data(), v);
      if (candidates && !std::isnan(v) && v > best_value && !evaluated_.contains(child_)) {
        best_value = v;
        best_x_ = child_;
        have_best = true;
      }
    }
  };

  // The inner population starts as {(x_i, a(x_i))} over the observations (App. C.3) that
  // satisfy the known constraints, the D most recent of them alive.
  rows_.clear();
  for (Eigen::Index i = data.X.rows() - 1;
       i >= 0 && static_cast<std::int64_t>(rows_.size()) < s.population; --i) {
    child_ = data.X.row(i).transpose();
    if (sdk::satisfies(request.constraints, child_)) rows_.push_back(i);
  }
  std::int64_t seeded = 0;
  if (!rows_.empty()) {
    batch_.resize(static_cast<Eigen::Index>(rows_.size()), d);
    for (std::size_t k = 0; k < rows_.size(); ++k)  // oldest first
      batch_.row(static_cast<Eigen::Index>(k)) = data.X.row(rows_[rows_.size() - 1 - k]);
    absorb(batch_, false);
  } else {
    // No observation to start from: uniform feasible draws take their place (and count as
    // candidates).
    sampler_.fill_pool(request, static_cast<Eigen::Index>(std::min(batch_size_, candidates_)),
                       max_tries_, projections_, FeasibleSampler::Mode::Reject);
    if (sampler_.pool().rows() > 0) {
      absorb(sampler_.pool(), true);
      seeded = sampler_.pool().rows();
      generated += seeded;
    }
  }
  if (population_buf_.empty()) {
    return fallback(request, !request.exclude_evaluated,
                    "no observation or uniform draw satisfies the known constraints");
  }

  std::int64_t rejected = 0;
  std::int64_t projected = 0;
  std::int64_t projections_left = projections_;
  std::int64_t batches = 0;
  bool cancelled = false;
  while (generated < candidates_) {
    if (ctx_.cancelled()) {
      cancelled = true;
      break;
    }
    const auto k = static_cast<Eigen::Index>(std::min(batch_size_, candidates_ - generated));
    if (batch_.rows() != k || batch_.cols() != d) batch_.resize(k, d);
    Eigen::Index filled = 0;
    for (Eigen::Index slot = 0; slot < k; ++slot) {
      ++generated;
      bool ok = false;
      for (std::int64_t a = 0; a < max_retries_ && !ok; ++a) {
        breed(space, s);
        ok = sdk::satisfies(request.constraints, child_);
      }
      if (!ok && projections_left > 0) {
        --projections_left;
        ok = project_child(request);
        projected += ok ? 1 : 0;
      }
      if (!ok) {
        ++rejected;
        continue;
      }
      batch_.row(filled++) = child_.transpose();
    }
    ++batches;
    if (filled == 0) continue;
    // Only when known constraints rejected slots: the batch shrinks (one reallocation).
    if (filled < k) batch_.conservativeResize(filled, d);
    absorb(batch_, true);
  }

  const std::string how = fmt::format(
      "{} ({} children in {} batches{}, population {}, tournament {}, {}p_m {}{}{})",
      s.conevo ? fmt::format("ConEvo on {} balance pairs", sampler_.balance().pairs.size())
               : std::string("RegEvo"),
      generated - seeded, batches, seeded > 0 ? fmt::format(", {} uniform seeds", seeded) : "",
      population_buf_.size(), s.tournament, s.conevo ? "" : fmt::format("p_c {}, ", s.p_c), s.p_m,
      rejected > 0 ? fmt::format(", {} slots rejected by known constraints", rejected) : "",
      projected > 0 ? fmt::format(", {} projected", projected) : "");
  if (!have_best) {
    return fallback(request, !request.exclude_evaluated,
                    fmt::format("{}: every candidate is an evaluated point", how));
  }
  sdk::Proposal result;
  result.found = true;
  result.x = best_x_;
  result.value = best_value;
  result.note = fmt::format("best unevaluated candidate of {}{}", how,
                            cancelled ? "; cancelled before the budget" : "");
  return result;
}

sdk::Proposal RegularizedEvolution::model_free(const sdk::SolveRequest& request,
                                               const Settings& s) {
  const sdk::Space& space = request.space;
  const sdk::Dataset& data = request.data;
  const auto d = static_cast<Eigen::Index>(space.size());
  population_buf_.reset(s.population, d);
  // The outer loop's population (App. C.2): the D most recent observations satisfying the known
  // constraints, ranked by y (minimized); one violating a black-box constraint ranks below
  // every feasible one.
  rows_.clear();
  for (Eigen::Index i = data.X.rows() - 1;
       i >= 0 && static_cast<std::int64_t>(rows_.size()) < s.population; --i) {
    child_ = data.X.row(i).transpose();
    if (sdk::satisfies(request.constraints, child_)) rows_.push_back(i);
  }
  for (auto it = rows_.rbegin(); it != rows_.rend(); ++it) {
    child_ = data.X.row(*it).transpose();
    const auto i = static_cast<std::size_t>(*it);
    const bool feasible = i >= data.feasible.size() || data.feasible[i] != 0;
    population_buf_.push(child_.data(), -data.y[*it], feasible ? 1 : 0);
  }
  if (population_buf_.empty()) {
    return fallback(request, !request.exclude_evaluated,
                    "no observation satisfies the known constraints yet");
  }

  bool violating = false;
  std::int64_t evaluated = 0;
  std::int64_t infeasible = 0;
  std::int64_t a = 0;
  for (; a < max_retries_; ++a) {
    if (a > 0 && a % kPollChildren == 0 && ctx_.cancelled()) break;
    breed(space, s);
    if (!sdk::satisfies(request.constraints, child_)) {
      ++infeasible;
      best_x_ = child_;  // the last violating child, projected below if nothing else works
      violating = true;
      continue;
    }
    // Re-evaluating a point wastes an evaluation of a noiseless objective; the paper's outer
    // loop leaves duplicates unspecified, so children equal to an evaluated point are redrawn.
    if (evaluated_.contains(child_)) {
      ++evaluated;
      continue;
    }
    sdk::Proposal result;
    result.found = true;
    result.x = child_;
    result.note = fmt::format(
        "{} child of {} observations (tournament {}, {}p_m {}) after {} attempts",
        s.conevo ? fmt::format("ConEvo ({} balance pairs)", sampler_.balance().pairs.size())
                 : std::string("RegEvo"),
        population_buf_.size(), s.tournament, s.conevo ? "" : fmt::format("p_c {}, ", s.p_c), s.p_m,
        a + 1);
    return result;
  }
  if (violating && projections_ > 0) {
    child_ = best_x_;
    if (project_child(request) && !evaluated_.contains(child_)) {
      sdk::Proposal result;
      result.found = true;
      result.x = child_;
      result.note = fmt::format(
          "child projected onto the known constraints after {} attempts ({} infeasible, {} "
          "evaluated)",
          a, infeasible, evaluated);
      return result;
    }
  }
  return fallback(request, !request.exclude_evaluated,
                  fmt::format("{} children: {} violate the known constraints, {} are evaluated "
                              "points",
                              a, infeasible, evaluated));
}

sdk::Proposal RegularizedEvolution::fallback(const sdk::SolveRequest& request, bool allow_evaluated,
                                             const std::string& why) {
  const sdk::Space& space = request.space;
  sdk::Proposal result;
  bool have_evaluated = false;  // best_x_ holds a feasible evaluated draw
  std::int64_t tries = 0;
  while (tries < max_tries_) {
    if (tries % FeasibleSampler::kPollEvery == 0 && tries > 0 && ctx_.cancelled()) break;
    ++tries;
    if (!sampler_.draw_feasible(request)) continue;
    if (!evaluated_.contains(sampler_.point())) {
      result.found = true;
      result.x = sampler_.point();
      result.note = fmt::format("{}; uniform feasible draw after {} draws", why, tries);
      return result;
    }
    if (allow_evaluated && !have_evaluated) {
      best_x_ = sampler_.point();
      have_evaluated = true;
    }
  }
  if (projections_ > 0 && ctx_.model_solver() != nullptr && !request.constraints.empty() &&
      sdk::can_formulate(request.constraints)) {
    for (std::int64_t k = 0; k < projections_; ++k) {
      if (!sampler_.draw_projected(request)) continue;
      if (!evaluated_.contains(sampler_.point())) {
        result.found = true;
        result.x = sampler_.point();
        result.note = fmt::format("{}; projected a uniform draw onto the known constraints", why);
        return result;
      }
    }
  }
  // A small space is searched exhaustively, which also proves when every point is evaluated.
  const std::size_t n = sdk::count_points(space, kEnumerationLimit);
  bool enumerated = false;
  if (n > 0 && !ctx_.cancelled()) {
    for (std::size_t k = 0; k < n; ++k) {
      sdk::point_at(space, k, child_);
      if (!sdk::satisfies(request.constraints, child_) || evaluated_.contains(child_)) continue;
      result.found = true;
      result.x = child_;
      result.note =
          fmt::format("{}; first unevaluated feasible point of the {} enumerated", why, n);
      return result;
    }
    enumerated = true;
  }
  if (allow_evaluated && have_evaluated) {
    result.found = true;
    result.x = best_x_;
    result.note = fmt::format("{}; no unevaluated point found, proposing an evaluated one", why);
    return result;
  }
  result.exhausted = request.exclude_evaluated && enumerated;
  result.note = enumerated ? fmt::format("{}; every feasible point of the {} is evaluated", why, n)
                           : fmt::format(
                                 "{}; no unevaluated point satisfies the known constraints in {} "
                                 "uniform draws",
                                 why, tries);
  return result;
}

}  // namespace arbo::plugins
