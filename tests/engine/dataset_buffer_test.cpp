// SPDX-License-Identifier: MIT
// The kernel's dataset buffer: the same dataset as sdk::Dataset::append row by row, copied
// into the plugins' matrices once per `view` rather than once per observation.
#include <gtest/gtest.h>

#include <random>

#include "arbo/sdk/error.hpp"
#include "engine/dataset_buffer.hpp"

namespace arbo::kernel {
namespace {

void expect_same(const sdk::Dataset& a, const sdk::Dataset& b) {
  EXPECT_EQ(a.X, b.X);
  EXPECT_EQ(a.y, b.y);
  EXPECT_EQ(a.C.rows(), b.C.rows());
  EXPECT_EQ(a.C, b.C);
  EXPECT_EQ(a.feasible, b.feasible);
  EXPECT_EQ(a.X_failed, b.X_failed);
  EXPECT_EQ(a.X_pending.rows(), b.X_pending.rows());
  EXPECT_EQ(a.X_pending.cols(), b.X_pending.cols());
  EXPECT_EQ(a.constraint_names, b.constraint_names);
  EXPECT_EQ(a.maximize, b.maximize);
}

// Random completed and failed rows, with views taken at random moments, give exactly what
// sdk::Dataset::append and append_failed give; for m = 0 and m = 2 constraints.
TEST(DatasetBuffer, ViewsEqualTheDatasetAppendedRowByRow) {
  for (const std::size_t m : {std::size_t{0}, std::size_t{2}}) {
    std::vector<std::string> names;
    for (std::size_t j = 0; j < m; ++j) names.push_back("c" + std::to_string(j));
    DatasetBuffer buffer;
    buffer.reset(3, names, true);
    sdk::Dataset reference;
    reference.reset(3, names);
    reference.maximize = true;
    expect_same(buffer.view(), reference);
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (int i = 0; i < 300; ++i) {
      Eigen::VectorXd x(3);
      for (Eigen::Index k = 0; k < 3; ++k) x[k] = u(rng);
      if (i % 7 == 3) {
        buffer.append_failed(x);
        reference.append_failed(x);
      } else {
        Eigen::VectorXd c(static_cast<Eigen::Index>(m));
        for (Eigen::Index k = 0; k < c.size(); ++k) c[k] = u(rng);
        const double y = u(rng);
        buffer.append(x, y, c);
        reference.append(x, y, c);
      }
      EXPECT_EQ(buffer.size(), reference.size());
      if (u(rng) > 0.8) expect_same(buffer.view(), reference);
    }
    expect_same(buffer.view(), reference);
    expect_same(buffer.view(), reference);  // nothing new: unchanged
  }
}

// Loading n observations and then viewing them writes each row once; viewing after every
// append rewrites all of them each time. This is what made resuming a study of 40,000
// observations take seconds.
TEST(DatasetBuffer, RowsAreCopiedOncePerViewNotOncePerAppend) {
  DatasetBuffer once;
  once.reset(2, {"c"}, false);
  DatasetBuffer every;
  every.reset(2, {"c"}, false);
  constexpr int kRows = 1000;
  for (int i = 0; i < kRows; ++i) {
    const Eigen::VectorXd x = Eigen::VectorXd::Constant(2, i);
    once.append(x, i, Eigen::VectorXd::Constant(1, -1.0));
    every.append(x, i, Eigen::VectorXd::Constant(1, -1.0));
    every.view();
  }
  EXPECT_EQ(once.rows_copied(), 0);
  EXPECT_EQ(once.size(), static_cast<std::size_t>(kRows));
  EXPECT_EQ(once.view().size(), static_cast<std::size_t>(kRows));
  EXPECT_EQ(once.rows_copied(), kRows);
  once.view();
  EXPECT_EQ(once.rows_copied(), kRows);
  EXPECT_EQ(every.rows_copied(), kRows * (kRows + 1) / 2);
  expect_same(once.view(), every.view());
}

TEST(DatasetBuffer, EmptyHasTheShapeAndNoRows) {
  DatasetBuffer buffer;
  buffer.reset(4, {"a", "b"}, true);
  buffer.append(Eigen::VectorXd::Zero(4), 1.0, Eigen::VectorXd::Zero(2));
  buffer.append_failed(Eigen::VectorXd::Zero(4));
  const sdk::Dataset& e = buffer.empty();
  EXPECT_EQ(e.size(), 0u);
  EXPECT_EQ(e.dim(), 4u);
  EXPECT_EQ(e.num_constraints(), 2u);
  EXPECT_EQ(e.C.cols(), 2);
  EXPECT_EQ(e.X_failed.rows(), 0);
  EXPECT_EQ(e.X_failed.cols(), 4);
  EXPECT_TRUE(e.maximize);
  EXPECT_EQ(buffer.rows_copied(), 0);
}

TEST(DatasetBuffer, WrongLengthsAreRejectedAsByTheDataset) {
  DatasetBuffer buffer;
  buffer.reset(2, {"c"}, false);
  EXPECT_THROW(buffer.append(Eigen::VectorXd::Zero(3), 0.0, Eigen::VectorXd::Zero(1)),
               sdk::InvalidArgument);
  EXPECT_THROW(buffer.append(Eigen::VectorXd::Zero(2), 0.0, Eigen::VectorXd::Zero(2)),
               sdk::InvalidArgument);
  EXPECT_THROW(buffer.append_failed(Eigen::VectorXd::Zero(1)), sdk::InvalidArgument);
  EXPECT_EQ(buffer.size(), 0u);
  EXPECT_EQ(buffer.view().X_failed.rows(), 0);
}

}  // namespace
}  // namespace arbo::kernel
