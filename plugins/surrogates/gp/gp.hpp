// SPDX-License-Identifier: MIT
/// @file
/// @brief surrogate/gp: the standard GP baseline (ARD squared-exponential or Matern-5/2 with
/// the priors of Hvarfner et al. 2024, the mixed kernel of Ru et al. 2020 for categoricals,
/// MAP hyperparameters by multi-start L-BFGS).
#pragma once

#include <arbo/sdk/capabilities/surrogate.hpp>
#include <arbo/sdk/surrogate.hpp>

#include "gp_model.hpp"

namespace arbo::plugins {

/// One exact GP per metric, refitted from scratch (hyperparameters included) at every `fit`.
/// Predicts the latent mean and variance in the metric's units; draws joint posterior samples
/// for sampling acquisitions.
class GpSurrogate final : public sdk::Surrogate, public sdk::PosteriorSampler {
 public:
  explicit GpSurrogate(const sdk::CreateArgs& args);
  static const sdk::ParamSpecList& params();

  void fit(const sdk::Dataset& data, const sdk::Metric& metric) override;
  void predict(const Eigen::MatrixXd& X, Eigen::VectorXd& mean,
               Eigen::VectorXd& variance) const override;
  void sample(const Eigen::MatrixXd& X, std::size_t num_samples, std::mt19937_64& rng,
              Eigen::MatrixXd& out) const override;

  const gp::GpModel& model() const noexcept { return model_; }

 private:
  sdk::Context& ctx_;
  gp::GpModel model_;
  gp::FitOptions options_;
  bool fitted_ = false;
};

/// The model's layout for a space: categorical parameters to the categorical kernel, every
/// other parameter (real, integer, binary) to the numeric kernel, normalized by its encoded
/// bounds (a zero-width range counts as 1).
gp::Layout layout_of(const sdk::Space& space);

}  // namespace arbo::plugins
