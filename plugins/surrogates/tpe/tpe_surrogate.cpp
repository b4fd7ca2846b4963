// SPDX-License-Identifier: MIT
#include "tpe_surrogate.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>
#include <arbo/sdk/error.hpp>

namespace arbo::plugins {

const sdk::ParamSpecList& TpeSurrogate::params() {
  static const sdk::ParamSpecList specs{
      sdk::ParamSpec::real("gamma_scale",
                           "Objective good-set size k = max(1, ceil(gamma_scale * sqrt(N))) for N "
                           "observations (the paper's ceil(sqrt(N)/4)). Unused when gamma_fraction "
                           "> 0.",
                           0.25, 1e-6, 1e6),
      sdk::ParamSpec::real("gamma_fraction",
                           "If > 0, the objective good-set size is k = max(1, ceil(gamma_fraction "
                           "* N)) instead of the square-root rule.",
                           0.0, 0.0, 1.0),
      sdk::ParamSpec::boolean(
          "feasible_split",
          "Objective split at the k-th *feasible* point (c-TPE). False: plain top k by the "
          "objective, ignoring feasibility (naive c-TPE and vanilla TPE ablations).",
          true),
      sdk::ParamSpec::boolean(
          "joint_sampling",
          "Draw each candidate from one Parzen component for all coordinates. False (the "
          "reference code): every coordinate picks its own component, i.e. the product of "
          "l's marginals.",
          false),
      sdk::ParamSpec::real("top",
                           "Aitchison-Aitken kernel: probability mass on the observed category "
                           "(the rest is spread evenly over the others).",
                           0.8, 0.0, 1.0)
          .as_advanced(),
      sdk::ParamSpec::real("min_bandwidth",
                           "Smallest kernel bandwidth of a numerical coordinate, as a fraction of "
                           "its range.",
                           1e-2, 1e-9, 0.5)
          .as_advanced(),
      sdk::ParamSpec::boolean("prior",
                              "Add the prior component (truncated N(centre, range) per numerical "
                              "coordinate, uniform per categorical) with the weight of one "
                              "observation.",
                              true)
          .as_advanced()};
  return specs;
}

TpeSurrogate::TpeSurrogate(const sdk::CreateArgs& args)
    : ctx_(args.context),
      space_(args.space),
      enc_(args.space),
      gamma_scale_(args.params.get_real("gamma_scale")),
      gamma_fraction_(args.params.get_real("gamma_fraction")),
      feasible_split_(args.params.get_bool("feasible_split")),
      joint_sampling_(args.params.get_bool("joint_sampling")) {
  options_.top = args.params.get_real("top");
  options_.eps_bandwidth = args.params.get_real("min_bandwidth");
  options_.prior = args.params.get_bool("prior");
}

void TpeSurrogate::fit(const sdk::Dataset& data, const sdk::Metric& metric) {
  if (data.size() == 0) throw sdk::InvalidArgument("needs at least one observation");
  const Eigen::VectorXd values = data.target(metric);
  X_all_ = data.X;
  fit_rows(X_all_, values, &data.feasible, metric.is_objective(), metric.name);
}

void TpeSurrogate::fit_partial(const sdk::Dataset& data, const sdk::Metric& metric,
                               const Eigen::MatrixXd& X_partial, const Eigen::VectorXd& partial) {
  // Knowledge augmentation concerns cheap constraints only; f is never partially observed
  // (Alg. 2 line 6 lists f(x) by mistake), so an objective ignores the extra rows.
  if (metric.is_objective() || X_partial.rows() == 0) {
    fit(data, metric);
    return;
  }
  if (X_partial.cols() != data.X.cols() || X_partial.rows() != partial.size()) {
    throw sdk::InvalidArgument("partial rows of the wrong shape");
  }
  const Eigen::VectorXd own = data.target(metric);
  X_all_.resize(data.X.rows() + X_partial.rows(), data.X.cols());
  X_all_ << data.X, X_partial;
  Eigen::VectorXd values(own.size() + partial.size());
  values << own, partial;
  fit_rows(X_all_, values, nullptr, false, metric.name);
}

void TpeSurrogate::fit_rows(const Eigen::MatrixXd& X, const Eigen::VectorXd& values,
                            const std::vector<std::uint8_t>* feasible, bool objective,
                            const std::string& name) {
  const auto n = static_cast<std::size_t>(values.size());
  if (n == 0) throw sdk::InvalidArgument("needs at least one observation");
  std::vector<Eigen::Index> good, bad;
  good.reserve(n);
  bad.reserve(n);
  if (objective) {
    // Stable sort by y: ties keep insertion order, as in the reference code.
    std::vector<Eigen::Index> order(n);
    std::iota(order.begin(), order.end(), Eigen::Index{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](Eigen::Index a, Eigen::Index b) { return values[a] < values[b]; });
    const double nd = static_cast<double>(n);
    const auto k = static_cast<std::size_t>(std::max(
        1.0,
        std::ceil(gamma_fraction_ > 0.0 ? gamma_fraction_ * nd : gamma_scale_ * std::sqrt(nd))));
    std::size_t cut = n;  // good = order[0, cut)
    if (feasible_split_ && feasible != nullptr && feasible->size() == n) {
      std::size_t seen = 0;
      for (std::size_t i = 0; i < n; ++i) {
        if ((*feasible)[static_cast<std::size_t>(order[i])] != 0 && ++seen == k) {
          cut = i + 1;
          break;
        }
      }
      // Fewer than k feasible points: cut stays n, so D^(l) = D and gamma_hat = 1 (the
      // reference code's choice; the paper leaves this case open).
    } else {
      cut = std::min(k, n);
    }
    good.assign(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(cut));
    bad.assign(order.begin() + static_cast<std::ptrdiff_t>(cut), order.end());
  } else {
    // Threshold split at c <= 0 (c' = the largest satisfied value); if nothing is satisfied,
    // the single best point, first in stable order (B.3.2).
    for (std::size_t i = 0; i < n; ++i) {
      (values[static_cast<Eigen::Index>(i)] <= 0.0 ? good : bad)
          .push_back(static_cast<Eigen::Index>(i));
    }
    if (good.empty()) {
      Eigen::Index best = 0;
      for (Eigen::Index i = 1; i < values.size(); ++i) {
        if (values[i] < values[best]) best = i;
      }
      good.push_back(best);
      bad.erase(std::find(bad.begin(), bad.end(), best));
    }
  }
  gamma_hat_ = static_cast<double>(good.size()) / static_cast<double>(n);

  active_rows_.clear();
  if (enc_.has_conditions()) {
    const std::size_t D = enc_.dim();
    active_rows_.resize(n * D);
    std::vector<std::uint8_t> a;
    for (std::size_t i = 0; i < n; ++i) {
      enc_.activity(X.row(static_cast<Eigen::Index>(i)).transpose(), a);
      std::copy(a.begin(), a.end(), active_rows_.begin() + static_cast<std::ptrdiff_t>(i * D));
    }
  }
  l_.fit(enc_, X, good, active_rows_, options_);
  // An empty bad set leaves g = the prior alone (the reference code). Without the prior, g
  // would be empty; it then falls back to the prior so that l/g stays defined.
  tpe::ParzenOptions g_options = options_;
  if (bad.empty()) g_options.prior = true;
  g_.fit(enc_, X, bad, active_rows_, g_options);
  fitted_ = true;
  // bench/ctpe_toy reads this line (arbo --verbose) for the realised gamma_hat values.
  ctx_.debug("tpe [{}]: {} rows, good set {}, gamma_hat {:.6f}", name, n, good.size(), gamma_hat_);
}

const std::vector<std::uint8_t>& TpeSurrogate::activity_of(const Eigen::VectorXd& x) const {
  if (!enc_.has_conditions()) {
    active_x_.clear();
    return active_x_;
  }
  snapped_ = x;
  space_.snap(snapped_);
  enc_.activity(snapped_, active_x_);
  return active_x_;
}

double TpeSurrogate::log_l(const Eigen::VectorXd& x) const {
  if (!fitted_) throw sdk::InvalidArgument("called before fit()");
  return l_.log_pdf(x, activity_of(x));
}

double TpeSurrogate::log_g(const Eigen::VectorXd& x) const {
  if (!fitted_) throw sdk::InvalidArgument("called before fit()");
  return g_.log_pdf(x, activity_of(x));
}

void TpeSurrogate::sample_l(std::size_t n, std::mt19937_64& rng, Eigen::MatrixXd& out) const {
  if (!fitted_) throw sdk::InvalidArgument("called before fit()");
  out.resize(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(enc_.dim()));
  l_.sample(n, rng, joint_sampling_, out, 0);
  // Inactive coordinates get their defaults, so equal configurations have equal vectors.
  if (enc_.has_conditions()) {
    for (Eigen::Index i = 0; i < out.rows(); ++i) {
      Eigen::VectorXd row = out.row(i).transpose();
      space_.snap(row);
      out.row(i) = row.transpose();
    }
  }
}

void TpeSurrogate::predict(const Eigen::MatrixXd& X, Eigen::VectorXd& mean,
                           Eigen::VectorXd& variance) const {
  if (!fitted_) throw sdk::InvalidArgument("called before fit()");
  mean.resize(X.rows());
  variance.setZero(X.rows());
  Eigen::VectorXd x(X.cols());
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    x = X.row(i).transpose();
    const auto& a = activity_of(x);
    mean[i] = g_.log_pdf(x, a) - l_.log_pdf(x, a);
  }
}

}  // namespace arbo::plugins
