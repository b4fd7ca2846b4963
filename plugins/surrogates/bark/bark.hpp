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
#include "cell_decoder.hpp"
#include "formulation.hpp"
#include "tree_ensemble.hpp"
#include "tree_kernel_gp.hpp"

namespace arbo::plugins {

/// GP whose kernel is the tree agreement of m BART-prior trees, the trees and the noise
/// sampled by MCMC on the marginal likelihood; predicts with the mixture of the S sampled GPs.
/// Offers the components of the mixture (for the integrated UCB of acquisition/lcb) and writes
/// them all into one model over the union of the samples' trees (Boyne et al., Sec. 6.1, Eqs.
/// 9-10, with LEAF-GP's formulation code), decodes the optimal cell into its centre projected
/// onto the known constraints, and keeps its chains' states in the study.
class Bark final : public sdk::Surrogate,
                   public sdk::PosteriorSampler,
                   public sdk::PosteriorMixture,
                   public sdk::FormulatesMixture,
                   public sdk::DecodesSolution,
                   public sdk::SavesState {
 public:
  explicit Bark(const sdk::CreateArgs& args);
  static const sdk::ParamSpecList& params();

  void fit(const sdk::Dataset& data, const sdk::Metric& metric) override;
  void predict(const Eigen::MatrixXd& X, Eigen::VectorXd& mean,
               Eigen::VectorXd& variance) const override;
  void sample(const Eigen::MatrixXd& X, std::size_t num_samples, std::mt19937_64& rng,
              Eigen::MatrixXd& out) const override;
  std::size_t num_components() const override;
  void predict_components(const Eigen::MatrixXd& X, Eigen::MatrixXd& mean,
                          Eigen::MatrixXd& variance) const override;
  std::vector<sdk::FormulatesSurrogate::Output> formulate_components(
      sdk::Model& model, const sdk::PointVariables& point) const override;
  bool decode(const sdk::Model& model, const sdk::PointVariables& point,
              const std::vector<double>& solution,
              const std::vector<const sdk::Constraint*>& constraints,
              Eigen::VectorXd& x) const override;
  /// The chains' last states (JSON: format tag and one state per chain).
  std::string save_state() const override;
  void restore_state(std::string_view state) override;
  /// The posterior samples as tree-kernel GPs of tree_gp (built on first use after a fit):
  /// what formulate_components writes into a model. For tests.
  const std::vector<tree_gp::TreeKernelGp>& sample_gps() const;

  /// The fitted model (samples, chains, standardization) for formulations and tests.
  const bark::BarkModel& model() const noexcept { return model_; }
  /// The warm-start state of every chain, and its restoration (for the study store).
  std::vector<std::string> chain_states() const { return model_.chain_states(); }
  void set_chain_states(const std::vector<std::string>& states) { model_.set_chain_states(states); }

 private:
  sdk::Context& ctx_;
  const sdk::Space& space_;
  bark::BarkModel model_;
  tree_gp::DecodeSettings decode_;
  Eigen::MatrixXd X_;  // the latest fit's observations
  Eigen::VectorXd y_;
  // The samples converted for the formulation (rebuilt after every fit), and the latest
  // formulation, for decode (formulate_components is const by contract).
  mutable std::vector<tree_gp::Ensemble> ensembles_;
  mutable std::vector<tree_gp::TreeKernelGp> gps_;
  mutable bool converted_ = false;
  mutable std::vector<tree_gp::Formulation> last_;
  mutable const sdk::Model* last_model_ = nullptr;
  mutable Eigen::MatrixXd comp_mean_, comp_var_;  // predict_components' S x m scratch
};

}  // namespace arbo::plugins
