// SPDX-License-Identifier: MIT
/// @file
/// @brief Built-in problems: an objective with black-box constraints, its space and optimum.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "arbo/sdk/component.hpp"

namespace arbo::sdk {

/// Facts about a problem, for tests, regret curves and `arbo problems`.
struct ProblemInfo {
  std::string source;                       ///< where the definition comes from
  std::optional<double> optimum;            ///< f* in the problem's own direction, if known
  bool optimum_is_best_known = false;       ///< f* is the best known value, not proven
  std::vector<Eigen::VectorXd> optimizers;  ///< encoded global optimizers, if known
  bool maximize = false;                    ///< direction of the objective
};

/// Result of one evaluation. `constraints` has one entry per `constraint_names()`; a point is
/// feasible iff every entry is <= 0.
struct Evaluation {
  double objective = 0.0;
  Eigen::VectorXd constraints;
};

/// A benchmark or demo objective evaluated in-process.
class ARBO_SDK_API Problem : public Component {
 public:
  ~Problem() override;
  /// The problem's space; fixed for the component's lifetime.
  virtual const Space& space() const = 0;
  /// Names of the black-box constraints (feasible iff value <= 0). Default: none.
  virtual std::vector<std::string> constraint_names() const;
  virtual ProblemInfo info() const = 0;
  /// Evaluates at a snapped encoded point. Fills `out` (resizing `out.constraints`). Must be
  /// deterministic unless the problem is declared noisy by its parameters, in which case the
  /// noise is drawn from `Context::rng()`. May return NaN, which the kernel records as failed.
  virtual void evaluate(const Eigen::VectorXd& x, Evaluation& out) = 0;
};

}  // namespace arbo::sdk
