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
/// formulations. Requires every bound surrogate to be `FormulatesSurrogate`.
class ARBO_SDK_API FormulatesAcquisition {
 public:
  virtual ~FormulatesAcquisition();
  /// Adds blocks and sets the objective of `model` so that maximizing it maximizes the
  /// acquisition over `point`. Throws `Error` naming the missing capability otherwise.
  virtual void formulate(Model& model, const PointVariables& point) const = 0;
};

/// Acquisition that proposes its own candidates (TPE samples from l); candidate-pool inner
/// solvers score these instead of uniform samples.
class ARBO_SDK_API ProposesCandidates {
 public:
  virtual ~ProposesCandidates();
  /// Writes `n` encoded candidates into the rows of `out` (n x d).
  virtual void candidates(std::size_t n, std::mt19937_64& rng, Eigen::MatrixXd& out) const = 0;
};

}  // namespace arbo::sdk
