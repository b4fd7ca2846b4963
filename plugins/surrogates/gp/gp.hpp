// SPDX-License-Identifier: MIT
/// @file
/// @brief surrogate/gp: the standard GP baseline (ARD squared-exponential or Matern-5/2 with
/// the priors of Hvarfner et al. 2024, the mixed kernel of Ru et al. 2020 for categoricals,
/// MAP hyperparameters by multi-start L-BFGS).
#pragma once

#include <vector>

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
  // The model's input rows of encoded points: the points themselves, or with one-hot
  // categoricals their expansion into `z` (resized when its shape differs).
  const Eigen::MatrixXd& inputs(const Eigen::MatrixXd& X, Eigen::MatrixXd& z) const;

  sdk::Context& ctx_;
  // one_hot_widths of the space when categoricals are one-hot; empty otherwise (no expansion)
  std::vector<int> widths_;
  Eigen::Index dim_;  // the space's dimension (columns of the encoded points)
  gp::GpModel model_;
  gp::FitOptions options_;
  Eigen::MatrixXd z_fit_;
  bool fitted_ = false;
};

/// How categorical parameters enter the GP (parameter `categorical_encoding`).
enum class CategoricalEncoding {
  Kernel,  ///< the categorical kernel on the choice index, mixed with the numeric one
  OneHot,  ///< one indicator column per choice, each a numeric coordinate in [0, 1]
};

/// The model's layout for a space: with `Kernel`, categorical parameters to the categorical
/// kernel and every other parameter (real, integer, binary) to the numeric kernel, normalized
/// by its encoded bounds (a zero-width range counts as 1); with `OneHot`, every column of the
/// expanded input (`expand_one_hot`) is numeric, the indicators with bounds [0, 1].
gp::Layout layout_of(const sdk::Space& space,
                     CategoricalEncoding encoding = CategoricalEncoding::Kernel);

/// Per encoded column of `space`: the number of choices of a categorical parameter (the width
/// of its one-hot block), 0 for any other parameter.
std::vector<int> one_hot_widths(const sdk::Space& space);

/// The one-hot expansion of encoded points X (one per row, `widths.size()` columns) into `Z`:
/// columns in order, a column of width k > 0 (`one_hot_widths`) becoming k indicator columns
/// (1 at its rounded index, so an inactive categorical marks its default), others copied. Z is
/// resized only when its shape differs. O(rows x expanded width).
void expand_one_hot(const std::vector<int>& widths, const Eigen::MatrixXd& X, Eigen::MatrixXd& Z);

}  // namespace arbo::plugins
