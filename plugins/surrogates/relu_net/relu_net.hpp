// SPDX-License-Identifier: MIT
/// @file
/// @brief surrogate/relu_net: NN+MILP's ReLU-network surrogate (Papalexopoulos, Tjandraatmadja,
/// Anderson, Vielma, Belanger 2022), retrained from scratch every iteration and written into a
/// MILP for exact maximization of its prediction.
#pragma once

#include <arbo/sdk/capabilities/surrogate.hpp>
#include <arbo/sdk/component.hpp>
#include <arbo/sdk/surrogate.hpp>

#include "encoding.hpp"
#include "formulation.hpp"
#include "network.hpp"

namespace arbo::plugins {

/// A fully connected ReLU network with a linear output on the one-hot encoding of the space,
/// trained by Adam on the l2 loss of z-scored targets from a fresh random initialization at
/// every fit (the paper's only exploration: "approximate Thompson sampling", Sec. 3.1). The
/// prediction is deterministic: variance 0.
class ReluNet final : public sdk::Surrogate,
                      public sdk::FormulatesSurrogate,
                      public sdk::DecodesSolution {
 public:
  /// @throws sdk::Error naming the space parameter the encoding cannot take (see Encoding),
  ///         sdk::ParamError for an invalid `hidden`.
  explicit ReluNet(const sdk::CreateArgs& args);
  static const sdk::ParamSpecList& params();

  void fit(const sdk::Dataset& data, const sdk::Metric& metric) override;
  void predict(const Eigen::MatrixXd& X, Eigen::VectorXd& mean,
               Eigen::VectorXd& variance) const override;
  Output formulate(sdk::Model& model, const sdk::PointVariables& point) const override;
  bool decode(const sdk::Model& model, const sdk::PointVariables& point,
              const std::vector<double>& solution,
              const std::vector<const sdk::Constraint*>& constraints,
              Eigen::VectorXd& x) const override;

  const relu_net::Encoding& encoding() const noexcept { return encoding_; }
  const relu_net::Network& network() const noexcept { return net_; }
  /// Target standardization of the latest fit: prediction = mean + scale * network output.
  double y_mean() const noexcept { return y_mean_; }
  double y_scale() const noexcept { return y_scale_; }
  const relu_net::TrainReport& last_training() const noexcept { return report_; }
  /// The latest formulation (binaries of the encoding, neurons), or nullptr before one.
  const relu_net::Formulation* last_formulation() const noexcept {
    return last_model_ != nullptr ? &last_ : nullptr;
  }

 private:
  sdk::Context& ctx_;
  const sdk::Space& space_;
  relu_net::Encoding encoding_;
  relu_net::Architecture arch_;
  relu_net::TrainConfig train_;
  relu_net::BoundMethod bounds_ = relu_net::BoundMethod::Lp;
  relu_net::Network net_;
  relu_net::TrainReport report_;
  double y_mean_ = 0.0;
  double y_scale_ = 1.0;
  bool fitted_ = false;
  relu_net::SparseRows train_rows_;
  // predict is const by contract; these are its reused buffers (one thread at a time).
  mutable relu_net::Trainer trainer_;
  mutable relu_net::SparseRows rows_;
  mutable std::vector<int> nz_index_;
  mutable std::vector<double> nz_value_;
  mutable Eigen::VectorXd out_;
  // The latest formulation, for decode (formulate is const by contract).
  mutable relu_net::Formulation last_;
  mutable const sdk::Model* last_model_ = nullptr;
};

}  // namespace arbo::plugins
