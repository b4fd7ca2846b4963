// SPDX-License-Identifier: MIT
#include "glpk_bnb.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include <arbo/sdk/capabilities/acquisition.hpp>
#include <arbo/sdk/capabilities/constraint.hpp>
#include <arbo/sdk/capabilities/surrogate.hpp>
#include <arbo/sdk/error.hpp>
#include <arbo/sdk/exclusion.hpp>
#include <arbo/sdk/model.hpp>
#include <arbo/sdk/model_io.hpp>

#include "cores.hpp"
#include "glpk_session.hpp"
#include "start_search.hpp"

namespace arbo::plugins {

namespace {

glpk::MilpMethod milp_method(const std::string& name) {
  if (name == "bnb") return glpk::MilpMethod::BranchAndBound;
  if (name == "intopt") return glpk::MilpMethod::Intopt;
  return glpk::MilpMethod::Auto;
}

// The solve's start: of the observed and pending points that satisfy the known constraints,
// the one with the best acquisition value. With nonconvex known constraints (Alkylation) the
// search may otherwise find no feasible point at all; any observation is one, in whatever cell
// it lies.
struct ObservedStart {
  Eigen::VectorXd x;
  double value = 0.0;
};

std::optional<ObservedStart> best_observed(const sdk::SolveRequest& request) {
  std::optional<ObservedStart> best;
  auto offer = [&](const Eigen::MatrixXd& X) {
    for (Eigen::Index i = 0; i < X.rows(); ++i) {
      const Eigen::VectorXd x = X.row(i).transpose();
      if (!sdk::satisfies(request.constraints, x)) continue;
      const double v = request.acquisition != nullptr ? request.acquisition->value(x) : 0.0;
      if (!best || v > best->value) best = ObservedStart{x, v};
    }
  };
  offer(request.data.X);
  offer(request.data.X_pending);
  return best;
}

}  // namespace

const sdk::ParamSpecList& GlpkBnb::params() {
  static const sdk::ParamSpecList specs{
      sdk::ParamSpec::real("absolute_gap", "Stop when incumbent - bound <= this (objective units).",
                           1e-4, 0.0),
      sdk::ParamSpec::real(
          "relative_gap",
          "Stop when incumbent - bound <= this * |incumbent - o|, o the objective's declared "
          "offset (an acquisition's mean term: the gap of the standardized model, as the "
          "papers measure it); without one, this * min(|incumbent|, |incumbent - c|), c the "
          "objective's constant term (so that no constant loosens the tolerance).",
          1e-4, 0.0),
      sdk::ParamSpec::real("feasibility_tolerance",
                           "Largest violation of a row, bound or integrality accepted in a "
                           "solution (absolute).",
                           1e-6, 1e-12, 1.0),
      sdk::ParamSpec::real("time_limit",
                           "Seconds per solve; the best point found so far is returned with "
                           "its bound and gap when it runs out. Also capped by the iteration's "
                           "time budget.",
                           60.0, 1e-3),
      sdk::ParamSpec::integer("node_limit",
                              "Most branch-and-bound nodes per solve; -1 for no limit.", -1, -1),
      sdk::ParamSpec::integer(
          "threads",
          "Threads of the branch-and-bound; 0 for one per core the process may use (its CPU "
          "affinity, capped by its cgroup's CPU quota), at most 8. The threads work in rounds "
          "that are merged in a fixed order, so a solve that ends within its limits gives the "
          "same answer on every run with the same thread count (another count visits the nodes "
          "in another order).",
          0, 0, 64),
      sdk::ParamSpec::integer(
          "no_incumbent_retries",
          "When a solve of `maximize` reaches its limit without any feasible point, it is "
          "solved again with twice the previous time limit, up to this many times (the LEAF-GP "
          "paper continues past its time limit in that case); 0 reports 'not found' at once.",
          3, 0, 20),
      sdk::ParamSpec::integer(
          "start_search",
          "Most acquisition values computed, per solve, by a coordinate search that improves "
          "the solve's start (the best observed point) before the branch-and-bound: each move "
          "sets one parameter to the best of its candidate values (every level of a "
          "categorical or small integer; the observed values, the points just past their "
          "midpoints and the bounds of a real). Its point is the search's first incumbent, so a "
          "solve stopped at its limit proposes at least that local optimum of the acquisition; "
          "the bound and the proof do not change. 0 turns it off. Not used with [proposal] "
          "exclude_evaluated, whose cuts forbid observed points as starts.",
          5000, 0)
          .as_advanced(),
      sdk::ParamSpec::string(
          "dump_model",
          "When non-empty, every model solved is written to this path in CPLEX LP format "
          "(a '{n}' in the path is replaced by a running count; otherwise the file holds the "
          "latest model).",
          ""),
      sdk::ParamSpec::choice("milp_method",
                             "Who solves models without quadratic terms: 'auto' (the measured "
                             "faster one), 'bnb' (this plugin's tree) or 'intopt' (GLPK's "
                             "glp_intopt with presolve and cuts).",
                             "auto", {"auto", "bnb", "intopt"})
          .as_advanced(),
      sdk::ParamSpec::choice(
          "branching",
          "How the tree picks a fractional integer to split: 'reliability' (pseudo-costs, "
          "initialized by solving both children's LPs for variables with fewer than two "
          "observations per direction), 'pseudocost' (pseudo-costs alone) or "
          "'most_fractional'.",
          "reliability", {"reliability", "pseudocost", "most_fractional"})
          .as_advanced()};
  return specs;
}

GlpkBnb::GlpkBnb(const sdk::CreateArgs& args)
    : ctx_(args.context), dump_model_(args.params.get_string("dump_model")) {
  options_.absolute_gap = args.params.get_real("absolute_gap");
  options_.relative_gap = args.params.get_real("relative_gap");
  options_.feasibility_tolerance = args.params.get_real("feasibility_tolerance");
  options_.time_limit_seconds = args.params.get_real("time_limit");
  options_.node_limit = args.params.get_int("node_limit");
  no_incumbent_retries_ = args.params.get_int("no_incumbent_retries");
  start_search_ = args.params.get_int("start_search");
  config_.milp_method = milp_method(args.params.get_string("milp_method"));
  const auto threads = args.params.get_int("threads");
  config_.threads = threads > 0 ? static_cast<int>(threads) : std::min(glpk::available_cores(), 8);
  const std::string branching = args.params.get_string("branching");
  config_.pseudo_costs = branching != "most_fractional";
  config_.strong_branching = branching == "reliability";
  config_.log = [this](sdk::LogLevel level, std::string_view message) { ctx_.log(level, message); };
  config_.cancelled = [this] { return ctx_.cancelled(); };
}

void GlpkBnb::dump(const sdk::Model& model) {
  if (dump_model_.empty()) return;
  std::string path = dump_model_;
  const auto pos = path.find("{n}");
  if (pos != std::string::npos) path.replace(pos, 3, std::to_string(dumped_));
  ++dumped_;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << sdk::write_lp(model);
  out.close();  // a short model sits in the buffer until then: a full disk shows only here
  if (!out)
    throw sdk::Error(fmt::format("inner_solver/glpk_bnb: cannot write dump_model '{}'", path));
}

sdk::SolveResult GlpkBnb::solve(const sdk::Model& model, const sdk::SolveOptions& options) {
  sdk::SolveOptions o = options;
  const double left = ctx_.seconds_left();
  if (std::isfinite(left))
    o.time_limit_seconds = std::min(o.time_limit_seconds, std::max(left, 1e-3));
  dump(model);
  try {
    return glpk::solve_model(model, o, config_);
  } catch (const glpk::GlpkError& e) {
    ctx_.log(sdk::LogLevel::Error, e.what());
    sdk::SolveResult res;
    res.status = sdk::SolveStatus::Error;
    res.message = e.what();
    return res;
  }
}

sdk::Proposal GlpkBnb::maximize(const sdk::SolveRequest& request) {
  const sdk::Space& space = request.space;
  sdk::Model model;
  const sdk::PointVariables point = sdk::add_point_variables(model, space);
  if (request.acquisition != nullptr) {
    const auto* f = dynamic_cast<const sdk::FormulatesAcquisition*>(request.acquisition);
    if (f == nullptr) {
      throw sdk::Error(
          "inner_solver/glpk_bnb needs an acquisition with the capability "
          "arbo::sdk::FormulatesAcquisition (it writes itself into the solver's model); the "
          "pipeline's acquisition does not offer it. Use a black-box inner solver such as "
          "inner_solver/random, or an acquisition and surrogates that can formulate themselves");
    }
    f->formulate(model, point);
  }
  for (const sdk::Constraint* c : request.constraints) {
    const auto* f = dynamic_cast<const sdk::FormulatesConstraint*>(c);
    if (f == nullptr) {
      throw sdk::Error(
          fmt::format("inner_solver/glpk_bnb needs every known constraint to have the capability "
                      "arbo::sdk::FormulatesConstraint; '{}' does not offer it",
                      c->describe()));
    }
    f->formulate(model, point);
  }
  // [proposal] exclude_evaluated: one no-good cut per evaluated point (NN+MILP, Papalexopoulos
  // et al. 2022, Sec. 3), after the acquisition so that its one-hot indicators are reused. Every
  // observed point then violates a cut, so none can serve as a start.
  std::size_t cuts = 0;
  if (request.exclude_evaluated) {
    cuts = sdk::add_exclusion_cuts(model, point, space, request.data);
  }

  sdk::SolveOptions options = options_;
  if (!request.exclude_evaluated) {
    if (const std::optional<ObservedStart> best = best_observed(request)) {
      // A solve stopped at its limit returns its incumbent, often this start itself: a local
      // optimum of the acquisition from it is a better incumbent to begin with (a primal
      // heuristic; the search's bound and proof are unchanged).
      const glpk::StartSearch found = glpk::coordinate_search(
          request, best->x, best->value, start_search_, [this] { return ctx_.cancelled(); });
      if (found.moves > 0) {
        ctx_.debug(
            "glpk_bnb: coordinate search from the best observed point: {} moves, {} "
            "acquisition values, {:.6g} -> {:.6g}",
            found.moves, found.evaluations, best->value, found.value);
        options.starts.push_back(sdk::point_start(model, point, found.x));
      }
      options.starts.push_back(sdk::point_start(model, point, best->x));
    }
  }
  sdk::SolveResult res = solve(model, options);
  sdk::SolveOptions longer = options;
  for (std::int64_t k = 0; k < no_incumbent_retries_ && res.x.empty() &&
                           res.status == sdk::SolveStatus::LimitReached && !ctx_.cancelled();
       ++k) {
    longer.time_limit_seconds *= 2.0;
    ctx_.log(sdk::LogLevel::Info,
             fmt::format("glpk_bnb: no feasible point within the limit; solving again with {} s",
                         longer.time_limit_seconds));
    const double spent = res.seconds;
    res = solve(model, longer);
    res.seconds += spent;
  }
  sdk::Proposal prop;
  prop.note = fmt::format("glpk_bnb: {}", res.message);
  if (request.exclude_evaluated) prop.note += fmt::format(" ({} evaluated points excluded)", cuts);
  sdk::Proposal::ModelSize size;
  size.variables = static_cast<std::int64_t>(model.num_variables());
  for (const sdk::Variable& v : model.variables()) {
    if (v.type == sdk::VarType::Binary) ++size.binaries;
    if (v.type == sdk::VarType::Integer) ++size.integers;
  }
  size.linear_rows = static_cast<std::int64_t>(model.linear_rows().size());
  size.quadratic_rows = static_cast<std::int64_t>(model.quadratic_rows().size());
  prop.model_size = size;
  if (res.status == sdk::SolveStatus::Error) throw sdk::Error(prop.note);
  if (res.x.empty()) {
    // Infeasible with the cuts: no unevaluated point satisfies the known constraints.
    prop.exhausted = request.exclude_evaluated && res.status == sdk::SolveStatus::Infeasible;
    prop.certificate = res;
    return prop;
  }
  prop.found = true;
  prop.x.resize(static_cast<Eigen::Index>(space.size()));
  for (std::size_t i = 0; i < space.size(); ++i) {
    prop.x[static_cast<Eigen::Index>(i)] = res.x[static_cast<std::size_t>(point.x_vars[i])];
  }
  // Surrogates whose optimum is a region (tree cells) choose the query inside it themselves.
  if (const auto* d = dynamic_cast<const sdk::DecodesSolution*>(request.acquisition)) {
    Eigen::VectorXd decoded = prop.x;
    if (d->decode(model, point, res.x, request.constraints, decoded)) {
      // The solver's own point satisfies the cuts; a decoded one inside the same region may
      // be an evaluated point, which exclusion forbids.
      if (request.exclude_evaluated && sdk::EvaluatedPoints(request.data).contains(decoded)) {
        prop.note += " (decoded point already evaluated: the solver's point instead)";
      } else {
        prop.x = std::move(decoded);
        prop.note += " (decoded)";
      }
    }
  }
  prop.value = request.acquisition != nullptr ? request.acquisition->value(prop.x) : 0.0;
  prop.certificate = res;
  return prop;
}

}  // namespace arbo::plugins
