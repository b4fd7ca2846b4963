// SPDX-License-Identifier: MIT
/// @file
/// @brief Initial designs: random, Latin hypercube and (randomly shifted) Sobol points.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include <Eigen/Core>

#include "arbo/kernel/pipeline.hpp"
#include "arbo/sdk/balance.hpp"
#include "arbo/sdk/space.hpp"

namespace arbo::kernel {

/// Generates `n` snapped points of `space` that satisfy `feasible` (the known constraints).
///
/// The design is a function of (method, n, seed, balanced) only, so a resumed study uses the
/// same points. Every point keeps the balance equalities `balanced` (the known constraints'
/// `sdk::detect_balance_pairs`): their coordinates come from `sdk::balance_from_unit` on the
/// same unit point, so a random design is uniform over the points that keep them, where
/// rejection would find almost none (Ising's fine balances keep 8e-7 of the points). Points that
/// violate known constraints are dropped and the design is topped up with further points of the
/// same sequence (Sobol) or uniform points (random, LHS), up to `max_draws` in total; fewer than
/// `n` points are returned if that is not enough.
std::vector<Eigen::VectorXd> make_design(
    const sdk::Space& space, DesignMethod method, std::size_t n, std::uint64_t seed,
    const std::function<bool(const Eigen::VectorXd&)>& feasible,
    const std::vector<sdk::BalancePair>& balanced = {}, std::size_t max_draws = 100000);

}  // namespace arbo::kernel
