// SPDX-License-Identifier: MIT
#include "engine/dataset_buffer.hpp"

#include <utility>

#include "arbo/sdk/error.hpp"

namespace arbo::kernel {

namespace {

using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Appends `k` rows, stored row-major in `rows`, to `M` (column-major) in one resize: one copy
// of M's n rows, not one per appended row.
void append_rows(Eigen::MatrixXd& M, const std::vector<double>& rows, Eigen::Index k) {
  const Eigen::Index n = M.rows();
  M.conservativeResize(n + k, Eigen::NoChange);
  if (M.cols() > 0) M.bottomRows(k) = Eigen::Map<const RowMajor>(rows.data(), k, M.cols());
}

}  // namespace

void DatasetBuffer::reset(std::size_t d, std::vector<std::string> constraint_names, bool maximize) {
  view_.reset(d, constraint_names);
  view_.maximize = maximize;
  empty_.reset(d, std::move(constraint_names));
  empty_.maximize = maximize;
  view_size_ = 0;
  x_.clear();
  y_.clear();
  c_.clear();
  x_failed_.clear();
  failed_ = 0;
  feasible_.clear();
  rows_copied_ = 0;
}

void DatasetBuffer::append(const Eigen::VectorXd& x, double y_min, const Eigen::VectorXd& c) {
  if (x.size() != view_.X.cols() || c.size() != view_.C.cols()) {
    throw sdk::InvalidArgument(
        "Dataset::append(): point or constraint vector has the wrong length");
  }
  x_.insert(x_.end(), x.data(), x.data() + x.size());
  y_.push_back(y_min);
  c_.insert(c_.end(), c.data(), c.data() + c.size());
  // The flag exactly as sdk::Dataset::append sets it.
  feasible_.push_back(static_cast<std::uint8_t>(c.size() == 0 || c.maxCoeff() <= 0.0));
}

void DatasetBuffer::append_failed(const Eigen::VectorXd& x) {
  if (x.size() != view_.X_failed.cols()) {
    throw sdk::InvalidArgument("Dataset::append_failed(): point has the wrong length");
  }
  x_failed_.insert(x_failed_.end(), x.data(), x.data() + x.size());
  ++failed_;
}

void DatasetBuffer::set_pending(const std::vector<Eigen::VectorXd>& points) {
  const Eigen::Index d = view_.X_pending.cols();
  view_.X_pending.resize(static_cast<Eigen::Index>(points.size()), d);
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (points[i].size() != d) {
      view_.X_pending.resize(0, d);
      throw sdk::InvalidArgument("DatasetBuffer::set_pending(): point has the wrong length");
    }
    view_.X_pending.row(static_cast<Eigen::Index>(i)) = points[i].transpose();
  }
}

const sdk::Dataset& DatasetBuffer::view() {
  if (!y_.empty()) {
    const auto k = static_cast<Eigen::Index>(y_.size());
    append_rows(view_.X, x_, k);
    append_rows(view_.C, c_, k);
    const Eigen::Index n = view_.y.size();
    view_.y.conservativeResize(n + k);
    view_.y.tail(k) = Eigen::Map<const Eigen::VectorXd>(y_.data(), k);
    view_.feasible.insert(view_.feasible.end(), feasible_.begin(), feasible_.end());
    view_size_ += y_.size();
    rows_copied_ += view_.X.rows();
    x_.clear();
    y_.clear();
    c_.clear();
    feasible_.clear();
  }
  if (failed_ > 0) {
    append_rows(view_.X_failed, x_failed_, failed_);
    rows_copied_ += view_.X_failed.rows();
    x_failed_.clear();
    failed_ = 0;
  }
  return view_;
}

}  // namespace arbo::kernel
