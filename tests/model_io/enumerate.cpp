// SPDX-License-Identifier: MIT
#include "enumerate.hpp"

#include <chrono>
#include <cmath>
#include <limits>
#include <vector>

#include <fmt/format.h>
#include <arbo/sdk/error.hpp>

namespace arbo::test {

using namespace arbo::sdk;

SolveResult enumerate_solve(const Model& model, const SolveOptions& options,
                            const std::function<bool()>& cancelled, std::int64_t max_points) {
  const auto start = std::chrono::steady_clock::now();
  const std::size_t n = model.num_variables();
  const bool maximize = model.objective().sense == ObjectiveSense::Maximize;
  const double worst = maximize ? -kInfinity : kInfinity;

  // Where each variable occurs, to tell rays (objective-only variables) from the rest.
  std::vector<bool> in_rows(n, false);
  for (const auto& r : model.linear_rows()) {
    for (const auto& t : r.terms) in_rows[static_cast<std::size_t>(t.var)] = true;
  }
  for (const auto& r : model.quadratic_rows()) {
    for (const auto& t : r.linear) in_rows[static_cast<std::size_t>(t.var)] = true;
    for (const auto& t : r.quad) {
      in_rows[static_cast<std::size_t>(t.var1)] = in_rows[static_cast<std::size_t>(t.var2)] = true;
    }
  }
  for (const auto& t : model.objective().quad) {
    in_rows[static_cast<std::size_t>(t.var1)] = in_rows[static_cast<std::size_t>(t.var2)] = true;
  }
  std::vector<double> cost(n, 0.0);
  for (const auto& t : model.objective().linear) cost[static_cast<std::size_t>(t.var)] += t.coef;

  bool ray = false;
  std::vector<double> lo(n), hi(n);
  for (std::size_t i = 0; i < n; ++i) {
    const Variable& v = model.variables()[i];
    if (v.type == VarType::Continuous) {
      throw InvalidArgument(fmt::format(
          "enumerate: variable '{}' is continuous; enumerate solves pure integer models", v.name));
    }
    lo[i] = std::ceil(v.lower);
    hi[i] = std::floor(v.upper);
    if (std::isfinite(lo[i]) && std::isfinite(hi[i])) continue;
    if (in_rows[i]) {
      throw InvalidArgument(fmt::format(
          "enumerate: variable '{}' has an infinite bound and appears in a constraint or a "
          "quadratic term",
          v.name));
    }
    // Improving direction of this variable: +1 towards +inf, -1 towards -inf, 0 none.
    const double c = maximize ? cost[i] : -cost[i];
    const int better = c > 0 ? 1 : c < 0 ? -1 : 0;
    if ((better > 0 && !std::isfinite(hi[i])) || (better < 0 && !std::isfinite(lo[i]))) {
      ray = true;
    }
    // Any finite value decides feasibility; the best finite one decides the optimum.
    double value = std::isfinite(lo[i]) ? lo[i] : std::isfinite(hi[i]) ? hi[i] : 0.0;
    if (better > 0 && std::isfinite(hi[i])) value = hi[i];
    if (better < 0 && std::isfinite(lo[i])) value = lo[i];
    lo[i] = hi[i] = value;
  }

  SolveResult result;
  result.objective = worst;
  result.best_bound = maximize ? kInfinity : -kInfinity;
  double points = 1.0;
  bool empty = false;
  for (std::size_t i = 0; i < n; ++i) {
    if (lo[i] > hi[i]) empty = true;
    points *= std::max(1.0, hi[i] - lo[i] + 1.0);
  }
  if (!empty && points > static_cast<double>(max_points)) {
    throw Error(fmt::format("enumerate: {} points exceed max_points = {}", points, max_points));
  }

  const auto finish = [&](SolveStatus status) {
    result.status = status;
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  };
  if (empty) {
    result.best_bound = worst;
    return finish(SolveStatus::Infeasible);
  }
  std::vector<double> x = lo;
  while (true) {
    ++result.nodes;
    const ModelEvaluation e = model.evaluate(x);
    if (e.max_row_violation <= options.feasibility_tolerance &&
        (maximize ? e.objective > result.objective : e.objective < result.objective)) {
      result.objective = e.objective;
      result.x = x;
    }
    std::size_t i = 0;
    while (i < n && x[i] >= hi[i]) x[i] = lo[i], ++i;
    if (i == n) break;
    x[i] += 1.0;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if ((options.node_limit >= 0 && result.nodes >= options.node_limit) ||
        elapsed >= options.time_limit_seconds || cancelled()) {
      return finish(SolveStatus::LimitReached);  // bound stays infinite: nothing is proven
    }
  }
  if (result.x.empty()) {
    result.objective = worst;
    result.best_bound = worst;
    return finish(SolveStatus::Infeasible);
  }
  if (ray) return finish(SolveStatus::Unbounded);  // x is feasible; the bound is infinite
  result.best_bound = result.objective;
  result.gap = 0.0;
  return finish(SolveStatus::Optimal);
}

}  // namespace arbo::test
