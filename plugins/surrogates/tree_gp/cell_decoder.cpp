// SPDX-License-Identifier: MIT
#include "cell_decoder.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>

#include <fmt/format.h>

#include <arbo/sdk/constraint.hpp>
#include <arbo/sdk/error.hpp>
#include <arbo/sdk/projection.hpp>

namespace arbo::plugins::tree_gp {

const sdk::ParamSpecList& decode_param_specs() {
  static const sdk::ParamSpecList specs{
      sdk::ParamSpec::real("box_widening",
                           "When the centre of the optimal leaf cell violates a known "
                           "constraint it is projected onto the constraints inside the cell, "
                           "widened by this much per side (encoded units) for that solve. "
                           "The projected point is proposed only if every tree still puts it "
                           "in the optimal cell's leaf. The reference code widens by 1e-5, "
                           "which can put the query past a split threshold, in a neighbouring "
                           "leaf; the default does not widen.",
                           0.0, 0.0),
      sdk::ParamSpec::boolean(
          "resample_duplicates",
          "When the decoded query repeats an observation (the optimal cell is the one of an "
          "evaluated point whose centre was proposed before), propose a uniform random point "
          "of the cell instead (up to 20 draws satisfying the known constraints). Off by "
          "default, as in the paper; on deterministic problems the repeated point carries no "
          "information and the trees, unchanged by it, keep proposing it.",
          false),
      sdk::ParamSpec::choice(
          "projection_distance",
          "Distance of that projection (Eq. 11) on real and integer coordinates. 'plain': the "
          "squared Euclidean distance in raw units, Eq. 11 as printed and the reference code. "
          "'cell_scaled': each coordinate's difference divided by the cell's width, so the "
          "projected point keeps its relative place in the cell instead of moving along the "
          "cell's narrowest side onto a face, where observations often lie already (on G6, "
          "'plain' stayed on one such face, 500 or more above f*, in 4 of 5 seeds; "
          "'cell_scaled' reached f* in all 5; on G3, G10 and Pressure Vessel it ended better "
          "on 7 of 9 seeds, none of the three significantly, and on one seed kept proposing "
          "one point; docs/decisions.md, decision 23).",
          "plain", {"plain", "cell_scaled"}),
      sdk::ParamSpec::real("projection_time_limit",
                           "Seconds for the model solve of that projection; when it fails, "
                           "the solver's own point of the optimal cell is proposed.",
                           5.0, 1e-3)};
  return specs;
}

DecodeSettings read_decode_settings(const sdk::ParamSet& p) {
  DecodeSettings s;
  s.box_widening = p.get_real("box_widening");
  s.projection_time_limit = p.get_real("projection_time_limit");
  s.projection_scaled = p.get_string("projection_distance") == "cell_scaled";
  s.resample_duplicates = p.get_bool("resample_duplicates");
  return s;
}

namespace {

bool is_observed(const Eigen::MatrixXd& observed, const Eigen::VectorXd& x) {
  for (Eigen::Index i = 0; i < observed.rows(); ++i) {
    if ((observed.row(i).transpose() - x).cwiseAbs().maxCoeff() <= 1e-9) return true;
  }
  return false;
}

// Projects x onto the known constraints within `cell`; `start`, if given, is a point of the
// cell known to satisfy them. False (x unchanged) unless the projection satisfies the
// constraints and every tree puts it in `leaves`.
bool project_in_cell(sdk::Context& ctx, const sdk::Space& space,
                     const std::vector<const TreeKernelGp*>& gps, const DecodeSettings& settings,
                     const Cell& cell, const std::vector<int>& leaves,
                     const std::vector<const sdk::Constraint*>& constraints, Eigen::VectorXd& x,
                     const Eigen::VectorXd* start) {
  sdk::ModelSolver* solver = ctx.model_solver();
  if (solver == nullptr || !sdk::can_formulate(constraints)) return false;
  // The cell as a space of its own (bounds narrowed, widened by box_widening, conditions
  // dropped): the SDK's projection then stays inside it.
  std::vector<sdk::Parameter> params;
  for (std::size_t i = 0; i < space.size(); ++i) {
    const sdk::Parameter& p = space[i];
    const auto j = static_cast<Eigen::Index>(i);
    const double lo = std::max(space.lower()[j], cell.lower[j] - settings.box_widening);
    // An open upper bound (a left split, x < v) ends at the last float below v: the
    // projection sits on the cell's boundary whenever the centre violates a constraint, and
    // at v itself the trees send the point to the neighbouring leaf.
    const double hi = std::min(space.upper()[j], cell.closed_upper(j) + settings.box_widening);
    sdk::Parameter q;
    switch (p.type) {
      case sdk::ParamType::Real:
        q = p.log_scale ? sdk::Parameter::real(p.name, std::max(p.lower, std::exp(lo)),
                                               std::min(p.upper, std::exp(hi)), true)
                        : sdk::Parameter::real(p.name, lo, hi);
        break;
      case sdk::ParamType::Integer:
        if (p.log_scale) {
          auto a = static_cast<std::int64_t>(std::ceil(std::exp(lo) - 1e-9));
          auto b = static_cast<std::int64_t>(std::floor(std::exp(hi) + 1e-9));
          a = std::max(a, static_cast<std::int64_t>(p.lower));
          b = std::min(b, static_cast<std::int64_t>(p.upper));
          if (a > b) return false;
          q = sdk::Parameter::integer(p.name, a, b, true);
        } else {
          q = sdk::Parameter::integer(p.name, static_cast<std::int64_t>(cell.lower[j]),
                                      static_cast<std::int64_t>(cell.upper[j]));
        }
        break;
      case sdk::ParamType::Binary:
        q = sdk::Parameter::integer(p.name, static_cast<std::int64_t>(cell.lower[j]),
                                    static_cast<std::int64_t>(cell.upper[j]));
        break;
      case sdk::ParamType::Categorical: q = sdk::Parameter::categorical(p.name, p.choices); break;
    }
    params.push_back(std::move(q));
  }
  Eigen::VectorXd y = x;
  try {
    const sdk::Space cell_space(std::move(params));
    sdk::SolveOptions options;
    options.time_limit_seconds = settings.projection_time_limit;
    // The squared distance of a small cell is itself about 1e-4 in raw units, so the default
    // absolute gap of 1e-4 would accept any point of the constraint's boundary: the relative
    // gap alone decides, with Gurobi's default absolute gap (MIPGapAbs 1e-10), which the
    // reference code's projection ran with.
    options.absolute_gap = 1e-10;
    // The solver's point lies in the cell and satisfies the constraints: a start that makes
    // the projection's search feasible from its first node (Alkylation's polynomial rows).
    std::vector<Eigen::VectorXd> feasible;
    if (start != nullptr) feasible.push_back(*start);
    // Eq. 11's squared distance to the centre, in raw units or scaled by the cell's widths
    // (projection_distance), and categories restricted to the cell's allowed set x_cat*.
    sdk::ProjectionSpec spec;
    spec.scale_by_range = settings.projection_scaled;
    spec.allowed_categories = cell.allowed;
    if (!sdk::project_onto_constraints(cell_space, constraints, *solver, y, options, feasible,
                                       spec)) {
      return false;
    }
  } catch (const sdk::Error& e) {
    ctx.debug("projection inside the cell failed: {}", e.what());
    return false;
  }
  if (!sdk::satisfies(constraints, y, 1e-6) || leaves_of(gps, y) != leaves) return false;
  x = y;
  return true;
}

}  // namespace

bool decode_cell(sdk::Context& ctx, const sdk::Space& space,
                 const std::vector<const TreeKernelGp*>& gps, const std::vector<int>& leaves,
                 const DecodeSettings& settings, const Eigen::MatrixXd& observed,
                 const std::vector<const sdk::Constraint*>& constraints, Eigen::VectorXd& x) {
  const Cell cell = cell_of(space, gps, leaves);
  if (cell.empty()) return false;
  Eigen::VectorXd centre = cell_centre(space, cell, ctx.rng());
  if (!sdk::satisfies(constraints, centre)) {
    // The solver's point may sit on a threshold (its rows are x <= v on the left side of a
    // split), which is in the neighbouring leaf; moved inside the open bounds, by one float32
    // step, it is a point of the optimal cell, and it usually still satisfies the constraints.
    Eigen::VectorXd inside = x;
    for (Eigen::Index j = 0; j < inside.size(); ++j) {
      inside[j] = std::min(inside[j], cell.closed_upper(j));
    }
    const bool inside_ok = sdk::satisfies(constraints, inside) && leaves_of(gps, inside) == leaves;
    if (!project_in_cell(ctx, space, gps, settings, cell, leaves, constraints, centre,
                         inside_ok ? &inside : nullptr)) {
      if (!inside_ok) {
        ctx.debug(
            "the cell centre violates the known constraints and its projection "
            "failed; proposing the solver's point");
        return false;
      }
      ctx.debug(
          "the cell centre violates the known constraints and its projection "
          "failed; proposing the solver's point, inside the cell");
      centre = inside;
    }
  }
  if (settings.resample_duplicates && is_observed(observed, centre)) {
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for (int k = 0; k < 20; ++k) {
      Eigen::VectorXd y = centre;
      for (std::size_t i = 0; i < space.size(); ++i) {
        const auto j = static_cast<Eigen::Index>(i);
        const double u = unit(ctx.rng());
        if (space[i].type == sdk::ParamType::Categorical) {
          const auto& a = cell.allowed[i];
          if (!a.empty()) y[j] = a[std::min(a.size() - 1, static_cast<std::size_t>(u * a.size()))];
        } else if (integral_coordinate(space[i])) {
          y[j] = std::min(cell.upper[j],
                          std::floor(cell.lower[j] + u * (cell.upper[j] - cell.lower[j] + 1.0)));
        } else {
          y[j] = cell.lower[j] + u * (cell.closed_upper(j) - cell.lower[j]);
        }
      }
      if (!is_observed(observed, y) && sdk::satisfies(constraints, y)) {
        centre = y;
        break;
      }
    }
  }
  x = centre;
  return true;
}

}  // namespace arbo::plugins::tree_gp
