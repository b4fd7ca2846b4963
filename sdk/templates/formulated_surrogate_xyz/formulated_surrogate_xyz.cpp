// SPDX-License-Identifier: MIT
#include "formulated_surrogate_xyz.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include <arbo/sdk/constraint.hpp>
#include <arbo/sdk/error.hpp>

namespace xyz {

namespace {

using arbo::sdk::LinearRow;
using arbo::sdk::RowSense;
using arbo::sdk::VarType;

// Population variance of `count` values from their sum and their sum of squares.
double side_variance(double sum, double sum_sq, double count) {
  const double mean = sum / count;
  return std::max(0.0, sum_sq / count - mean * mean);
}

}  // namespace

const arbo::sdk::ParamSpecList& FormulatedSurrogateXyz::params() {
  static const arbo::sdk::ParamSpecList specs{arbo::sdk::ParamSpec::integer(
      "min_leaf", "Fewest observations on each side of the split.", 1, 1, 1e6)};
  return specs;
}

FormulatedSurrogateXyz::FormulatedSurrogateXyz(const arbo::sdk::CreateArgs& args)
    : min_leaf_(args.params.get_int("min_leaf")),
      lower_(args.space.lower()),
      upper_(args.space.upper()) {
  // The same rule as arbo::sdk::add_point_variables: these coordinates are integer (or
  // binary) variables in a model, so a split between two values leaves no point in between.
  for (const arbo::sdk::Parameter& p : args.space.parameters()) {
    integral_.push_back(p.type != arbo::sdk::ParamType::Real &&
                        !(p.type == arbo::sdk::ParamType::Integer && p.log_scale));
  }
}

void FormulatedSurrogateXyz::fit(const arbo::sdk::Dataset& data, const arbo::sdk::Metric& metric) {
  if (data.size() == 0) throw arbo::sdk::Error("the dataset is empty");
  if (data.X.cols() != lower_.size()) {
    throw arbo::sdk::Error("points do not match the space's dimension");
  }
  const Eigen::VectorXd y = data.target(metric);
  const Eigen::Index n = y.size();
  const double nd = static_cast<double>(n);
  const double total = y.sum();
  const double total_sq = y.squaredNorm();
  const double all_variance = side_variance(total, total_sq, nd);

  // Least squares over every coordinate and every cut between two distinct observed values:
  // sort once per coordinate, then sweep with prefix sums. Ties keep the first cut found
  // (lowest coordinate, then lowest threshold), so the fit is deterministic.
  feature_ = -1;
  double best_sse = total_sq - total * total / nd;  // the constant model's
  const auto min_leaf = static_cast<Eigen::Index>(min_leaf_);
  std::vector<Eigen::Index> order(static_cast<std::size_t>(n));
  for (Eigen::Index j = 0; j < data.X.cols(); ++j) {
    std::iota(order.begin(), order.end(), Eigen::Index{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](Eigen::Index a, Eigen::Index b) { return data.X(a, j) < data.X(b, j); });
    double sum = 0.0, sum_sq = 0.0;
    for (Eigen::Index k = 0; k + 1 < n; ++k) {
      const Eigen::Index i = order[static_cast<std::size_t>(k)];
      sum += y[i];
      sum_sq += y[i] * y[i];
      const double here = data.X(i, j);
      const double next = data.X(order[static_cast<std::size_t>(k + 1)], j);
      if (!(here < next) || k + 1 < min_leaf || n - k - 1 < min_leaf) continue;
      const double left_n = static_cast<double>(k + 1);
      const double right_n = nd - left_n;
      const double sse = (sum_sq - sum * sum / left_n) +
                         ((total_sq - sum_sq) - (total - sum) * (total - sum) / right_n);
      // A relative margin, so that rounding in the prefix sums never picks a split that is
      // no better than the constant model.
      if (sse < best_sse - 1e-12 * std::max(1.0, std::abs(best_sse))) {
        best_sse = sse;
        feature_ = static_cast<int>(j);
        threshold_ = 0.5 * (here + next);
      }
    }
  }

  if (feature_ < 0) {
    left_ = {total / nd, all_variance + all_variance / nd};
    right_ = left_;
    threshold_ = 0.0;
    return;
  }
  double sums[2] = {0.0, 0.0}, sums_sq[2] = {0.0, 0.0}, counts[2] = {0.0, 0.0};
  for (Eigen::Index i = 0; i < n; ++i) {
    const int s = data.X(i, feature_) <= threshold_ ? 0 : 1;
    sums[s] += y[i];
    sums_sq[s] += y[i] * y[i];
    counts[s] += 1.0;
  }
  Side* sides[2] = {&left_, &right_};
  for (int s = 0; s < 2; ++s) {
    sides[s]->mean = sums[s] / counts[s];
    sides[s]->variance = side_variance(sums[s], sums_sq[s], counts[s]) + all_variance / counts[s];
  }
}

void FormulatedSurrogateXyz::predict(const Eigen::MatrixXd& X, Eigen::VectorXd& mean,
                                     Eigen::VectorXd& variance) const {
  mean.resize(X.rows());
  variance.resize(X.rows());
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    const Side& side = feature_ < 0 ? left_ : side_of(X(i, feature_));
    mean[i] = side.mean;
    variance[i] = side.variance;
  }
}

