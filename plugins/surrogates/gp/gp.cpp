// SPDX-License-Identifier: MIT
#include "gp.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include <arbo/sdk/error.hpp>

namespace arbo::plugins {

namespace {

gp::KernelType kernel_type(const std::string& name) {
  return name == "matern52" ? gp::KernelType::Matern52 : gp::KernelType::SquaredExponential;
}

CategoricalEncoding encoding_of(const sdk::ParamSet& p) {
  return p.get_string("categorical_encoding") == "one_hot" ? CategoricalEncoding::OneHot
                                                           : CategoricalEncoding::Kernel;
}

gp::Priors priors_of(const sdk::Space& space, const sdk::ParamSet& p) {
  const gp::Layout layout = layout_of(space, encoding_of(p));
  gp::Priors priors = gp::hvarfner_priors(static_cast<Eigen::Index>(layout.numeric.size()));
  priors.min_noise = p.get_real("min_noise_variance");
  return priors;
}

}  // namespace

gp::Layout layout_of(const sdk::Space& space, CategoricalEncoding encoding) {
  gp::Layout layout;
  std::vector<double> lower, range;
  Eigen::Index col = 0;  // column of the model's input
  for (std::size_t i = 0; i < space.size(); ++i) {
    const auto enc = static_cast<Eigen::Index>(i);
    if (space[i].type == sdk::ParamType::Categorical) {
      if (encoding == CategoricalEncoding::Kernel) {
        layout.categorical.push_back(col++);
        continue;
      }
      for (std::size_t k = 0; k < space[i].choices.size(); ++k) {
        layout.numeric.push_back(col++);
        lower.push_back(0.0);
        range.push_back(1.0);
      }
      continue;
    }
    // Inactive coordinates hold the parameter's default (space.hpp), so they enter the kernel
    // as that value, as in surrogate/mondrian_forest and surrogate/tree_gp.
    layout.numeric.push_back(col++);
    lower.push_back(space.lower()[enc]);
    const double width = space.upper()[enc] - space.lower()[enc];
    range.push_back(width > 0.0 ? width : 1.0);
  }
  layout.dim = col;
  layout.lower =
      Eigen::Map<const Eigen::VectorXd>(lower.data(), static_cast<Eigen::Index>(lower.size()));
  layout.range =
      Eigen::Map<const Eigen::VectorXd>(range.data(), static_cast<Eigen::Index>(range.size()));
  return layout;
}

std::vector<int> one_hot_widths(const sdk::Space& space) {
  std::vector<int> widths;
  for (std::size_t i = 0; i < space.size(); ++i)
    widths.push_back(space[i].type == sdk::ParamType::Categorical
                         ? static_cast<int>(space[i].choices.size())
                         : 0);
  return widths;
}

void expand_one_hot(const std::vector<int>& widths, const Eigen::MatrixXd& X, Eigen::MatrixXd& Z) {
  Eigen::Index width = 0;
  for (int k : widths) width += k > 0 ? k : 1;
  if (Z.rows() != X.rows() || Z.cols() != width) Z.resize(X.rows(), width);
  Eigen::Index col = 0;
  for (std::size_t i = 0; i < widths.size(); ++i) {
    const auto enc = static_cast<Eigen::Index>(i);
    const Eigen::Index k = widths[i];
    if (k == 0) {
      Z.col(col++) = X.col(enc);
      continue;
    }
    Z.middleCols(col, k).setZero();
    for (Eigen::Index r = 0; r < X.rows(); ++r)
      Z(r, col + std::clamp<Eigen::Index>(std::lround(X(r, enc)), 0, k - 1)) = 1.0;
    col += k;
  }
}

const sdk::ParamSpecList& GpSurrogate::params() {
  static const sdk::ParamSpecList specs{
      sdk::ParamSpec::choice(
          "kernel",
          "Kernel of the numeric (real, integer, binary) coordinates, ARD on [0,1]-normalized "
          "encoded units: 'se' is the squared exponential (the BARK paper's GP-RBF baseline and "
          "Hvarfner et al. 2024), 'matern52' the Matern-5/2 kernel. Both get the lengthscale "
          "prior LogNormal(sqrt2 + log(D)/2, sqrt3), D the number of numeric coordinates. "
          "Categorical coordinates use exp(-mean_c [h_c != h'_c] / l_c) (BoTorch's "
          "CategoricalKernel), combined as s_x k_x + s_h k_h + s_p k_x k_h (Ru et al. 2020).",
          "se", {"se", "matern52"}),
      sdk::ParamSpec::choice(
          "categorical_encoding",
          "How categorical parameters enter the GP: 'kernel' compares their choice index with "
          "the categorical kernel above, mixed with the numeric kernel; 'one_hot' turns each "
          "into one indicator coordinate per choice, each a numeric coordinate of the kernel "
          "with its own lengthscale (D then counts them; BoFire's default input encoding, "
          "which the BARK paper's GP-RBF uses where categories are too many to enumerate).",
          "kernel", {"kernel", "one_hot"}),
      sdk::ParamSpec::integer(
          "restarts",
          "L-BFGS starts drawn from the hyperparameter priors, besides the "
          "start at the priors' modes (BoTorch's initial values); the best end point is kept.",
          3, 0, 1000),
      sdk::ParamSpec::integer("max_iterations", "L-BFGS iterations per start.", 200, 1, 100000)
          .as_advanced(),
      sdk::ParamSpec::real("min_noise_variance",
                           "Lower bound of the noise variance, in standardized target units "
                           "(the noise variance is this plus a free positive term with the "
                           "prior LogNormal(-4, 1) on the whole). Numerical safety for "
                           "deterministic objectives.",
                           1e-6, 1e-12, 1.0)
          .as_advanced(),
  };
  return specs;
}

GpSurrogate::GpSurrogate(const sdk::CreateArgs& args)
    : ctx_(args.context),
      dim_(static_cast<Eigen::Index>(args.space.size())),
      model_(kernel_type(args.params.get_string("kernel")),
             layout_of(args.space, encoding_of(args.params)), priors_of(args.space, args.params)) {
  if (encoding_of(args.params) == CategoricalEncoding::OneHot) widths_ = one_hot_widths(args.space);
  options_.restarts = static_cast<int>(args.params.get_int("restarts"));
  options_.max_iterations = static_cast<int>(args.params.get_int("max_iterations"));
}

const Eigen::MatrixXd& GpSurrogate::inputs(const Eigen::MatrixXd& X, Eigen::MatrixXd& z) const {
  if (widths_.empty()) return X;
  expand_one_hot(widths_, X, z);
  return z;
}

void GpSurrogate::fit(const sdk::Dataset& data, const sdk::Metric& metric) {
  if (data.size() == 0) throw sdk::InvalidArgument("fit needs at least one observation");
  const Eigen::VectorXd y = data.target(metric);
  if (!y.allFinite()) {
    throw sdk::InvalidArgument(fmt::format("non-finite value in metric '{}'", metric.name));
  }
  if (!data.X.allFinite()) throw sdk::InvalidArgument("non-finite coordinate in the data");
  try {
    model_.set_data(inputs(data.X, z_fit_), y);
  } catch (const std::invalid_argument& e) {
    throw sdk::InvalidArgument(e.what());
  }
  gp::FitReport report;
  try {
    report = model_.fit(ctx_.rng(), options_);
  } catch (const std::runtime_error& e) {
    fitted_ = false;
    throw sdk::Error(fmt::format("MAP fit of metric '{}' on {} observations failed: {}",
                                 metric.name, data.size(), e.what()));
  }
  fitted_ = true;
  const Eigen::VectorXd ls = model_.lengthscales();
  ctx_.debug(
      "gp({}): -log posterior {:.4g} after {} evaluations ({} of {} starts failed), "
      "noise {:.3g}, lengthscales min {:.3g} max {:.3g}, jitter {:.1g}",
      metric.name, report.objective, report.evaluations, report.failed_starts, report.starts,
      model_.noise_variance(), ls.size() > 0 ? ls.minCoeff() : 0.0,
      ls.size() > 0 ? ls.maxCoeff() : 0.0, report.jitter);
}

void GpSurrogate::predict(const Eigen::MatrixXd& X, Eigen::VectorXd& mean,
                          Eigen::VectorXd& variance) const {
  if (!fitted_) throw sdk::Error("predict before fit");
  if (X.cols() != dim_) {
    throw sdk::InvalidArgument(
        fmt::format("predict got {} columns, the space has {}", X.cols(), dim_));
  }
  Eigen::MatrixXd z;  // one allocation per call with one-hot categoricals, none otherwise
  model_.predict(inputs(X, z), mean, variance);
}

void GpSurrogate::sample(const Eigen::MatrixXd& X, std::size_t num_samples, std::mt19937_64& rng,
                         Eigen::MatrixXd& out) const {
  if (!fitted_) throw sdk::Error("sample before fit");
  if (X.cols() != dim_) {
    throw sdk::InvalidArgument(
        fmt::format("sample got {} columns, the space has {}", X.cols(), dim_));
  }
  try {
    Eigen::MatrixXd z;
    model_.sample(inputs(X, z), num_samples, rng, out);
  } catch (const std::runtime_error& e) {
    throw sdk::Error(e.what());
  }
}

}  // namespace arbo::plugins
