// SPDX-License-Identifier: MIT
/// @file
/// @brief Shared pieces of the Mondrian-thesis and c-TPE benchmark problems: boxes, size and
/// category checks, and the base class of problems with black-box constraints.
#pragma once

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include <arbo/sdk/problem.hpp>

namespace arbo::plugins::mondrian {

/// Reals named x1, x2, ... (1-based, as in the thesis) with the given bounds.
sdk::Space real_box(const std::vector<std::pair<double, double>>& bounds);

/// `d` reals x1 .. xd, all in [lo, hi].
sdk::Space real_cube(int d, double lo, double hi);

/// Throws `sdk::InvalidArgument` naming `id` unless `x` has `d` coordinates.
void require_size(const Eigen::VectorXd& x, Eigen::Index d, const char* id);

/// The index of the categorical coordinate `x[i]` with `k` choices; throws
/// `sdk::InvalidArgument` naming `id` if it is not an integer in [0, k-1].
int category(const Eigen::VectorXd& x, Eigen::Index i, int k, const char* id);

/// An Eigen vector from a list, for optimizers.
Eigen::VectorXd vec(std::initializer_list<double> values);

/// No parameters.
const sdk::ParamSpecList& no_params();

/// "Braun (2022), ... thesis, <where>; definitions as corrected in docs/methods/...", plus
/// `note` when non-empty: the `info().source` of every thesis problem.
std::string thesis_source(const char* where, const char* note = "");

/// A problem whose constraints are black boxes (thesis §2: the optimizer only sees values).
/// Holds the space and the constraint names; `prepare` checks a point and sizes the output.
class BlackBoxProblem : public sdk::Problem {
 public:
  const sdk::Space& space() const override { return space_; }
  std::vector<std::string> constraint_names() const override { return names_; }

 protected:
  BlackBoxProblem(sdk::Space space, std::vector<std::string> constraint_names)
      : space_(std::move(space)), names_(std::move(constraint_names)) {}

  /// Checks the length of `x` and resizes `out.constraints` to the number of constraints.
  void prepare(const Eigen::VectorXd& x, sdk::Evaluation& out, const char* id) const;

 private:
  sdk::Space space_;
  std::vector<std::string> names_;
};

}  // namespace arbo::plugins::mondrian
