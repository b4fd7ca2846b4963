// SPDX-License-Identifier: MIT
/// @file
/// @brief surrogate/bark: BARK, the fully Bayesian tree-kernel GP (Boyne et al.).
#pragma once

#include <string>
#include <vector>

#include <arbo/sdk/capabilities/surrogate.hpp>
#include <arbo/sdk/component.hpp>
#include <arbo/sdk/surrogate.hpp>

#include "bark_model.hpp"

namespace arbo::plugins {

/// GP whose kernel is the tree agreement of m BART-prior trees, the trees and the noise
/// sampled by MCMC on the marginal likelihood; predicts with the mixture of the S sampled GPs.
class Bark final : public sdk::Surrogate, public sdk::PosteriorSampler {
 public:
  explicit Bark(const sdk::CreateArgs& args);
  static const sdk::ParamSpecList& params();

  void fit(const sdk::Dataset& data, const sdk::Metric& metric) override;
  void predict(const Eigen::MatrixXd& X, Eigen::VectorXd& mean,
               Eigen::VectorXd& variance) const override;
  void sample(const Eigen::MatrixXd& X, std::size_t num_samples, std::mt19937_64& rng,
              Eigen::MatrixXd& out) const override;

  /// The fitted model (samples, chains, standardization) for formulations and tests.
  const bark::BarkModel& model() const noexcept { return model_; }
  /// The warm-start state of every chain, and its restoration (for the study store).
  std::vector<std::string> chain_states() const { return model_.chain_states(); }
  void set_chain_states(const std::vector<std::string>& states) { model_.set_chain_states(states); }

 private:
  sdk::Context& ctx_;
  bark::BarkModel model_;
};

}  // namespace arbo::plugins
