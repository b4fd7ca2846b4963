// SPDX-License-Identifier: MIT
/// @file
/// @brief Shared pieces of the LEAF-GP benchmark problems: boxes, size checks, and the base of
/// the problems whose constraints are known.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <arbo/sdk/capabilities/problem.hpp>
#include <arbo/sdk/problem.hpp>

namespace arbo::plugins::leafgp {

/// Reals named x0, x1, ... (0-based, as in the paper's tables) with the given bounds.
sdk::Space real_box(const std::vector<std::pair<double, double>>& bounds);

/// `d` reals x0 .. x{d-1}, all in [lo, hi].
sdk::Space real_cube(int d, double lo, double hi);

/// Throws `sdk::InvalidArgument` naming `id` unless `x` has `d` coordinates.
void require_size(const Eigen::VectorXd& x, Eigen::Index d, const char* id);

/// No parameters.
const sdk::ParamSpecList& no_params();

/// The `variant` parameter of the two problems whose LEAF-GP reference code deviates from the
/// cited textbook definition: "standard" (the textbook, which the paper cites) or
/// "leafgp_code" (tree_kernel_gp commit 7d865d49, i.e. what the paper's runs evaluated).
const sdk::ParamSpecList& variant_params();

/// True when `params` selects the "leafgp_code" variant.
bool uses_leafgp_code(const sdk::ParamSet& params);

/// A problem whose constraints are all known (closed-form, polynomial after clearing
/// denominators): no black-box constraints, `known_values` gives g_k with g_k <= 0 feasible.
///
/// Every expression string reads `lhs OP rhs` and `known_values` returns exactly
/// lhs - rhs for `<=` and `==`, rhs - lhs for `>=`, term by term as written, so that the string
/// and the code cannot drift apart (tests parse the strings and compare).
class KnownConstrainedProblem : public sdk::Problem, public sdk::HasKnownConstraints {
 public:
  const sdk::Space& space() const override { return space_; }
  std::vector<sdk::KnownConstraintSpec> known_constraints() const override { return specs_; }

 protected:
  KnownConstrainedProblem(sdk::Space space, std::vector<sdk::KnownConstraintSpec> specs)
      : space_(std::move(space)), specs_(std::move(specs)) {}

  /// Checks the size of `x` and sizes `out` to the number of constraints.
  void prepare(const Eigen::VectorXd& x, Eigen::VectorXd& out, const char* id) const;

 private:
  sdk::Space space_;
  std::vector<sdk::KnownConstraintSpec> specs_;
};

}  // namespace arbo::plugins::leafgp
