// SPDX-License-Identifier: MIT
/// @file
/// @brief Subset-balance equalities among the known constraints, sum_{i in A} x_i =
/// sum_{i in B} x_i over binary coordinates (the fine-balance constraints of Papalexopoulos et
/// al. 2022, Sec. 5.2), and exact uniform sampling of the points that keep them.
///
/// Such equalities leave a tiny feasible set (ten pairs of five items keep about 8e-7 of all
/// points), so rejection sampling cannot find a feasible point. The paper draws its initial
/// points "uniformly over the feasible set" with a custom exact sampler; `balance_from_unit` is
/// that sampler, written as a map of the unit draws every sampler of arbo already makes, so a
/// sampler that uses it consumes the same random numbers as one that does not.
#pragma once

#include <cstddef>
#include <vector>

#include <Eigen/Core>

#include "arbo/sdk/constraint.hpp"
#include "arbo/sdk/export.hpp"
#include "arbo/sdk/space.hpp"

namespace arbo::sdk {

/// One balance sum_{i in a} x_i = sum_{i in b} x_i: coordinates of a space, every one Binary,
/// `a` and `b` non-empty, disjoint and in increasing order.
struct BalancePair {
  std::vector<Eigen::Index> a, b;
};

/// The balance pairs found among some constraints, and which constraints they account for.
struct BalanceStructure {
  /// Pairwise disjoint pairs (no coordinate is in two pairs).
  std::vector<BalancePair> pairs;
  /// Per coordinate of the space: 1 when it belongs to a pair.
  std::vector<char> in_pair;
  /// Per constraint: 1 when every row it formulates is one of `pairs` (its violation is then 0
  /// at every point that keeps the pairs).
  std::vector<char> captured;
  /// Number of constraints with `captured` set.
  std::size_t captured_count = 0;
};

/// Formulates every constraint that can (`FormulatesConstraint`) into a scratch model over
/// `add_point_variables(space)` and keeps its linear equality rows of the form
/// c * (sum_{i in A} x_i - sum_{i in B} x_i) = 0: one coefficient magnitude c > 0 (constraints
/// may divide their rows by a scale), A and B non-empty and disjoint, every coordinate Binary
/// and unconditional (an inactive coordinate keeps its default), the right-hand side 0 (within
/// 1e-9 c). Rows that share a coordinate with another such row are
/// dropped (the pairs are sampled and mutated independently), and so is their constraint's
/// `captured` flag. A constraint whose `formulate` throws `Error` counts as not formulating.
/// Never throws but for allocation failure.
/// Complexity: one formulation per constraint, O(model size); meant once per solve or study,
/// not per point.
ARBO_SDK_API BalanceStructure
detect_balance_pairs(const Space& space, const std::vector<const Constraint*>& constraints);

/// Overwrites the coordinates of every pair in `x` with a balanced 0/1 assignment chosen by
/// the unit draws `u` at the same coordinates; the other coordinates of `x` are left alone.
///
/// When the draws of a pair's n = |a| + |b| coordinates are independent and uniform on [0, 1),
/// the assignment is exactly uniform over the pair's balanced assignments: the |b| coordinates
/// of a u b with the smallest draws (ties to the lower index) form a uniformly random |b|-subset
/// T, and "x_i = 1 for i in a n T and for i in b \ T" is a bijection between the |b|-subsets of
/// a u b and the balanced assignments (|a n T| = |b| - |b n T| = |b \ T|; there are
/// C(n, |b|) = sum_c C(|a|, c) C(|b|, c) of both). Pairs being disjoint, a point drawn with
/// `Space::from_unit` and then passed here is uniform over the points that keep every pair; a
/// rejection test against the remaining constraints then keeps it uniform over the feasible set.
/// Preconditions: `u` and `x` have the space's dimension, the pairs index into it.
/// Complexity: O(sum over pairs of n^2) comparisons (n = 10 on Ising), no allocation.
ARBO_SDK_API void balance_from_unit(const std::vector<BalancePair>& pairs,
                                    const Eigen::Ref<const Eigen::VectorXd>& u,
                                    Eigen::Ref<Eigen::VectorXd> x);

}  // namespace arbo::sdk
