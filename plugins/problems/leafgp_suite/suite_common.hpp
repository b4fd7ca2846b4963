// SPDX-License-Identifier: MIT
/// @file
/// @brief What the LEAF-GP benchmark problems share beyond the common base
/// (plugins/problems/common): the `variant` parameter of the problems whose reference code
/// deviates from the cited definition.
///
/// The problems whose constraints are all known (closed-form, polynomial after clearing
/// denominators) derive from `KnownConstrainedProblem`. Every expression string reads
/// `lhs OP rhs` and `known_values` returns exactly lhs - rhs for `<=` and `==`, rhs - lhs for
/// `>=`, term by term as written, so that the string and the code cannot drift apart (tests parse
/// the strings and compare).
#pragma once

#include <arbo/sdk/params.hpp>

#include "benchmark_problem.hpp"

namespace arbo::plugins::leafgp {

using problems_common::BenchmarkProblem;
using problems_common::KnownConstrainedProblem;
using problems_common::real_box;
using problems_common::real_cube;
using problems_common::vec;

/// The `variant` parameter of the two problems whose LEAF-GP reference code deviates from the
/// cited textbook definition: "standard" (the textbook, which the paper cites) or
/// "leafgp_code" (tree_kernel_gp commit 7d865d49, i.e. what the paper's runs evaluated).
const sdk::ParamSpecList& variant_params();

/// True when `params` selects the "leafgp_code" variant.
bool uses_leafgp_code(const sdk::ParamSet& params);

}  // namespace arbo::plugins::leafgp
