// SPDX-License-Identifier: MIT
/// @file
/// @brief Acquisition functions: score candidate points from the bound surrogates.
#pragma once

#include <optional>
#include <vector>

#include <Eigen/Core>

#include "arbo/sdk/component.hpp"
#include "arbo/sdk/dataset.hpp"
#include "arbo/sdk/surrogate.hpp"

namespace arbo::sdk {

/// What an acquisition is bound to in one iteration. Pointers and references stay valid until
/// the next `bind` or the end of the iteration.
struct AcquisitionInputs {
  const Dataset& data;
  const Surrogate* objective = nullptr;       ///< fitted model of y (minimization sense)
  std::vector<const Surrogate*> constraints;  ///< fitted models of C's columns, in order
  std::optional<double> incumbent;            ///< best feasible y so far, if any
};

/// A function of x to be *maximized* by the inner solver.
class ARBO_SDK_API Acquisition : public Component {
 public:
  ~Acquisition() override;

  /// Binds the fitted surrogates for this iteration. Called once per iteration, before any
  /// `value`. May throw `Error` when a required model is missing (e.g. no objective model).
  virtual void bind(const AcquisitionInputs& inputs) = 0;

  /// Acquisition value at encoded point `x` (length d); larger is better. Finite.
  virtual double value(const Eigen::VectorXd& x) const = 0;

  /// Values at each row of `X`. The default calls `value` per row; override for batching.
  virtual void values(const Eigen::MatrixXd& X, Eigen::VectorXd& out) const;
};

}  // namespace arbo::sdk
