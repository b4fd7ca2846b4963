// SPDX-License-Identifier: MIT
/// @file
/// @brief acquisition/ctpe: c-TPE's product of relative density ratios (and its ablations).
#pragma once

#include <vector>

#include <arbo/sdk/acquisition.hpp>
#include <arbo/sdk/capabilities/acquisition.hpp>
#include <arbo/sdk/capabilities/surrogate.hpp>

namespace arbo::plugins {

/// log alpha(x) = sum_i log r_i^rel(x), r_i^rel = 1 / (gamma_i + (1 - gamma_i) g_i / l_i), over
/// the objective (i = 0) and every black-box constraint, with the realised gamma_hat_i each
/// surrogate reports (Cor. 1 of the c-TPE paper). A term with gamma_hat_i = 1 is skipped: it is
/// identically zero, and skipping makes that an exact no-op.
///
/// Modes: `ctpe`; `naive` (sum of log l_i/g_i, the naive TPE + ECI combination); `vanilla`
/// (log l_0/g_0 alone: plain TPE, constraints ignored).
///
/// Surrogates should be density models (surrogate/tpe). Any other surrogate is used through
/// its Gaussian prediction: log PI against the incumbent for the objective (TPE's ratio is
/// affine in PI, Prop. 1; no term without an incumbent) and log P(c <= 0) for a constraint.
///
/// Candidates (`ProposesCandidates`): n draws split evenly over the l of the metrics scored.
class CtpeAcquisition final : public sdk::Acquisition,
                              public sdk::ProposesCandidates,
                              public sdk::RespectsBlackBoxConstraints {
 public:
  explicit CtpeAcquisition(const sdk::CreateArgs& args);
  static const sdk::ParamSpecList& params();

  void bind(const sdk::AcquisitionInputs& inputs) override;
  double value(const Eigen::VectorXd& x) const override;
  void candidates(std::size_t n, std::mt19937_64& rng, Eigen::MatrixXd& out) const override;

 private:
  enum class Mode { Ctpe, Naive, Vanilla };
  struct Term {
    const sdk::Surrogate* surrogate = nullptr;
    const sdk::DensityModel* density = nullptr;  // nullptr: Gaussian fallback
    double gamma = 1.0;
    bool objective = false;
  };

  sdk::Context& ctx_;
  const sdk::Space& space_;
  Mode mode_;
  std::vector<Term> terms_;
  std::optional<double> incumbent_;
  mutable Eigen::MatrixXd row_;
  mutable Eigen::VectorXd mean_, var_;
};

}  // namespace arbo::plugins
