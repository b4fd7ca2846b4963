// SPDX-License-Identifier: MIT
#include "inner_solver_xyz.hpp"

#include <cmath>
#include <limits>
#include <random>
#include <string>

namespace xyz {

const arbo::sdk::ParamSpecList& InnerSolverXyz::params() {
  static const arbo::sdk::ParamSpecList specs{
      arbo::sdk::ParamSpec::integer(
          "starts", "Feasible random points scored before the local search starts from the best.",
          256, 1, 1e7),
      arbo::sdk::ParamSpec::integer("max_tries", "Most random draws per call, feasible or not.",
                                    100000, 1, 1e12),
      arbo::sdk::ParamSpec::integer(
          "max_sweeps", "Most sweeps over all coordinates in the local search (0: none).", 200, 0,
          1e7),
      arbo::sdk::ParamSpec::real("initial_step",
                                 "First step of the local search, as a fraction of each range.",
                                 0.1, 1e-6, 1.0)};
  return specs;
}

InnerSolverXyz::InnerSolverXyz(const arbo::sdk::CreateArgs& args)
    : ctx_(args.context),
      starts_(args.params.get_int("starts")),
      max_tries_(args.params.get_int("max_tries")),
      max_sweeps_(args.params.get_int("max_sweeps")),
      initial_step_(args.params.get_real("initial_step")) {}

bool InnerSolverXyz::feasible(const arbo::sdk::SolveRequest& request, const Eigen::VectorXd& x) {
  for (const arbo::sdk::Constraint* c : request.constraints) {
    if (!(c->violation(x) <= 0.0)) return false;  // NaN counts as violated
  }
  return true;
}

arbo::sdk::Proposal InnerSolverXyz::maximize(const arbo::sdk::SolveRequest& request) {
  const arbo::sdk::Space& space = request.space;
  const arbo::sdk::Acquisition* acq = request.acquisition;
  const auto d = static_cast<Eigen::Index>(space.size());
  arbo::sdk::Proposal result;

  // Phase 1: random starts.
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  Eigen::VectorXd u(d), x(d);
  const std::int64_t wanted = acq != nullptr ? starts_ : 1;
  std::int64_t tries = 0, accepted = 0;
  double best = -std::numeric_limits<double>::infinity();
  while (accepted < wanted && tries < max_tries_ && !ctx_.cancelled()) {
    ++tries;
    for (Eigen::Index j = 0; j < d; ++j) u[j] = unit(ctx_.rng());
    space.from_unit(u, x);
    if (!feasible(request, x)) continue;
    ++accepted;
    const double v = acq != nullptr ? acq->value(x) : 0.0;
    if (!result.found || v > best) {
      result.found = true;
      result.x = x;
      best = v;
    }
  }
  if (!result.found) {
    result.note =
        "no random draw satisfied the known constraints in " + std::to_string(tries) + " tries";
    return result;
  }
  if (acq == nullptr) return result;

  // Phase 2: compass search in encoded units.
  Eigen::VectorXd step = initial_step_ * (space.upper() - space.lower());
  for (Eigen::Index j = 0; j < d; ++j) {
    if (space.is_discrete(static_cast<std::size_t>(j)))
      step[j] = std::max(1.0, std::round(step[j]));
  }
  // Refining below 1e-7 of a range buys nothing: the kernel's model is not that accurate.
  const Eigen::VectorXd min_step = (1e-7 * (space.upper() - space.lower())).cwiseMax(1e-12);
  Eigen::VectorXd trial(d);
  std::int64_t sweeps = 0;
  for (; sweeps < max_sweeps_ && !ctx_.cancelled(); ++sweeps) {
    bool improved = false;
    for (Eigen::Index j = 0; j < d; ++j) {
      for (const double dir : {1.0, -1.0}) {
        trial = result.x;
        trial[j] += dir * step[j];
        space.snap(trial);  // clamps, rounds discrete values, resets inactive parameters
        if (trial == result.x || !feasible(request, trial)) continue;
        const double v = acq->value(trial);
        if (v > best) {
          best = v;
          result.x = trial;
          improved = true;
          break;
        }
      }
    }
    if (improved) continue;
    bool can_refine = false;
    for (Eigen::Index j = 0; j < d; ++j) {
      if (space.is_discrete(static_cast<std::size_t>(j))) {
        can_refine = can_refine || step[j] > 1.0;
        step[j] = std::max(1.0, std::round(0.5 * step[j]));
      } else {
        step[j] *= 0.5;
        can_refine = can_refine || step[j] > min_step[j];
      }
    }
    if (!can_refine) break;
  }
  result.value = best;
  result.note = std::to_string(accepted) + " random starts, " + std::to_string(sweeps) +
                " local-search sweeps";
  return result;
}

}  // namespace xyz
