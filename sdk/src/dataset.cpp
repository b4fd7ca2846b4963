// SPDX-License-Identifier: MIT
#include "arbo/sdk/dataset.hpp"

#include "arbo/sdk/error.hpp"

namespace arbo::sdk {

Eigen::VectorXd Dataset::target(const Metric& metric) const {
  if (metric.is_objective()) return y;
  if (metric.index < 0 || metric.index >= C.cols()) {
    throw InvalidArgument("Dataset::target(): no constraint column " +
                          std::to_string(metric.index));
  }
  return C.col(metric.index);
}

std::optional<std::size_t> Dataset::best_feasible() const {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < size(); ++i) {
    if (feasible[i] &&
        (!best || y[static_cast<Eigen::Index>(i)] < y[static_cast<Eigen::Index>(*best)])) {
      best = i;
    }
  }
  return best;
}

std::optional<double> Dataset::incumbent() const {
  auto best = best_feasible();
  if (!best) return std::nullopt;
  return y[static_cast<Eigen::Index>(*best)];
}

void Dataset::reset(std::size_t d, std::vector<std::string> names) {
  const auto dd = static_cast<Eigen::Index>(d);
  constraint_names = std::move(names);
  X.resize(0, dd);
  y.resize(0);
  C.resize(0, static_cast<Eigen::Index>(constraint_names.size()));
  feasible.clear();
  X_failed.resize(0, dd);
  X_pending.resize(0, dd);
}

void Dataset::append(const Eigen::VectorXd& x, double y_min, const Eigen::VectorXd& c) {
  if (x.size() != X.cols() || c.size() != C.cols()) {
    throw InvalidArgument("Dataset::append(): point or constraint vector has the wrong length");
  }
  const Eigen::Index n = X.rows();
  X.conservativeResize(n + 1, Eigen::NoChange);
  X.row(n) = x.transpose();
  y.conservativeResize(n + 1);
  y[n] = y_min;
  C.conservativeResize(n + 1, Eigen::NoChange);
  if (C.cols() > 0) C.row(n) = c.transpose();
  feasible.push_back(static_cast<std::uint8_t>(c.size() == 0 || c.maxCoeff() <= 0.0));
}

void Dataset::append_failed(const Eigen::VectorXd& x) {
  if (x.size() != X_failed.cols()) {
    throw InvalidArgument("Dataset::append_failed(): point has the wrong length");
  }
  const Eigen::Index n = X_failed.rows();
  X_failed.conservativeResize(n + 1, Eigen::NoChange);
  X_failed.row(n) = x.transpose();
}

}  // namespace arbo::sdk
