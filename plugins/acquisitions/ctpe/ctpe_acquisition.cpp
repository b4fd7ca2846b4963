// SPDX-License-Identifier: MIT
#include "ctpe_acquisition.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <arbo/sdk/error.hpp>

namespace arbo::plugins {

namespace {

constexpr double kEps = 1e-300;  // the reference code's EPS
constexpr double kLogEps = -690.7755278982137;

double logaddexp(double a, double b) {
  const double m = std::max(a, b);
  return m + std::log1p(std::exp(-std::abs(a - b)));
}

// log Phi(z), floored at log(EPS) so that the acquisition stays finite.
double log_phi(double z) {
  const double p = 0.5 * std::erfc(-z * 0.70710678118654752440);
  return p > kEps ? std::log(p) : kLogEps;
}

}  // namespace

const sdk::ParamSpecList& CtpeAcquisition::params() {
  static const sdk::ParamSpecList specs{sdk::ParamSpec::choice(
      "mode",
      "ctpe: product of relative density ratios with each metric's realised gamma_hat (the "
      "paper's method). naive: product of plain ratios l/g (ablation; pair with surrogate "
      "feasible_split = false). vanilla: plain TPE on the objective, constraints ignored (pair "
      "with feasible_split = false).",
      "ctpe", {"ctpe", "naive", "vanilla"})};
  return specs;
}

CtpeAcquisition::CtpeAcquisition(const sdk::CreateArgs& args)
    : ctx_(args.context), space_(args.space), mode_(Mode::Ctpe) {
  const std::string& m = args.params.get_string("mode");
  if (m == "naive") mode_ = Mode::Naive;
  if (m == "vanilla") mode_ = Mode::Vanilla;
}

void CtpeAcquisition::bind(const sdk::AcquisitionInputs& inputs) {
  if (inputs.objective == nullptr) {
    throw sdk::InvalidArgument("acquisition/ctpe needs a model of the objective");
  }
  terms_.clear();
  incumbent_ = inputs.incumbent;
  const auto add = [&](const sdk::Surrogate* s, bool objective) {
    Term t;
    t.surrogate = s;
    t.objective = objective;
    t.density = dynamic_cast<const sdk::DensityModel*>(s);
    if (const auto* gf = dynamic_cast<const sdk::ReportsGoodFraction*>(s)) {
      t.gamma = gf->good_fraction();
    } else if (t.density != nullptr) {
      // A density model without a reported split: plain ratio (gamma_hat -> 0 limit).
      t.gamma = 0.0;
    }
    terms_.push_back(t);
  };
  add(inputs.objective, true);
  if (mode_ != Mode::Vanilla) {
    for (const sdk::Surrogate* c : inputs.constraints) {
      if (c != nullptr) add(c, false);
    }
  }
  if (std::any_of(terms_.begin(), terms_.end(), [](const Term& t) { return !t.density; })) {
    ctx_.debug("ctpe: some surrogates are not density models; using their Gaussian predictions");
  }
}

double CtpeAcquisition::value(const Eigen::VectorXd& x) const {
  double total = 0.0;
  for (const Term& t : terms_) {
    if (t.density == nullptr) {
      row_ = x.transpose();
      t.surrogate->predict(row_, mean_, var_);
      const double sd = std::sqrt(std::max(var_[0], 0.0));
      if (t.objective) {
        if (!incumbent_) continue;
        total += sd > 0.0 ? log_phi((*incumbent_ - mean_[0]) / sd)
                          : (mean_[0] <= *incumbent_ ? 0.0 : kLogEps);
      } else {
        total += sd > 0.0 ? log_phi(-mean_[0] / sd) : (mean_[0] <= 0.0 ? 0.0 : kLogEps);
      }
      continue;
    }
    const double ll = t.density->log_l(x);
    const double lg = t.density->log_g(x);
    if (mode_ != Mode::Ctpe || t.gamma <= 0.0) {
      total += ll - lg;
      continue;
    }
    if (t.gamma >= 1.0) continue;  // r^rel == 1: an exact no-op (Cor. 2)
    total -= logaddexp(std::log(t.gamma + kEps), std::log(1.0 - t.gamma + kEps) + lg - ll);
  }
  return total;
}

void CtpeAcquisition::candidates(std::size_t n, std::mt19937_64& rng, Eigen::MatrixXd& out) const {
  const auto d = static_cast<Eigen::Index>(space_.size());
  out.resize(static_cast<Eigen::Index>(n), d);
  std::vector<const sdk::DensityModel*> models;
  for (const Term& t : terms_) {
    if (t.density != nullptr) models.push_back(t.density);
  }
  if (models.empty()) {
    // Nothing to sample from: uniform points of the space.
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    Eigen::VectorXd u(d), x(d);
    for (Eigen::Index i = 0; i < out.rows(); ++i) {
      for (Eigen::Index j = 0; j < d; ++j) u[j] = unit(rng);
      space_.from_unit(u, x);
      out.row(i) = x.transpose();
    }
    return;
  }
  // Equal shares (the first models get the remainder): 24 per model when the caller asks for
  // 24 (C + 1), Algorithm 1's pooled candidate set.
  Eigen::MatrixXd block;
  Eigen::Index row = 0;
  const std::size_t k = models.size();
  for (std::size_t m = 0; m < k; ++m) {
    const std::size_t share = n / k + (m < n % k ? 1 : 0);
    if (share == 0) continue;
    models[m]->sample_l(share, rng, block);
    out.middleRows(row, static_cast<Eigen::Index>(share)) = block;
    row += static_cast<Eigen::Index>(share);
  }
}

}  // namespace arbo::plugins
