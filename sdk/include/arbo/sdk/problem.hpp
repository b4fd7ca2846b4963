// SPDX-License-Identifier: MIT
/// @file
/// @brief Built-in problems: an objective with black-box constraints, its space and optimum.
///
/// A problem component is evaluated in-process instead of an external command (`[problem]
/// plugin = "..."` in a configuration): benchmarks, demos and tests. It defines the study's
/// space, and the kernel treats its objective and constraints as black boxes exactly as it
/// treats a command's output. Known constraints of the problem's source are declared through
/// the `HasKnownConstraints` capability (capabilities/problem.hpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "arbo/sdk/component.hpp"

namespace arbo::sdk {

/// Facts about a problem, for tests, regret curves and `arbo problems`.
struct ProblemInfo {
  /// Where the definition comes from: the paper (section, equation) or benchmark suite, so a
  /// reader can check the formula, e.g. "BARK (Boyne et al.), Table 6 PestControl ...".
  /// Never empty (the conformance kit checks it).
  std::string source;
  /// f* in the problem's own direction and units (not negated), if known.
  std::optional<double> optimum;
  /// f* is the best known value, not a proven optimum.
  bool optimum_is_best_known = false;
  /// Encoded global optimizers, if known. The conformance kit evaluates each one and checks
  /// that it reaches `optimum` and satisfies the constraints.
  std::vector<Eigen::VectorXd> optimizers;
  /// Direction of the objective: the kernel negates y for a maximized problem (dataset.hpp).
  bool maximize = false;
};

/// Result of one evaluation. `constraints` has one entry per `constraint_names()`; a point is
/// feasible iff every entry is <= 0.
struct Evaluation {
  double objective = 0.0;       ///< in the problem's own direction and units
  Eigen::VectorXd constraints;  ///< black-box constraint values, feasible iff <= 0
};

/// A benchmark or demo objective evaluated in-process.
///
/// The problem is created with an empty space in `CreateArgs` (it defines the space) and
/// then asked, once, for `space()`, `constraint_names()` and `info()`; the kernel calls
/// `evaluate` once per observation, from one thread.
class ARBO_SDK_API Problem : public Component {
 public:
  ~Problem() override;
  /// The problem's space; fixed for the component's lifetime (the reference stays valid).
  virtual const Space& space() const = 0;
  /// Names of the black-box constraints (feasible iff value <= 0), non-empty and unique, in
  /// the order of `Evaluation::constraints`. Default: none.
  virtual std::vector<std::string> constraint_names() const;
  /// Facts about the problem (see `ProblemInfo`); cheap, may be called more than once.
  virtual ProblemInfo info() const = 0;
  /// Evaluates at a snapped encoded point. Fills `out` (resizing `out.constraints`; the kernel
  /// reuses one `Evaluation`, so allocation happens once). Must be deterministic unless the
  /// problem is declared noisy by its parameters, in which case the noise is drawn from
  /// `Context::rng()`, which the kernel reseeds from (study seed, observation id) before each
  /// call so a re-run gives the same value. A NaN or infinite value, or an exception, makes
  /// the observation *failed* (recorded, not fatal: the study goes on). The kernel's own
  /// `[problem] noise` option adds Gaussian noise after this call; problems need not.
  virtual void evaluate(const Eigen::VectorXd& x, Evaluation& out) = 0;
};

}  // namespace arbo::sdk
