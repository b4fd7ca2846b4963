// SPDX-License-Identifier: MIT
/// @file
/// @brief Projection of a point onto the set satisfying known constraints, through a model
/// solver. Used by the kernel's initial designs and by sampling inner solvers when rejection
/// sampling finds too few feasible points (feasible fractions below 1e-6 are common: Ising,
/// G-problems).
#pragma once

#include <vector>

#include <Eigen/Core>

#include "arbo/sdk/capabilities/constraint.hpp"
#include "arbo/sdk/constraint.hpp"
#include "arbo/sdk/export.hpp"
#include "arbo/sdk/model.hpp"
#include "arbo/sdk/space.hpp"

namespace arbo::sdk {

/// True when every constraint can formulate itself (`FormulatesConstraint`).
ARBO_SDK_API bool can_formulate(const std::vector<const Constraint*>& constraints);

/// Options of a projection unless the caller gives its own: at most
/// kDefaultProjectionSeconds of solving, and the solver's default gaps. A projection only needs
/// a feasible point near `x`, not a proof that it is the nearest: with nonconvex constraints
/// (Alkylation's 14 polynomial rows) the proof can run for hours while a good incumbent is
/// found in well under a second.
inline constexpr double kDefaultProjectionSeconds = 10.0;
ARBO_SDK_API SolveOptions default_projection_options();

/// How a projection measures distance, and where it may go beyond the space's bounds.
struct ProjectionSpec {
  /// true: the squared distance of each real and integer coordinate is divided by its range
  /// squared, so that every coordinate weighs the same; false: the plain squared Euclidean
  /// distance in encoded units (LEAF-GP's Eq. 11).
  bool scale_by_range = true;
  /// Empty, or one entry per coordinate: for a categorical coordinate a non-empty list of the
  /// category codes the result may take (the rest are excluded); ignored for the others and
  /// where empty. A projection whose `x` has an excluded category pays 1 for changing it.
  std::vector<std::vector<int>> allowed_categories;
};

/// Replaces `x` by the nearest point satisfying every constraint jointly: squared Euclidean
/// distance over real and integer coordinates, each scaled by its range (so every coordinate
/// weighs the same) unless `spec` says otherwise, plus the Hamming distance over categorical
/// and binary coordinates. Solves one MIQCP with `solver`; the result is snapped onto the
/// space. Conditional (inactive) coordinates are treated like active ones.
/// When `options` stop the solve early, the best feasible point found is taken.
/// `feasible` are encoded points of `space` known to satisfy the constraints (a solver's
/// point, observations); they become the solve's starts (`SolveOptions::starts`), so that a
/// nonconvex feasible set the solver cannot find a point of on its own still yields one.
/// @return false (x unchanged) when a constraint cannot formulate itself, or the model is
///         infeasible or the solver finds no point; true otherwise.
/// @throws InvalidArgument when a point of `feasible` does not have the dimension of `space`,
///         or `spec.allowed_categories` names a code outside a coordinate's choices or has
///         neither 0 nor `space.size()` entries.
/// Complexity: one model solve with d (+ number of categoricals, + allowed categories)
/// variables plus the constraints' rows.
ARBO_SDK_API bool project_onto_constraints(
    const Space& space, const std::vector<const Constraint*>& constraints, ModelSolver& solver,
    Eigen::VectorXd& x, const SolveOptions& options = default_projection_options(),
    const std::vector<Eigen::VectorXd>& feasible = {});
/// The same with a distance and allowed categories of the caller's choice.
ARBO_SDK_API bool project_onto_constraints(const Space& space,
                                           const std::vector<const Constraint*>& constraints,
                                           ModelSolver& solver, Eigen::VectorXd& x,
                                           const SolveOptions& options,
                                           const std::vector<Eigen::VectorXd>& feasible,
                                           const ProjectionSpec& spec);

}  // namespace arbo::sdk
