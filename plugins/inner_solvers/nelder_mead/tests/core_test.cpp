// SPDX-License-Identifier: MIT
// The Nelder-Mead core on functions with known minima, its options and its stopping rules.
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "nelder_mead.hpp"

namespace {

namespace nm = arbo::plugins::nelder_mead;
constexpr double kInf = std::numeric_limits<double>::infinity();

double rosenbrock(const Eigen::VectorXd& x) {
  double s = 0.0;
  for (Eigen::Index i = 0; i + 1 < x.size(); ++i) {
    const double t = x[i + 1] - x[i] * x[i];
    s += 100.0 * t * t + (1.0 - x[i]) * (1.0 - x[i]);
  }
  return s;
}

Eigen::VectorXd unbounded(Eigen::Index n, double sign) {
  return Eigen::VectorXd::Constant(n, sign * kInf);
}

TEST(nelder_mead_core, rosenbrock_2d_from_the_classic_start) {
  Eigen::VectorXd x0(2);
  x0 << -1.2, 1.0;
  nm::Workspace ws;
  nm::Options o;
  o.xatol = o.fatol = 1e-10;
  o.maxiter = 5000;
  o.maxfev = 5000;
  const nm::Result r = nm::minimize(rosenbrock, x0, unbounded(2, -1), unbounded(2, 1), o, ws);
  EXPECT_EQ(r.status, nm::Status::Converged);
  EXPECT_NEAR(r.x[0], 1.0, 1e-4);
  EXPECT_NEAR(r.x[1], 1.0, 1e-4);
  EXPECT_LT(r.fun, 1e-8);
}

TEST(nelder_mead_core, rosenbrock_5d_adaptive) {
  // SciPy (adaptive, same tolerances) reaches 1 from here in 904 evaluations.
  Eigen::VectorXd x0(5);
  x0 << 1.3, 0.7, 0.8, 1.9, 1.2;
  nm::Workspace ws;
  nm::Options o;
  o.maxiter = 20000;
  o.maxfev = 20000;
  o.xatol = o.fatol = 1e-9;
  const nm::Result r = nm::minimize(rosenbrock, x0, unbounded(5, -1), unbounded(5, 1), o, ws);
  EXPECT_EQ(r.status, nm::Status::Converged);
  EXPECT_LT((r.x - Eigen::VectorXd::Ones(5)).cwiseAbs().maxCoeff(), 1e-3);
  EXPECT_LT(r.fun, 1e-12);
  EXPECT_EQ(r.nfev, 904);
}

TEST(nelder_mead_core, rosenbrock_5d_local_minimum_is_a_local_method) {
  // 5-D Rosenbrock has a local minimum near (-1, 1, 1, 1, 1) with f = 3.9308; SciPy ends there
  // from this start too (960 evaluations).
  Eigen::VectorXd x0(5);
  x0 << -0.5, 0.3, 1.5, -1.0, 0.8;
  nm::Workspace ws;
  nm::Options o;
  o.maxiter = o.maxfev = 20000;
  o.xatol = o.fatol = 1e-9;
  const nm::Result r = nm::minimize(rosenbrock, x0, unbounded(5, -1), unbounded(5, 1), o, ws);
  EXPECT_NEAR(r.fun, 3.930839434133027, 1e-9);
  EXPECT_NEAR(r.x[0], -0.96205102, 1e-6);
  EXPECT_EQ(r.nfev, 960);
}

TEST(nelder_mead_core, quadratic_with_the_minimum_outside_the_bounds_lands_on_them) {
  // min (x0 - 3)^2 + (x1 + 1)^2 over [-1, 2] x [0, 1]: the corner (2, 0).
  auto f = [](const Eigen::VectorXd& x) {
    return (x[0] - 3) * (x[0] - 3) + (x[1] + 1) * (x[1] + 1);
  };
  Eigen::VectorXd x0(2), lo(2), hi(2);
  x0 << 0.5, 0.5;
  lo << -1, 0;
  hi << 2, 1;
  nm::Workspace ws;
  std::int64_t calls = 0;
  const nm::Result r = nm::minimize(
      [&](const Eigen::VectorXd& x) {
        ++calls;
        EXPECT_TRUE((x.array() >= lo.array()).all() && (x.array() <= hi.array()).all())
            << "every trial point is clipped to the bounds";
        return f(x);
      },
      x0, lo, hi, nm::Options{}, ws);
  EXPECT_NEAR(r.x[0], 2.0, 1e-4);
  EXPECT_NEAR(r.x[1], 0.0, 1e-4);
  EXPECT_EQ(r.nfev, calls);
}

TEST(nelder_mead_core, quadratic_in_ten_dimensions) {
  Eigen::VectorXd c = Eigen::VectorXd::LinSpaced(10, -1.0, 2.0);
  auto f = [&](const Eigen::VectorXd& x) { return (x - c).squaredNorm(); };
  nm::Workspace ws;
  nm::Options o;
  o.xatol = o.fatol = 1e-8;
  o.maxiter = o.maxfev = 100000;
  const nm::Result r =
      nm::minimize(f, Eigen::VectorXd::Zero(10), unbounded(10, -1), unbounded(10, 1), o, ws);
  EXPECT_EQ(r.status, nm::Status::Converged);
  EXPECT_LT((r.x - c).cwiseAbs().maxCoeff(), 1e-3);
}

TEST(nelder_mead_core, default_caps_are_200_n) {
  // A function that never lets the simplex converge: values grow with every call.
  std::int64_t calls = 0;
  auto f = [&](const Eigen::VectorXd&) { return static_cast<double>(calls++); };
  nm::Workspace ws;
  const nm::Result r =
      nm::minimize(f, Eigen::VectorXd::Ones(3), unbounded(3, -1), unbounded(3, 1), {}, ws);
  EXPECT_LE(r.nfev, 600);
  EXPECT_LE(r.nit, 600);
  EXPECT_TRUE(r.status == nm::Status::MaxFev || r.status == nm::Status::MaxIter);
  EXPECT_EQ(r.nfev, calls);
}

TEST(nelder_mead_core, initial_simplex_is_scipys) {
  // The first n + 1 evaluations are x0 and x0 with one coordinate scaled by 1.05 (or set to
  // 0.00025 when zero), clipped to the bounds.
  std::vector<Eigen::VectorXd> seen;
  auto f = [&](const Eigen::VectorXd& x) {
    seen.push_back(x);
    return x.squaredNorm();
  };
  Eigen::VectorXd x0(3), lo(3), hi(3);
  x0 << 2.0, 0.0, -4.0;
  lo << -5, -5, -4.1;
  hi << 2.05, 5, 5;
  nm::Options o;
  o.maxfev = 4;
  nm::Workspace ws;
  nm::minimize(f, x0, lo, hi, o, ws);
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_EQ(seen[0], x0);
  EXPECT_DOUBLE_EQ(seen[1][0], 2.05);  // 2.1 clipped
  EXPECT_DOUBLE_EQ(seen[2][1], 0.00025);
  EXPECT_DOUBLE_EQ(seen[3][2], -4.1);  // -4.2 clipped
}

TEST(nelder_mead_core, observer_can_stop_a_run) {
  nm::Workspace ws;
  int passes = 0;
  const nm::Result r =
      nm::minimize(rosenbrock, Eigen::VectorXd::Zero(4), unbounded(4, -1), unbounded(4, 1), {}, ws,
                   [&](const Eigen::VectorXd&, double, std::int64_t) { return ++passes < 7; });
  EXPECT_EQ(r.status, nm::Status::Stopped);
  EXPECT_EQ(passes, 7);
}

TEST(nelder_mead_core, infinite_values_are_worst_vertices) {
  // x0 + x1 >= 1 rejected by +inf: the simplex stays in the feasible half-plane.
  auto f = [](const Eigen::VectorXd& x) {
    if (x[0] + x[1] > 1.0) return kInf;
    return (x[0] - 2) * (x[0] - 2) + (x[1] - 2) * (x[1] - 2);
  };
  Eigen::VectorXd x0(2);
  x0 << 0.1, 0.2;
  nm::Workspace ws;
  const nm::Result r = nm::minimize(f, x0, unbounded(2, -1), unbounded(2, 1), {}, ws);
  EXPECT_TRUE(std::isfinite(r.fun));
  EXPECT_LE(r.x[0] + r.x[1], 1.0);
  EXPECT_NEAR(r.x[0] + r.x[1], 1.0, 1e-2) << "the optimum (0.5, 0.5) is on the boundary";
}

TEST(nelder_mead_core, workspace_is_reused_across_dimensions) {
  nm::Workspace ws;
  for (Eigen::Index n : {2, 6, 3}) {
    const nm::Result r =
        nm::minimize([](const Eigen::VectorXd& x) { return x.squaredNorm(); },
                     Eigen::VectorXd::Constant(n, 0.7), unbounded(n, -1), unbounded(n, 1), {}, ws);
    EXPECT_EQ(r.x.size(), n);
    EXPECT_LT(r.fun, 1e-6);
  }
}

}  // namespace
