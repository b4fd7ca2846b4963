// SPDX-License-Identifier: MIT
/// @file
/// @brief What the Mondrian-thesis and c-TPE benchmark problems share beyond the common base
/// (plugins/problems/common): category checks and the thesis's source text. Their constraints
/// are black boxes (thesis §2: the optimizer only sees values), named in the base's constructor.
#pragma once

#include <string>
#include <string_view>

#include <Eigen/Core>

#include "benchmark_problem.hpp"

namespace arbo::plugins::mondrian {

using problems_common::BenchmarkProblem;
using problems_common::real_box;
using problems_common::real_cube;
using problems_common::vec;

/// The index of the categorical coordinate `x[i]` with `k` choices; throws
/// `sdk::InvalidArgument` naming `id` if it is not an integer in [0, k-1].
int category(const Eigen::VectorXd& x, Eigen::Index i, int k, std::string_view id);

/// "Braun (2022), ... thesis, <where>; definitions as corrected in docs/methods/...", plus
/// `note` when non-empty: the `info().source` of every thesis problem.
std::string thesis_source(const char* where, const char* note = "");

}  // namespace arbo::plugins::mondrian
