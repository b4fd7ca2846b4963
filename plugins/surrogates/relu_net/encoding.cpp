// SPDX-License-Identifier: MIT
#include "encoding.hpp"

#include <cmath>

#include <fmt/format.h>

#include <arbo/sdk/error.hpp>

namespace arbo::plugins::relu_net {

Encoding::Encoding(const sdk::Space& space, const EncodingLimits& limits) {
  coords_.resize(space.size());
  const Eigen::VectorXd& lower = space.lower();
  const Eigen::VectorXd& upper = space.upper();
  for (std::size_t i = 0; i < space.size(); ++i) {
    const sdk::Parameter& p = space[i];
    const auto j = static_cast<Eigen::Index>(i);
    CoordinateEncoding& c = coords_[i];
    c.offset = width_;
    // Integers: the paper one-hot encodes every discrete coordinate (Sec. 3, App. D: better
    // than an ordinal input); a wide integer range would make the input (and the MILP) huge,
    // so above `max_onehot_values` values the integer is scaled like a real and stays an
    // integer variable of the formulation.
    const double int_values =
        p.type == sdk::ParamType::Integer ? std::floor(p.upper) - std::ceil(p.lower) + 1.0 : 0.0;
    if (p.type == sdk::ParamType::Binary) {
      c.kind = InputKind::Binary;
      c.width = 1;
    } else if (p.type == sdk::ParamType::Categorical) {
      c.kind = InputKind::OneHot;
      for (std::size_t k = 0; k < p.choices.size(); ++k) c.values.push_back(static_cast<double>(k));
      c.width = c.values.size();
    } else if (p.type == sdk::ParamType::Integer &&
               int_values <= static_cast<double>(limits.max_onehot_values)) {
      c.kind = InputKind::OneHot;
      for (double v = std::ceil(p.lower); v <= std::floor(p.upper); v += 1.0) {
        c.values.push_back(p.log_scale ? std::log(v) : v);
      }
      c.width = c.values.size();
    } else {
      c.kind = InputKind::Scaled;
      c.width = 1;
      c.lower = lower[j];
      const double range = upper[j] - lower[j];
      if (!std::isfinite(lower[j]) || !std::isfinite(upper[j]) || !std::isfinite(range)) {
        throw sdk::Error(fmt::format(
            "surrogate/relu_net cannot encode parameter '{}': its inputs are scaled to [0, 1] "
            "by its bounds, which must be finite with a finite range (got [{}, {}])",
            p.name, p.lower, p.upper));
      }
      c.range = range > 0.0 ? range : 1.0;
    }
    width_ += c.width;
    if (width_ > limits.max_inputs) {
      throw sdk::Error(fmt::format(
          "surrogate/relu_net cannot encode parameter '{}': it brings the network's input "
          "width to {} (one input per category, per value of an integer with at most {} values, "
          "per binary and per scaled coordinate), more than max_inputs = {}",
          p.name, width_, limits.max_onehot_values, limits.max_inputs));
    }
  }
}

std::size_t Encoding::onehot_index(std::size_t i, double v) const {
  const CoordinateEncoding& c = coords_[i];
  std::size_t best = 0;
  double dist = std::abs(c.values[0] - v);
  for (std::size_t k = 1; k < c.values.size(); ++k) {
    const double d = std::abs(c.values[k] - v);
    if (d < dist) {
      dist = d;
      best = k;
    }
  }
  return best;
}

std::size_t Encoding::encode_sparse(const Eigen::Ref<const Eigen::VectorXd>& x, int* index,
                                    double* value) const {
  std::size_t nnz = 0;
  for (std::size_t i = 0; i < coords_.size(); ++i) {
    const CoordinateEncoding& c = coords_[i];
    const double xi = x[static_cast<Eigen::Index>(i)];
    double v = 0.0;
    std::size_t at = c.offset;
    switch (c.kind) {
      case InputKind::OneHot:
        at += onehot_index(i, xi);
        v = 1.0;
        break;
      case InputKind::Binary: v = xi > 0.5 ? 1.0 : 0.0; break;
      case InputKind::Scaled: v = (xi - c.lower) / c.range; break;
    }
    if (v != 0.0) {
      index[nnz] = static_cast<int>(at);
      value[nnz] = v;
      ++nnz;
    }
  }
  return nnz;
}

void Encoding::encode_dense(const Eigen::Ref<const Eigen::VectorXd>& x,
                            Eigen::VectorXd& out) const {
  if (out.size() != static_cast<Eigen::Index>(width_))
    out.resize(static_cast<Eigen::Index>(width_));
  out.setZero();
  for (std::size_t i = 0; i < coords_.size(); ++i) {
    const CoordinateEncoding& c = coords_[i];
    const double xi = x[static_cast<Eigen::Index>(i)];
    const auto at = static_cast<Eigen::Index>(c.offset);
    switch (c.kind) {
      case InputKind::OneHot: out[at + static_cast<Eigen::Index>(onehot_index(i, xi))] = 1.0; break;
      case InputKind::Binary: out[at] = xi > 0.5 ? 1.0 : 0.0; break;
      case InputKind::Scaled: out[at] = (xi - c.lower) / c.range; break;
    }
  }
}

}  // namespace arbo::plugins::relu_net
