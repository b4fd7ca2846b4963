// SPDX-License-Identifier: MIT
/// @file
/// @brief surrogate/tree_gp: LEAF-GP's tree-kernel GP (Thebelt et al., NeurIPS 2022).
#pragma once

#include <arbo/sdk/capabilities/surrogate.hpp>
#include <arbo/sdk/component.hpp>
#include <arbo/sdk/surrogate.hpp>

#include "cell_decoder.hpp"
#include "formulation.hpp"
#include "tree_ensemble.hpp"
#include "tree_kernel_gp.hpp"

namespace arbo::plugins {

/// Gradient-boosted trees (XGBoost) refit from scratch every iteration; a zero-mean GP whose
/// kernel is the trees' leaf agreement, on standardized targets. Formulates itself as a MIQCP
/// and decodes the optimal leaf cell into its centre, projected onto the known constraints.
class TreeGp final : public sdk::Surrogate,
                     public sdk::FormulatesSurrogate,
                     public sdk::DecodesSolution,
                     public sdk::RepresentsRegions {
 public:
  explicit TreeGp(const sdk::CreateArgs& args);
  static const sdk::ParamSpecList& params();

  void fit(const sdk::Dataset& data, const sdk::Metric& metric) override;
  void predict(const Eigen::MatrixXd& X, Eigen::VectorXd& mean,
               Eigen::VectorXd& variance) const override;
  Output formulate(sdk::Model& model, const sdk::PointVariables& point) const override;
  bool decode(const sdk::Model& model, const sdk::PointVariables& point,
              const std::vector<double>& solution,
              const std::vector<const sdk::Constraint*>& constraints,
              Eigen::VectorXd& x) const override;
  /// The centre of x's leaf-intersection box (Eq. 9-10: random floor/ceil for integers, a
  /// uniform allowed category), LEAF-GP-RND's query for its best sample.
  Eigen::VectorXd representative(const Eigen::VectorXd& x) const override;

  const tree_gp::Ensemble& ensemble() const noexcept { return ensemble_; }
  const tree_gp::TreeKernelGp& gp() const noexcept { return gp_; }

 private:
  sdk::Context& ctx_;
  const sdk::Space& space_;
  tree_gp::BoostConfig boost_;
  tree_gp::GpConfig gp_config_;
  tree_gp::DecodeSettings decode_;
  Eigen::MatrixXd X_;  // observations of the latest fit
  tree_gp::Ensemble ensemble_;
  tree_gp::TreeKernelGp gp_;
  bool fitted_ = false;
  // The latest formulation, for decode (formulate is const by contract).
  mutable tree_gp::Formulation last_;
  mutable const sdk::Model* last_model_ = nullptr;
};

}  // namespace arbo::plugins
