// SPDX-License-Identifier: MIT
/// @file
/// @brief Template surrogate: k-nearest-neighbour regression with a spread-plus-distance variance.
///
/// From the SDK's surrogate template (`tools/new-plugin surrogate NAME` copies and renames it).
/// What a surrogate must do is written in <arbo/sdk/surrogate.hpp>; the conformance kit checks it
/// (surrogate_xyz_test.cpp).
#pragma once

#include <vector>

#include <arbo/sdk/surrogate.hpp>

namespace xyz {

/// Predicts the mean of the k nearest observations (Euclidean distance in coordinates scaled
/// to [0, 1] by the space's bounds, so parameters of different ranges weigh the same). The
/// variance is the neighbours' spread plus a distance term that grows away from the data:
///
///   variance = var(neighbour targets) + distance_weight * var(all targets) * dbar^2,
///
/// with dbar the neighbours' mean scaled distance divided by sqrt(d), in [0, 1].
///
/// Rules every component follows, shown here:
/// - constructor `(const arbo::sdk::CreateArgs&)` reads its validated parameters once;
/// - `static params()` is the only place parameters are documented;
/// - no randomness here; a component that needs some draws it from `Context::rng()`;
/// - errors are `arbo::sdk::Error` with the component id and method in the message.
class SurrogateXyz final : public arbo::sdk::Surrogate {
 public:
  explicit SurrogateXyz(const arbo::sdk::CreateArgs& args);

  /// The parameter specs: returned by reference to a function-local static (no dynamic
  /// initialisation at load time, pitfall P15).
  static const arbo::sdk::ParamSpecList& params();

  /// Stores the scaled training points and targets. O(n d). Throws on an empty dataset.
  void fit(const arbo::sdk::Dataset& data, const arbo::sdk::Metric& metric) override;

  /// O(m n (d + log k)); allocates its scratch buffers once per call, never per point.
  void predict(const Eigen::MatrixXd& X, Eigen::VectorXd& mean,
               Eigen::VectorXd& variance) const override;

 private:
  std::int64_t k_;
  double distance_weight_;
  Eigen::VectorXd lower_, scale_;  // encoded bounds -> [0, 1]
  Eigen::MatrixXd train_;          // n x d scaled training points
  Eigen::VectorXd target_;         // n targets
  double target_variance_ = 0.0;   // variance of all targets
};

}  // namespace xyz