double FormulatedSurrogateXyz::left_bound() const {
  return integral_[static_cast<std::size_t>(feature_)] ? std::floor(threshold_) : threshold_;
}

double FormulatedSurrogateXyz::right_bound() const {
  return integral_[static_cast<std::size_t>(feature_)] ? std::floor(threshold_) + 1.0 : threshold_;
}

arbo::sdk::FormulatesSurrogate::Output FormulatedSurrogateXyz::formulate(
    arbo::sdk::Model& model, const arbo::sdk::PointVariables& point) const {
  if (point.x_vars.size() != static_cast<std::size_t>(lower_.size())) {
    throw arbo::sdk::InvalidArgument("the point variables do not match the space");
  }
  Output out;
  if (feature_ < 0) {
    // Constant model: nothing depends on x. The variables still exist so that acquisitions
    // that need them (lcb with kappa > 0) work on a model fitted to one observation.
    const double sd = std::sqrt(left_.variance);
    out.mean_constant = left_.mean;
    out.stddev_var = model.add_variable("xyz_sd", VarType::Continuous, 0.0, sd);
    out.variance_var =
        model.add_variable("xyz_var", VarType::Continuous, left_.variance, left_.variance);
    return out;
  }
  const auto j = static_cast<Eigen::Index>(feature_);
  const int x = point.x_vars[static_cast<std::size_t>(feature_)];
  const double lo = lower_[j], hi = upper_[j];
  const double L = left_bound(), R = right_bound();

  // b = 1 iff the point is on the left side (x_j <= L); b = 0: right side (x_j >= R).
  const int b = model.add_variable("xyz_left", VarType::Binary, 0.0, 1.0);
  model.add_linear_row(
      LinearRow{"xyz_right_side", {{x, 1.0}, {b, R - lo}}, RowSense::GreaterEqual, R});
  model.add_linear_row(
      LinearRow{"xyz_left_side", {{x, 1.0}, {b, hi - L}}, RowSense::LessEqual, hi});

  // Mean = right.mean + (left.mean - right.mean) b: affine in b, as Output::mean must be.
  out.mean_constant = right_.mean;
  out.mean.push_back({b, left_.mean - right_.mean});

  // Standard deviation hypograph s <= sd(side): s <= sd_R + (sd_L - sd_R) b, a linear (hence
  // convex) row; maximizing +kappa s drives s to the side's sd exactly.
  const double sd_l = std::sqrt(left_.variance), sd_r = std::sqrt(right_.variance);
  const int s = model.add_variable("xyz_sd", VarType::Continuous, 0.0, std::max(sd_l, sd_r));
  model.add_linear_row(
      LinearRow{"xyz_sd_of_side", {{s, 1.0}, {b, sd_r - sd_l}}, RowSense::LessEqual, sd_r});
  out.stddev_var = s;

  // Variance epigraph v >= var(side): v >= var_R + (var_L - var_R) b.
  const int v =
      model.add_variable("xyz_var", VarType::Continuous, std::min(left_.variance, right_.variance),
                         std::max(left_.variance, right_.variance));
  model.add_linear_row(LinearRow{"xyz_var_of_side",
                                 {{v, 1.0}, {b, right_.variance - left_.variance}},
                                 RowSense::GreaterEqual,
                                 right_.variance});
  out.variance_var = v;
  return out;
}

bool FormulatedSurrogateXyz::decode(const arbo::sdk::Model& /*model*/,
                                    const arbo::sdk::PointVariables& /*point*/,
                                    const std::vector<double>& /*solution*/,
                                    const std::vector<const arbo::sdk::Constraint*>& constraints,
                                    Eigen::VectorXd& x) const {
  if (feature_ < 0) return false;  // no side to be in the middle of
  const auto j = static_cast<Eigen::Index>(feature_);
  // The side follows from the solver's point itself (x_j <= L or x_j >= R), so the binary's
  // value need not be looked up in `solution`.
  const bool left = x[j] <= left_bound();
  double middle = left ? 0.5 * (lower_[j] + left_bound()) : 0.5 * (right_bound() + upper_[j]);
  if (integral_[static_cast<std::size_t>(feature_)]) middle = std::floor(middle);
  Eigen::VectorXd query = x;
  query[j] = middle;
  if (!arbo::sdk::satisfies(constraints, query)) return false;
  x = std::move(query);
  return true;
}

}  // namespace xyz
