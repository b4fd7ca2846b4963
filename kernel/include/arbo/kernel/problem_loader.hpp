// SPDX-License-Identifier: MIT
/// @file
/// @brief Creating a problem plugin and reading what it declares: shared by the study and by
/// `arbo problems` / `arbo problem eval`, so both see a problem the same way.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "arbo/kernel/plugin_registry.hpp"
#include "arbo/sdk/capabilities/problem.hpp"
#include "arbo/sdk/problem.hpp"
#include "arbo/sdk/space.hpp"

namespace arbo::kernel {

class KernelContext;

/// A proposal (and a point `arbo problem eval` calls feasible) may violate the known
/// constraints by at most this much: solvers return points on a constraint's boundary up to
/// their own feasibility tolerance. Units of the constraints' values.
inline constexpr double kKnownTolerance = 1e-6;

/// A created problem and everything it declares, read once through `guarded_call`.
struct LoadedProblem {
  std::shared_ptr<sdk::Problem> problem;
  sdk::Space space;
  std::vector<std::string> constraint_names;  ///< black-box constraints, feasible iff <= 0
  sdk::ProblemInfo info;
  /// The problem's known constraints (null and empty when it declares none). `known` points
  /// into `problem`.
  const sdk::HasKnownConstraints* known = nullptr;
  std::vector<sdk::KnownConstraintSpec> known_specs;
};

/// Creates problem component `entry` with `params` and `context` (which must outlive it) and
/// reads its space, constraint names, info and known constraints.
/// @throws PluginError naming the component and the method that failed.
LoadedProblem load_problem(const PluginRegistry& registry, const ComponentEntry& entry,
                           const sdk::ParamSet& params, KernelContext& context);

/// How much a known constraint's value `g` (from `HasKnownConstraints::known_values`) exceeds
/// what `spec` allows: g for "<=" constraints, |g| for "==" ones, +infinity for NaN; <= 0 (or
/// <= kKnownTolerance) means satisfied.
double known_excess(const sdk::KnownConstraintSpec& spec, double g);

}  // namespace arbo::kernel
