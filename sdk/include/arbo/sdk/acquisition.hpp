// SPDX-License-Identifier: MIT
/// @file
/// @brief Acquisition functions: score candidate points from the bound surrogates.
///
/// In each model-based iteration the kernel fits one surrogate per metric (the objective,
/// then every black-box constraint), calls `Acquisition::bind` once with them, and hands the
/// acquisition to the inner solver, which calls `value`/`values` (black-box solvers) or asks
/// for a formulation (model-based solvers, capabilities/acquisition.hpp) to find its maximum.
#pragma once

#include <optional>
#include <vector>

#include <Eigen/Core>

#include "arbo/sdk/component.hpp"
#include "arbo/sdk/dataset.hpp"
#include "arbo/sdk/surrogate.hpp"

namespace arbo::sdk {

/// What an acquisition is bound to in one iteration. Pointers and references stay valid until
/// the next `bind` or the end of the iteration, whichever comes first.
struct AcquisitionInputs {
  /// The observations the surrogates were fitted to (conventions of dataset.hpp).
  const Dataset& data;
  /// Fitted model of y (minimization sense), or nullptr when the pipeline has no surrogate.
  const Surrogate* objective = nullptr;
  /// Fitted models of C's columns, in the order of `data.constraint_names`; one per
  /// black-box constraint. A surrogate of constraint j predicts C(:, j), feasible where <= 0.
  std::vector<const Surrogate*> constraints;
  /// Best feasible y so far (`data.incumbent()`, minimization sense); empty while no
  /// observation is feasible, which improvement-based acquisitions must handle.
  std::optional<double> incumbent;
};

/// A function of x to be *maximized* by the inner solver.
///
/// Sense: surrogates model y in minimization sense, so an acquisition built on a mean must
/// negate it (a lower confidence bound mean - beta*sd becomes -(mean - beta*sd)).
/// Determinism: `value` is a pure function of x between two `bind` calls (it is const, and the
/// solvers' results depend on it); draw any randomness in `bind`, from `Context::rng()`.
class ARBO_SDK_API Acquisition : public Component {
 public:
  ~Acquisition() override;

  /// Binds the fitted surrogates for this iteration. Called once per iteration, before any
  /// `value`, after `Context::rng()` was reseeded for the iteration. May precompute (the
  /// incumbent, a density ratio's normalizer). May throw `Error` when a required model is
  /// missing (no objective model, too few observations), which stops the study with a
  /// message naming the acquisition.
  virtual void bind(const AcquisitionInputs& inputs) = 0;

  /// Acquisition value at encoded point `x` (length d; black-box solvers may pass points that
  /// are not snapped); larger is better. Finite: solvers compare values, and NaN or infinity
  /// breaks their ordering.
  /// Precondition: `bind` was called. Cost: one surrogate prediction per bound model.
  virtual double value(const Eigen::VectorXd& x) const = 0;

  /// Values at each row of `X` (m x d) into `out` (resized to m). The default calls `value`
  /// per row (O(m) calls); override it when the surrogates predict faster in batches.
  virtual void values(const Eigen::MatrixXd& X, Eigen::VectorXd& out) const;
};

}  // namespace arbo::sdk
