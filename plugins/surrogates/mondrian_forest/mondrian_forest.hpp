// SPDX-License-Identifier: MIT
/// @file
/// @brief surrogate/mondrian_forest: Mondrian forest regression with the distance-based or the
/// forest-variance uncertainty (C. V. Braun, MSc thesis, Imperial College London, 2022).
#pragma once

#include <arbo/sdk/surrogate.hpp>

#include "distance_uncertainty.hpp"
#include "mondrian_tree.hpp"

namespace arbo::plugins {

/// Mean: the forest average of path-weighted Mondrian tree predictions. Variance: either the
/// forest's mixture variance, or the thesis's distance-based uncertainty u(x), a variance.
/// Trees are refitted from scratch at every `fit`, drawing from the context's random engine.
class MondrianForestSurrogate final : public sdk::Surrogate {
 public:
  explicit MondrianForestSurrogate(const sdk::CreateArgs& args);
  static const sdk::ParamSpecList& params();

  void fit(const sdk::Dataset& data, const sdk::Metric& metric) override;
  void predict(const Eigen::MatrixXd& X, Eigen::VectorXd& mean,
               Eigen::VectorXd& variance) const override;

 private:
  sdk::Context& ctx_;
  const sdk::Space& space_;
  MondrianSettings settings_;
  bool distance_ = true;
  MondrianForest forest_;
  DistanceUncertainty uncertainty_;
  Eigen::Index dim_ = -1;  // -1 until fitted
};

}  // namespace arbo::plugins
