// SPDX-License-Identifier: MIT
/// @file
/// @brief From an optimal leaf cell to a query, for every tree-kernel GP (LEAF-GP, BARK): the
/// cell's centre, projected onto the known constraints inside the cell when the centre violates
/// them (Thebelt et al. 2022, Sec. 4.3 and Eq. 11; BARK's reference code does the same, Boyne
/// et al.), optionally resampled when it repeats an observation.
#pragma once

#include <vector>

#include <Eigen/Core>

#include <arbo/sdk/context.hpp>
#include <arbo/sdk/params.hpp>
#include <arbo/sdk/space.hpp>

#include "formulation.hpp"
#include "tree_kernel_gp.hpp"

namespace arbo::sdk {
class Constraint;
}

namespace arbo::plugins::tree_gp {

/// How a cell becomes a query; read from the parameters `decode_param_specs` declares.
struct DecodeSettings {
  double box_widening = 0.0;
  double projection_time_limit = 5.0;
  bool projection_scaled = false;  // projection_distance = cell_scaled
  bool resample_duplicates = false;
};

/// The parameters of `DecodeSettings` (box_widening, resample_duplicates,
/// projection_distance, projection_time_limit), for a tree-kernel surrogate's own list.
const sdk::ParamSpecList& decode_param_specs();
/// Reads them from a validated parameter set that includes `decode_param_specs()`.
DecodeSettings read_decode_settings(const sdk::ParamSet& params);

/// The query of the cell in which the trees of `gps` put `leaves` (as `leaves_of` orders
/// them): its centre (`cell_centre`); when that violates `constraints`, its projection onto
/// them inside the cell (the solver's point `x`, moved inside the cell's open bounds, as the
/// projection's start, and as the query when the projection fails); with
/// `resample_duplicates`, a random point of the cell when the query repeats a row of
/// `observed`. Returns false (x unchanged) when the cell is empty or no point of it satisfying
/// the constraints was found. Draws from `ctx.rng()`; projections use `ctx.model_solver()`.
bool decode_cell(sdk::Context& ctx, const sdk::Space& space,
                 const std::vector<const TreeKernelGp*>& gps, const std::vector<int>& leaves,
                 const DecodeSettings& settings, const Eigen::MatrixXd& observed,
                 const std::vector<const sdk::Constraint*>& constraints, Eigen::VectorXd& x);

}  // namespace arbo::plugins::tree_gp
