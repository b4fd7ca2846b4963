// SPDX-License-Identifier: MIT
/// @file
/// @brief Surrogate models: one instance per metric (objective, each black-box constraint).
///
/// A pipeline names one surrogate type; the kernel creates one instance of it per metric (the
/// objective, then each black-box constraint, in the order of `Dataset::constraint_names`),
/// fits each on its own column, and binds them all to the acquisition (acquisition.hpp).
/// Optional capabilities (formulating the prediction into a model, density models, partial
/// observations, posterior samples) are in capabilities/surrogate.hpp.
#pragma once

#include <Eigen/Core>

#include "arbo/sdk/component.hpp"
#include "arbo/sdk/dataset.hpp"

namespace arbo::sdk {

/// A probabilistic model of one metric over the encoded space.
///
/// Life cycle: the kernel creates one instance per metric when the study starts, then in every
/// model-based iteration calls `fit` once and the acquisition calls `predict` many times.
/// Each `fit` starts from scratch on the whole dataset (it may reuse its previous state as a
/// warm start, as long as the result depends only on the data and `Context::rng()`, which
/// the kernel reseeds before every fit). A surrogate whose result also depends on its
/// previous fit (an MCMC chain continued from its last sample) implements `SavesState`
/// (capabilities/surrogate.hpp), so that a resumed study continues from the same state.
class ARBO_SDK_API Surrogate : public Component {
 public:
  ~Surrogate() override;

  /// Fits the model to rows of `data.X` against `data.target(metric)` (minimization sense for
  /// the objective; normalized constraint values, <= 0 iff satisfied, otherwise).
  /// Preconditions: `data.size() >= 1`; `data.dim()` equals the space's size. `data` is valid
  /// during the call only: copy what `predict` needs.
  /// Complexity: the method's (GP: O(n^3)). May throw `Error` for invalid data, which stops
  /// the study with a message naming the surrogate.
  virtual void fit(const Dataset& data, const Metric& metric) = 0;

  /// Predictive mean and variance (>= 0, same units as the target squared) at each row of `X`
  /// (m x d encoded points). `mean` and `variance` are resized to m; both must be finite.
  /// Precondition: `fit` was called. Must not allocate per point in hot paths: inner solvers
  /// call it for thousands of points per iteration, often one row at a time. Deterministic
  /// between two fits (const; no draws from the rng).
  virtual void predict(const Eigen::MatrixXd& X, Eigen::VectorXd& mean,
                       Eigen::VectorXd& variance) const = 0;
};

}  // namespace arbo::sdk
