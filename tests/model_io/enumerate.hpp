// SPDX-License-Identifier: MIT
// Exact solution of small pure-integer models by enumerating every integer point: the known
// optimum for the GLPK cross-checks and the solver behind the `enumerate` test plugin.
#pragma once

#include <cstdint>
#include <functional>

#include <arbo/sdk/model.hpp>

namespace arbo::test {

/// Solves `model` by enumeration. Every variable must be Integer or Binary. A variable with an
/// infinite bound is allowed only when it appears in no row and only linearly in the
/// objective: then it is fixed at its best finite value, or the model is unbounded when the
/// objective improves towards the infinite side (and the rest is feasible).
/// Stops with LimitReached on `options.node_limit` points, the time limit or `cancelled()`.
/// @throws sdk::InvalidArgument for a model outside that class,
///         sdk::Error when there are more than `max_points` points.
sdk::SolveResult enumerate_solve(const sdk::Model& model, const sdk::SolveOptions& options,
                                 const std::function<bool()>& cancelled, std::int64_t max_points);

}  // namespace arbo::test
