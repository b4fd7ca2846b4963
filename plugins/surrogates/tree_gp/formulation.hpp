// SPDX-License-Identifier: MIT
/// @file
/// @brief LEAF-GP's mixed-integer formulation of the tree-kernel GP (Misic's tree constraints
/// with tree-wide split rows, x-to-split linking, agreement vector linear in the leaf
/// variables, the standard deviation as one convex quadratic row) and the decoding of a
/// solution into a leaf cell.
#pragma once

#include <random>
#include <vector>

#include <Eigen/Core>

#include <arbo/sdk/capabilities/surrogate.hpp>
#include <arbo/sdk/model.hpp>
#include <arbo/sdk/space.hpp>

#include "tree_ensemble.hpp"
#include "tree_kernel_gp.hpp"

namespace arbo::plugins::tree_gp {

/// Variables a formulation added, kept for decoding.
struct Formulation {
  sdk::FormulatesSurrogate::Output output;
  std::vector<std::vector<int>> z;  ///< per active tree, per leaf (Tree::leaves order)
  std::vector<int> s;               ///< agreement variable per training point
};

/// Adds the GPs `gps` to `model` over `point`: the point's shared variables (one-hot binaries of
/// the categorical coordinates the trees split on, one binary per distinct numeric cut of every
/// tree of every GP, Misic's y_{i,j}), then per GP its trees' leaves and split rows, the
/// agreement with each training point, its mean and standard deviation (metric units), as
/// BARK's formulation over the union of the trees of all its posterior samples (Boyne et al.,
/// Sec. 6.1, Eqs. 9-10) and LEAF-GP's over one GP (Thebelt et al. 2022, Eqs. 3-4).
/// Conditional parameters with a Binary, Categorical or Integer parent (at most 256 values,
/// not log-scaled) are forced to their default when inactive (big-M rows on the parent's
/// indicator; integer parents get one binary per value). `with_stddev = false` leaves out the
/// stddev variables and their quadratic rows (mean-only models, such as the uncertainty
/// experiment of the LEAF-GP paper's Sec. 5.1). Returns one Formulation per GP, in order.
/// @throws sdk::InvalidArgument when `point` does not have one variable per coordinate.
std::vector<Formulation> formulate(sdk::Model& model, const sdk::PointVariables& point,
                                   const sdk::Space& space,
                                   const std::vector<const TreeKernelGp*>& gps,
                                   bool with_stddev = true);
/// The same for a single GP.
Formulation formulate(sdk::Model& model, const sdk::PointVariables& point, const sdk::Space& space,
                      const TreeKernelGp& gp, bool with_stddev = true);

/// Active leaf node per active tree at a model solution (the largest z of each tree), over the
/// active trees of every GP in order.
std::vector<int> active_leaves(const std::vector<Formulation>& fs,
                               const std::vector<const TreeKernelGp*>& gps,
                               const std::vector<double>& solution);
std::vector<int> active_leaves(const Formulation& f, const TreeKernelGp& gp,
                               const std::vector<double>& solution);
/// Leaf node of `x` per active tree of every GP, in the order of `active_leaves`.
std::vector<int> leaves_of(const std::vector<const TreeKernelGp*>& gps, const Eigen::VectorXd& x);
std::vector<int> leaves_of(const TreeKernelGp& gp, const Eigen::VectorXd& x);

/// Intersection of leaf boxes. Numeric coordinates: lower <= x, and x <= upper or, where
/// `upper_open` is set, x < upper (integral bounds for integer and binary coordinates: x < v
/// becomes x <= ceil(v) - 1, never open). Categorical coordinates: `allowed` lists the
/// categories (other coordinates have it empty).
struct Cell {
  Eigen::VectorXd lower, upper;
  /// Per coordinate: `upper` is the threshold v of a numeric split whose left side (float(x) <
  /// v, XGBoost's rule) the cell lies on, so x = v itself belongs to the right-hand leaf.
  std::vector<bool> upper_open;
  std::vector<std::vector<int>> allowed;
  /// The largest value of coordinate j in the cell: `upper`, or where it is open the largest
  /// double whose float32 rounding is below it (thresholds are float32 values).
  double closed_upper(Eigen::Index j) const;
  bool empty() const;
  /// True when x lies in the cell (within tol on continuous coordinates; open upper bounds
  /// are taken as closed_upper).
  bool contains(const sdk::Space& space, const Eigen::VectorXd& x, double tol = 1e-9) const;
};

/// The cell of `leaves` (as `leaves_of` orders them): the intersection of their boxes.
Cell cell_of(const sdk::Space& space, const std::vector<const TreeKernelGp*>& gps,
             const std::vector<int>& leaves);
Cell cell_of(const sdk::Space& space, const TreeKernelGp& gp, const std::vector<int>& leaves);

/// The cell's centre: midpoints of continuous coordinates (at most closed_upper, for a cell
/// one float32 step wide), a uniformly random choice of floor or ceiling of the midpoint for
/// integers, a uniformly random allowed category.
Eigen::VectorXd cell_centre(const sdk::Space& space, const Cell& cell, std::mt19937_64& rng);

/// True for coordinates the trees and the model treat as integers (Integer without log
/// scale, Binary).
bool integral_coordinate(const sdk::Parameter& p);

}  // namespace arbo::plugins::tree_gp
