// SPDX-License-Identifier: MIT
/// @file
/// @brief The study's dataset, grown in amortized constant time per observation
/// (engine-internal).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "arbo/sdk/dataset.hpp"

namespace arbo::kernel {

/// The observations of a study as plugins see them (`sdk::Dataset`), filled one observation at
/// a time.
///
/// `sdk::Dataset` holds column-major matrices of exactly n rows, so appending one row to it
/// copies all n (`Dataset::append` is O(n d)): loading a study of 40,000 observations, or a
/// model-free study of 10^5 evaluations, spent nearly all its time there. Appended rows are
/// kept here, row-major in amortized O(d + m), and copied into the dataset in one block when a
/// caller asks for it (`view`), so a study that loads n observations copies each once, and a
/// proposal whose plugins read no data (`empty`) copies nothing.
class DatasetBuffer {
 public:
  /// Empties it for dimension `d` and the given black-box constraint names (m = their
  /// number); `maximize` is the user's direction, copied to the datasets handed out.
  void reset(std::size_t d, std::vector<std::string> constraint_names, bool maximize);

  /// Appends one completed observation: `x` (length d), `y_min` (minimization sense) and `c`
  /// (length m, normalized: <= 0 iff satisfied), in the conventions of `sdk::Dataset::append`.
  /// Amortized O(d + m).
  /// @throws sdk::InvalidArgument when `x` or `c` has the wrong length (as Dataset::append).
  void append(const Eigen::VectorXd& x, double y_min, const Eigen::VectorXd& c);
  /// Appends one failed evaluation. Amortized O(d).
  /// @throws sdk::InvalidArgument when `x` has not length d.
  void append_failed(const Eigen::VectorXd& x);

  /// Sets the points being evaluated (`sdk::Dataset::X_pending` of `view`), replacing the
  /// previous ones; each of length d. O(p d).
  /// @throws sdk::InvalidArgument when a point has not length d.
  void set_pending(const std::vector<Eigen::VectorXd>& points);

  /// The points of the last `set_pending` (p x d), without bringing `view` up to date. O(1).
  const Eigen::MatrixXd& pending() const noexcept { return view_.X_pending; }

  /// Completed observations appended so far (whether `view` has copied them yet or not).
  std::size_t size() const noexcept { return view_size_ + y_.size(); }

  /// The dataset with every appended row, in order: the same matrices `sdk::Dataset::append`
  /// called row by row would have built. Copies the rows appended since the last call in one
  /// block: O((n + k) (d + m)) for k new rows, O(1) when there are none. The reference stays
  /// valid as long as the buffer; its contents change at the next `view` after an append.
  const sdk::Dataset& view();
  /// A dataset of the same dimension, constraint names and direction with no rows: what a
  /// proposal gets whose plugins read no data (sdk::IgnoresDataWithoutModel). O(1).
  const sdk::Dataset& empty() const noexcept { return empty_; }

  /// Rows (completed and failed) written into the view's matrices so far; a `view` that adds
  /// k rows to n writes n + k. About n for n appends and one `view`; about n^2 / 2 when `view`
  /// follows every append. For tests that check that no proposal copies what it does not read.
  std::int64_t rows_copied() const noexcept { return rows_copied_; }

 private:
  sdk::Dataset view_;
  sdk::Dataset empty_;
  std::size_t view_size_ = 0;  // completed rows in view_
  // Rows not yet in view_, row-major.
  std::vector<double> x_, y_, c_, x_failed_;
  std::vector<std::uint8_t> feasible_;
  Eigen::Index failed_ = 0;  // rows in x_failed_
  std::int64_t rows_copied_ = 0;
};

}  // namespace arbo::kernel
