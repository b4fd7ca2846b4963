// SPDX-License-Identifier: MIT
/// @file
/// @brief inner_solver/sampling: the thesis's "Sampling(20k)" optimizer, which is
/// inner_solver/random's algorithm with other defaults.
#pragma once

#include "random_search.hpp"

namespace arbo::plugins {

/// inner_solver/random (RandomSearch, from plugins/inner_solvers/common, which the random
/// library registers too) with the Mondrian-forest thesis's default of 20,000 samples: the best of
/// N uniform points satisfying the known constraints, projections for tiny feasible sets, the first
/// feasible point without an acquisition. Kept beside nelder_mead, the thesis's other optimizer, so
/// that the random library keeps its one component.
class Sampling final : public RandomSearch {
 public:
  using RandomSearch::RandomSearch;
  static const sdk::ParamSpecList& params();
};

}  // namespace arbo::plugins
