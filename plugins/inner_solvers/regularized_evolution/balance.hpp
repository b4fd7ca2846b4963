// SPDX-License-Identifier: MIT
/// @file
/// @brief Detection of subset-balance equalities among the known constraints, the structure
/// ConEvo's feasible mutation keeps (Papalexopoulos et al. 2022, Sec. 4.3 and App. C.6: the
/// fine-balance constraints sum_{i in S_2j-1} x_i = sum_{i in S_2j} x_i over binary items).
#pragma once

#include <vector>

#include <arbo/sdk/constraint.hpp>
#include <arbo/sdk/space.hpp>

#include "evolution.hpp"

namespace arbo::plugins::regevo {

/// The balance pairs found, and which constraints they account for entirely.
struct BalanceStructure {
  std::vector<BalancePair> pairs;
  /// Per coordinate: 1 when it belongs to a pair (ConEvo's mutator moves it, token mutation
  /// leaves it alone).
  std::vector<char> in_pair;
  /// Per constraint: 1 when every row it formulates is one of `pairs` (its violation is then 0
  /// at every child of a feasible parent, by construction).
  std::vector<char> captured;
  /// Number of constraints with `captured` set.
  std::size_t captured_count = 0;
};

/// Formulates every known constraint that can (`sdk::FormulatesConstraint`) into a scratch
/// model over `sdk::add_point_variables(space)` and keeps the linear equality rows of the form
/// c * (sum_{i in A} x_i - sum_{i in B} x_i) = 0: one coefficient magnitude c > 0 (constraints
/// divide their rows by a scale), A and B non-empty and disjoint, every coordinate Binary, the
/// right-hand side 0 (within 1e-9 c). Rows that share a coordinate with another such row are
/// dropped (ConEvo mutates pairs independently), and so is their constraint's `captured` flag. A
/// constraint whose `formulate` throws `sdk::Error` counts as not formulating.
/// Cost: one formulation per constraint, O(model size); meant once per `maximize` call.
BalanceStructure detect_balance_pairs(const sdk::Space& space,
                                      const std::vector<const sdk::Constraint*>& constraints);

}  // namespace arbo::plugins::regevo
