// SPDX-License-Identifier: MIT
/// @file
/// @brief surrogate/tpe: the per-metric good/bad split and Parzen estimators of c-TPE.
#pragma once

#include <arbo/sdk/capabilities/surrogate.hpp>
#include <arbo/sdk/surrogate.hpp>

#include "parzen.hpp"

namespace arbo::plugins {

/// One TPE density-ratio model of one metric (Watanabe & Hutter, c-TPE, Sec. 2.2 and App. B.3).
///
/// - Objective: sorted by y (stable), the good set D^(l) is the prefix up to and including the
///   k-th *feasible* point, k = max(1, ceil(gamma_scale sqrt(N))); fewer than k feasible points
///   put every point in D^(l) (gamma_hat = 1: the objective drops out of c-TPE's acquisition,
///   the reference code's choice). With `feasible_split = false` (naive c-TPE, vanilla TPE) it
///   is the plain top k.
/// - Black-box constraint: D^(l) = {c <= 0}; with no satisfied point, the single best point.
/// - l and g: `tpe::Parzen` estimators on the shared encoding; gamma_hat = |D^(l)| / N.
///
/// `predict` returns mean = log g(x) - log l(x) (smaller is more promising, like the metric's
/// own minimization sense) and variance 0: TPE has no predictive distribution.
class TpeSurrogate final : public sdk::Surrogate,
                           public sdk::DensityModel,
                           public sdk::ReportsGoodFraction,
                           public sdk::FitsPartialObservations {
 public:
  explicit TpeSurrogate(const sdk::CreateArgs& args);
  static const sdk::ParamSpecList& params();

  void fit(const sdk::Dataset& data, const sdk::Metric& metric) override;
  void predict(const Eigen::MatrixXd& X, Eigen::VectorXd& mean,
               Eigen::VectorXd& variance) const override;

  double log_l(const Eigen::VectorXd& x) const override;
  double log_g(const Eigen::VectorXd& x) const override;
  void sample_l(std::size_t n, std::mt19937_64& rng, Eigen::MatrixXd& out) const override;

  double good_fraction() const override { return gamma_hat_; }

  void fit_partial(const sdk::Dataset& data, const sdk::Metric& metric,
                   const Eigen::MatrixXd& X_partial, const Eigen::VectorXd& partial) override;

 private:
  void fit_rows(const Eigen::MatrixXd& X, const Eigen::VectorXd& values,
                const std::vector<std::uint8_t>* feasible, bool objective, const std::string& name);
  const std::vector<std::uint8_t>& activity_of(const Eigen::VectorXd& x) const;

  sdk::Context& ctx_;
  const sdk::Space& space_;
  tpe::Encoding enc_;
  tpe::ParzenOptions options_;
  double gamma_scale_;
  double gamma_fraction_;
  bool feasible_split_;
  bool joint_sampling_;
  tpe::Parzen l_, g_;
  double gamma_hat_ = 1.0;
  bool fitted_ = false;
  Eigen::MatrixXd X_all_;  // rows the estimators were fitted on (data plus partial rows)
  std::vector<std::uint8_t> active_rows_;
  mutable Eigen::VectorXd snapped_;
  mutable std::vector<std::uint8_t> active_x_;
};

}  // namespace arbo::plugins
