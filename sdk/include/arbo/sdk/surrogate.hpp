// SPDX-License-Identifier: MIT
/// @file
/// @brief Surrogate models: one instance per metric (objective, each black-box constraint).
#pragma once

#include <Eigen/Core>

#include "arbo/sdk/component.hpp"
#include "arbo/sdk/dataset.hpp"

namespace arbo::sdk {

/// A probabilistic model of one metric over the encoded space.
///
/// Life cycle: the kernel creates one instance per metric when the study starts, then in every
/// model-based iteration calls `fit` once and the acquisition calls `predict` many times.
class ARBO_SDK_API Surrogate : public Component {
 public:
  ~Surrogate() override;

  /// Fits the model to rows of `data.X` against `data.target(metric)`.
  /// Preconditions: `data.size() >= 1`; `data.dim()` equals the space's size.
  /// Complexity: the method's (GP: O(n^3)). May throw `Error` for invalid data.
  virtual void fit(const Dataset& data, const Metric& metric) = 0;

  /// Predictive mean and variance (>= 0, same units as the target squared) at each row of `X`
  /// (m x d encoded points). `mean` and `variance` are resized to m.
  /// Precondition: `fit` was called. Must not allocate per point in hot paths.
  virtual void predict(const Eigen::MatrixXd& X, Eigen::VectorXd& mean,
                       Eigen::VectorXd& variance) const = 0;
};

}  // namespace arbo::sdk
