// SPDX-License-Identifier: MIT
/// @file
/// @brief Optional capabilities of an acquisition: formulating itself as a model's objective,
/// proposing its own candidates.
#pragma once

#include <cstddef>
#include <random>

#include <Eigen/Core>

#include "arbo/sdk/export.hpp"
#include "arbo/sdk/model.hpp"

namespace arbo::sdk {

/// Acquisition that can write itself as the objective of a model, using its surrogates'
/// formulations (`FormulatesSurrogate`, capabilities/surrogate.hpp). Model-based inner
/// solvers require it: the kernel refuses a pipeline whose acquisition lacks it at start-up,
/// and `glpk_bnb` throws from `maximize` when it meets one anyway.
class ARBO_SDK_API FormulatesAcquisition {
 public:
  virtual ~FormulatesAcquisition();
  /// Adds blocks and sets the objective of `model` so that maximizing it maximizes the
  /// acquisition over `point` (the objective's sense is Maximize, and its value at a point
  /// equals `value(x)` there, up to the solver's tolerances). Called once per iteration after
  /// `bind`, on a model that already holds the point variables; the solver adds the known
  /// constraints' rows afterwards. Throws `Error` naming the missing capability when a bound
  /// surrogate cannot formulate what the acquisition needs (e.g. no `stddev_var` for a
  /// confidence bound with kappa > 0), or when called before `bind`.
  virtual void formulate(Model& model, const PointVariables& point) const = 0;
};

/// Acquisition that takes the black-box constraint models it is bound to into account
/// (`AcquisitionInputs::constraints`): cwei's probability of feasibility, lcb's optimistic
/// constraint rows, c-TPE's feasibility densities. An acquisition without it would optimize as
/// if the problem had no black-box constraints, so the kernel refuses a pipeline with
/// black-box constraints whose acquisition lacks it (`arbo check` and `arbo run`, exit code 3,
/// naming this capability). A marker: no functions.
class ARBO_SDK_API RespectsBlackBoxConstraints {
 public:
  virtual ~RespectsBlackBoxConstraints();
};

/// Acquisition that proposes its own candidates (TPE samples from l); candidate-pool inner
/// solvers (`inner_solver/candidate_pool`) score these instead of uniform samples, keeping
/// those that satisfy the known constraints.
class ARBO_SDK_API ProposesCandidates {
 public:
  virtual ~ProposesCandidates();
  /// Writes `n` encoded candidates into the rows of `out` (resized to n x d), drawn from `rng`
  /// only (the solver's stream). Candidates need not be snapped or feasible; the solver snaps
  /// and filters them. Precondition: `bind` was called.
  virtual void candidates(std::size_t n, std::mt19937_64& rng, Eigen::MatrixXd& out) const = 0;
};

}  // namespace arbo::sdk
