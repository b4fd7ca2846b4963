// SPDX-License-Identifier: MIT
/// @file
/// @brief The base of every benchmark problem of the stock suites (builtin, leafgp_suite,
/// mondrian_suite, bark_suite, nnmilp_suite): the space, the black-box constraint names, the
/// known constraints, the size check of a point and the default (empty) parameter list live
/// here once, so that a problem class holds only its definition (`info`, `evaluate`,
/// `known_values`) and its own parameters.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include <arbo/sdk/capabilities/problem.hpp>
#include <arbo/sdk/params.hpp>
#include <arbo/sdk/problem.hpp>

namespace arbo::plugins::problems_common {

/// Reals named x{first}, x{first + 1}, ... with the given bounds (lower, upper). `first` is the
/// index of the source's first variable: 0 for the LEAF-GP problems (0-based, as in that
/// paper's tables), 1 for the thesis's and Hartmann's (1-based).
sdk::Space real_box(const std::vector<std::pair<double, double>>& bounds, int first);

/// `d` reals x{first} .. x{first + d - 1}, all in [lo, hi].
sdk::Space real_cube(int d, double lo, double hi, int first);

/// An Eigen vector from a list (optimizers and hand-computed points).
Eigen::VectorXd vec(std::initializer_list<double> values);

/// Throws `sdk::InvalidArgument` "problem/ID: METHOD() needs D coordinates, got N" unless `x`
/// has `d` coordinates.
void require_size(const Eigen::VectorXd& x, Eigen::Index d, std::string_view id,
                  std::string_view method);

/// A benchmark problem: holds its component id (for messages), its space and the names of its
/// black-box constraints (none by default; feasible iff every value <= 0). A derived class
/// implements `info` and `evaluate`, starting `evaluate` with `prepare`. The static `params()`
/// (no parameters) serves every problem that declares none; a problem with parameters declares
/// its own, which hides this one.
class BenchmarkProblem : public sdk::Problem {
 public:
  /// No parameters.
  static const sdk::ParamSpecList& params();

  const sdk::Space& space() const override { return space_; }
  std::vector<std::string> constraint_names() const override { return constraint_names_; }

 protected:
  /// @param id  the component name (problem/ID in messages).
  BenchmarkProblem(std::string id, sdk::Space space,
                   std::vector<std::string> constraint_names = {});

  const std::string& id() const { return id_; }

  /// Checks that `x` has one coordinate per parameter (throws `sdk::InvalidArgument` naming the
  /// problem otherwise) and sizes `out.constraints` to the number of black-box constraints.
  void prepare(const Eigen::VectorXd& x, sdk::Evaluation& out) const;

 private:
  std::string id_;
  sdk::Space space_;
  std::vector<std::string> constraint_names_;
};

/// A benchmark problem that declares known constraints (closed-form, checked by the kernel before
/// evaluation and formulated by the solvers that can): `known_constraints()` returns the specs
/// given at construction; the derived class implements `known_values`, starting it with
/// `prepare_known`. Kept apart from `BenchmarkProblem` because the kernel detects the capability
/// by its interface: an unconstrained problem must not offer it.
class KnownConstrainedProblem : public BenchmarkProblem, public sdk::HasKnownConstraints {
 public:
  std::vector<sdk::KnownConstraintSpec> known_constraints() const override { return known_; }

 protected:
  KnownConstrainedProblem(std::string id, sdk::Space space,
                          std::vector<sdk::KnownConstraintSpec> known,
                          std::vector<std::string> constraint_names = {});

  /// Checks the size of `x` as `prepare` does and sizes `out` to the number of known
  /// constraints.
  void prepare_known(const Eigen::VectorXd& x, Eigen::VectorXd& out) const;

 private:
  std::vector<sdk::KnownConstraintSpec> known_;
};

}  // namespace arbo::plugins::problems_common
