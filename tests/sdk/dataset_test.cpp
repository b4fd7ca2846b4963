// SPDX-License-Identifier: MIT
// Tests of the Dataset view: appending, incumbents and metric targets.
#include <gtest/gtest.h>

#include "arbo/sdk/dataset.hpp"
#include "arbo/sdk/error.hpp"
#include "common/vectors.hpp"

namespace arbo::sdk {
namespace {

using arbo::test::vec;

TEST(Dataset, ResetAndAppend) {
  Dataset d;
  d.reset(2, {"mass", "stress"});
  EXPECT_EQ(d.size(), 0u);
  EXPECT_EQ(d.dim(), 2u);
  EXPECT_EQ(d.num_constraints(), 2u);
  EXPECT_FALSE(d.best_feasible().has_value());
  EXPECT_FALSE(d.incumbent().has_value());

  d.append(vec({0.1, 0.2}), 5.0, vec({-1.0, -0.5}));  // feasible
  d.append(vec({0.3, 0.4}), 1.0, vec({0.5, -2.0}));   // infeasible, better y
  d.append(vec({0.5, 0.6}), 3.0, vec({0.0, 0.0}));    // feasible: <= 0 holds at the boundary
  d.append(vec({0.7, 0.8}), 3.0, vec({-3.0, -3.0}));  // tie: the first row stays best
  ASSERT_EQ(d.size(), 4u);
  EXPECT_EQ(d.X.rows(), 4);
  EXPECT_EQ(d.X.row(1), vec({0.3, 0.4}).transpose());
  EXPECT_EQ(d.y, vec({5.0, 1.0, 3.0, 3.0}));
  EXPECT_EQ(d.C.row(1), vec({0.5, -2.0}).transpose());
  EXPECT_EQ(d.feasible, (std::vector<std::uint8_t>{1, 0, 1, 1}));
  EXPECT_EQ(d.best_feasible(), std::optional<std::size_t>(2));
  EXPECT_EQ(d.incumbent(), std::optional<double>(3.0));

  EXPECT_EQ(d.target(Metric{}), d.y);
  EXPECT_EQ(d.target(Metric{1, "stress"}), vec({-0.5, -2.0, 0.0, -3.0}));
  EXPECT_THROW(d.target(Metric{2, "nope"}), InvalidArgument);
  EXPECT_THROW(d.target(Metric{-2, "nope"}), InvalidArgument);
  EXPECT_TRUE(Metric{}.is_objective());
  EXPECT_FALSE((Metric{0, "mass"}).is_objective());

  EXPECT_THROW(d.append(vec({0.1}), 1.0, vec({0.0, 0.0})), InvalidArgument);
  EXPECT_THROW(d.append(vec({0.1, 0.2}), 1.0, vec({0.0})), InvalidArgument);
  EXPECT_EQ(d.size(), 4u);

  // reset clears everything.
  d.reset(3, {});
  EXPECT_EQ(d.size(), 0u);
  EXPECT_EQ(d.dim(), 3u);
  EXPECT_EQ(d.C.cols(), 0);
  EXPECT_TRUE(d.feasible.empty());
  EXPECT_EQ(d.X_failed.rows(), 0);
  EXPECT_EQ(d.X_pending.cols(), 3);
}

TEST(Dataset, AllInfeasibleHasNoIncumbent) {
  Dataset d;
  d.reset(1, {"c"});
  d.append(vec({0.0}), -10.0, vec({1e-12}));
  d.append(vec({1.0}), -20.0, vec({3.0}));
  EXPECT_EQ(d.feasible, (std::vector<std::uint8_t>{0, 0}));
  EXPECT_FALSE(d.best_feasible().has_value());
  EXPECT_FALSE(d.incumbent().has_value());
  d.append(vec({2.0}), 7.0, vec({-1.0}));
  EXPECT_EQ(d.best_feasible(), std::optional<std::size_t>(2));
  EXPECT_EQ(d.incumbent(), std::optional<double>(7.0));
}

TEST(Dataset, UnconstrainedRowsAreFeasible) {
  Dataset d;
  d.reset(2, {});
  d.append(vec({0.0, 0.0}), 2.0, Eigen::VectorXd());
  d.append(vec({1.0, 1.0}), -1.0, Eigen::VectorXd());
  EXPECT_EQ(d.feasible, (std::vector<std::uint8_t>{1, 1}));
  EXPECT_EQ(d.C.rows(), 2);
  EXPECT_EQ(d.best_feasible(), std::optional<std::size_t>(1));
  EXPECT_EQ(d.incumbent(), std::optional<double>(-1.0));
}

TEST(Dataset, AppendFailed) {
  Dataset d;
  d.reset(2, {"c"});
  d.append_failed(vec({0.5, 0.5}));
  d.append_failed(vec({0.25, 0.75}));
  EXPECT_EQ(d.X_failed.rows(), 2);
  EXPECT_EQ(d.X_failed.row(1), vec({0.25, 0.75}).transpose());
  EXPECT_EQ(d.size(), 0u);  // failures are not observations
  EXPECT_THROW(d.append_failed(vec({0.5})), InvalidArgument);
  EXPECT_EQ(d.X_failed.rows(), 2);
}

TEST(Dataset, AppendWithoutResetNeedsMatchingShape) {
  Dataset d;  // 0 x 0: only zero-dimensional points fit
  EXPECT_THROW(d.append(vec({1.0}), 0.0, Eigen::VectorXd()), InvalidArgument);
  d.append(Eigen::VectorXd(), 4.0, Eigen::VectorXd());
  EXPECT_EQ(d.size(), 1u);
  EXPECT_EQ(d.incumbent(), std::optional<double>(4.0));
}

}  // namespace
}  // namespace arbo::sdk
