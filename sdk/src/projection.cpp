// SPDX-License-Identifier: MIT
#include "arbo/sdk/projection.hpp"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "arbo/sdk/error.hpp"

namespace arbo::sdk {

SolveOptions default_projection_options() {
  SolveOptions options;
  options.time_limit_seconds = kDefaultProjectionSeconds;
  return options;
}

bool can_formulate(const std::vector<const Constraint*>& constraints) {
  for (const Constraint* c : constraints) {
    if (dynamic_cast<const FormulatesConstraint*>(c) == nullptr) return false;
  }
  return true;
}

bool project_onto_constraints(const Space& space, const std::vector<const Constraint*>& constraints,
                              ModelSolver& solver, Eigen::VectorXd& x, const SolveOptions& options,
                              const std::vector<Eigen::VectorXd>& feasible) {
  return project_onto_constraints(space, constraints, solver, x, options, feasible,
                                  ProjectionSpec{});
}

bool project_onto_constraints(const Space& space, const std::vector<const Constraint*>& constraints,
                              ModelSolver& solver, Eigen::VectorXd& x, const SolveOptions& options,
                              const std::vector<Eigen::VectorXd>& feasible,
                              const ProjectionSpec& spec) {
  const auto& allowed = spec.allowed_categories;
  if (!allowed.empty() && allowed.size() != space.size()) {
    throw InvalidArgument(
        fmt::format("projection: {} lists of allowed categories for {} coordinates", allowed.size(),
                    space.size()));
  }
  if (!can_formulate(constraints)) return false;
  Model model;
  const PointVariables pv = add_point_variables(model, space);
  for (const Constraint* c : constraints) {
    dynamic_cast<const FormulatesConstraint*>(c)->formulate(model, pv);
  }
  Objective obj;
  for (std::size_t i = 0; i < space.size(); ++i) {
    const auto ii = static_cast<Eigen::Index>(i);
    const int v = pv.x_vars[i];
    const double x0 = x[ii];
    const double range = space.upper()[ii] - space.lower()[ii];
    const ParamType t = space[i].type;
    const bool restricted = t == ParamType::Categorical && !allowed.empty() && !allowed[i].empty();
    if (restricted) {
      // v = sum_a a * b_a over the allowed codes a, one of them chosen; the Hamming term is
      // 1 - b_{x0}, or 1 when x0 itself is excluded.
      std::vector<LinearTerm> one, code{{v, 1.0}};
      for (int a : allowed[i]) {
        if (a < 0 || static_cast<std::size_t>(a) >= space[i].choices.size()) {
          throw InvalidArgument(fmt::format("projection: category code {} of '{}' outside 0..{}", a,
                                            space[i].name, space[i].choices.size() - 1));
        }
        const int b =
            model.add_variable(fmt::format("is_{}_{}", space[i].name, a), VarType::Binary, 0, 1);
        one.push_back({b, 1.0});
        code.push_back({b, -static_cast<double>(a)});
        if (static_cast<double>(a) == std::round(x0)) {
          obj.linear.push_back({b, -1.0});
        }
      }
      model.add_linear_row(
          {fmt::format("one_category_{}", space[i].name), std::move(one), RowSense::Equal, 1.0});
      model.add_linear_row(
          {fmt::format("category_{}", space[i].name), std::move(code), RowSense::Equal, 0.0});
      obj.constant += 1.0;
      continue;
    }
    if (range <= 0) continue;
    if (t == ParamType::Real || t == ParamType::Integer) {
      // ((v - x0) / range)^2 = v^2/r^2 - 2 x0 v / r^2 + x0^2 / r^2, with r = 1 unscaled.
      const double w = spec.scale_by_range ? 1.0 / (range * range) : 1.0;
      obj.quad.push_back({v, v, w});
      obj.linear.push_back({v, -2.0 * x0 * w});
      obj.constant += x0 * x0 * w;
    } else if (t == ParamType::Binary) {
      // |v - x0| for x0 in {0, 1} is linear in v.
      if (x0 > 0.5) {
        obj.linear.push_back({v, -1.0});
        obj.constant += 1.0;
      } else {
        obj.linear.push_back({v, 1.0});
      }
    } else {
      // Categorical index: d = 1 iff the choice changes, via |v - x0| <= range * d.
      const int d =
          model.add_variable(fmt::format("changed_{}", space[i].name), VarType::Binary, 0, 1);
      model.add_linear_row({fmt::format("hamming_up_{}", space[i].name),
                            {{v, 1.0}, {d, -range}},
                            RowSense::LessEqual,
                            x0});
      model.add_linear_row({fmt::format("hamming_down_{}", space[i].name),
                            {{v, -1.0}, {d, -range}},
                            RowSense::LessEqual,
                            -x0});
      obj.linear.push_back({d, 1.0});
    }
  }
  model.set_objective(std::move(obj));
  SolveOptions with_starts = options;
  for (const Eigen::VectorXd& f : feasible) with_starts.starts.push_back(point_start(model, pv, f));
  const SolveResult r = solver.solve(model, with_starts);
  if ((r.status != SolveStatus::Optimal && r.status != SolveStatus::LimitReached) || r.x.empty()) {
    return false;
  }
  Eigen::VectorXd y(x.size());
  for (std::size_t i = 0; i < space.size(); ++i) {
    y[static_cast<Eigen::Index>(i)] = r.x[static_cast<std::size_t>(pv.x_vars[i])];
  }
  space.snap(y);
  x = y;
  return true;
}

}  // namespace arbo::sdk
