// SPDX-License-Identifier: MIT
// c-TPE plugins from their real .so files: surrogate/tpe (Parzen estimators, splits),
// acquisition/ctpe (relative density ratios, ablations) and inner_solver/candidate_pool.
#include <cmath>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include <arbo/sdk/capabilities.hpp>
#include <arbo/sdk/testing/conformance.hpp>

namespace {

using namespace arbo::sdk;
using arbo::sdk::testing::PluginUnderTest;
using arbo::sdk::testing::TestContext;

const PluginUnderTest& library(const std::string& file) {
  static std::map<std::string, std::unique_ptr<PluginUnderTest>> loaded;
  auto& p = loaded[file];
  if (!p) p = std::make_unique<PluginUnderTest>(std::string(ARBO_PLUGIN_DIR) + "/" + file);
  return *p;
}

const ComponentInfo& info(Kind kind, const std::string& file, const std::string& name) {
  const ComponentInfo* i = library(file).find(kind, name);
  if (i == nullptr) throw std::runtime_error("component not found: " + name);
  return *i;
}

// A component created from its library, with its own context and parameters.
template <class T>
struct Made {
  Made(Kind kind, const std::string& file, const std::string& name, const Space& s,
       const std::map<std::string, ParamValue>& raw = {}, std::uint64_t seed = 7)
      : ctx(seed), space(s) {
    const ComponentInfo& ci = info(kind, file, name);
    params = validate_params(ci.params(), raw, name);
    object.reset(ci.create(CreateArgs{ctx, params, space}));
    ptr = dynamic_cast<T*>(object.get());
    if (ptr == nullptr) throw std::runtime_error("wrong kind: " + name);
  }
  T* operator->() { return ptr; }
  TestContext ctx;
  ParamSet params;
  Space space;
  std::unique_ptr<Component> object;
  T* ptr = nullptr;
};

struct Tpe : Made<Surrogate> {
  explicit Tpe(const Space& s, const std::map<std::string, ParamValue>& raw = {})
      : Made(Kind::Surrogate, "libarbo_surrogate_tpe.so", "tpe", s, raw) {}
  const DensityModel& density() const { return dynamic_cast<const DensityModel&>(*object); }
  double gamma() const { return dynamic_cast<const ReportsGoodFraction&>(*object).good_fraction(); }
};

struct Ctpe : Made<Acquisition> {
  explicit Ctpe(const Space& s, const std::string& mode = "ctpe")
      : Made(Kind::Acquisition, "libarbo_acquisition_ctpe.so", "ctpe", s, {{"mode", mode}}) {}
};

Dataset make_data(const Space& space, const Eigen::MatrixXd& X, const Eigen::VectorXd& y,
                  const Eigen::MatrixXd& C) {
  Dataset data;
  std::vector<std::string> names;
  for (Eigen::Index j = 0; j < C.cols(); ++j) names.push_back("c" + std::to_string(j));
  data.reset(space.size(), names);
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    data.append(X.row(i).transpose(), y[i],
                C.cols() > 0 ? Eigen::VectorXd(C.row(i).transpose()) : Eigen::VectorXd());
  }
  return data;
}

Metric objective() { return Metric{}; }
Metric constraint(int j) { return Metric{j, "c" + std::to_string(j)}; }

// Uniform random points of a space.
Eigen::MatrixXd random_points(const Space& space, std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  Eigen::MatrixXd X(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(space.size()));
  Eigen::VectorXd u(static_cast<Eigen::Index>(space.size()));
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    for (Eigen::Index j = 0; j < u.size(); ++j) u[j] = unit(rng);
    X.row(i) = space.from_unit(u).transpose();
  }
  return X;
}

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

// --- conformance ---------------------------------------------------------------------------

TEST(tpe_conformance, surrogate_tpe) {
  arbo::sdk::testing::expect_plugin_conforms(ARBO_PLUGIN_DIR "/libarbo_surrogate_tpe.so");
}
TEST(tpe_conformance, acquisition_ctpe) {
  arbo::sdk::testing::expect_plugin_conforms(ARBO_PLUGIN_DIR "/libarbo_acquisition_ctpe.so");
}
TEST(tpe_conformance, inner_solver_candidate_pool) {
  arbo::sdk::testing::expect_plugin_conforms(ARBO_PLUGIN_DIR
                                             "/libarbo_inner_solver_candidate_pool.so");
}

// --- Parzen estimators ---------------------------------------------------------------------

// Midpoint rule over [lo, hi] of exp(f).
template <class F>
double integrate(F f, double lo, double hi, int n = 20000) {
  const double h = (hi - lo) / n;
  double s = 0.0;
  for (int i = 0; i < n; ++i) s += std::exp(f(lo + (i + 0.5) * h));
  return s * h;
}

TEST(tpe_density, integrates_to_one_in_1d_with_truncation) {
  const Space space({Parameter::real("x", 0.0, 1.0)});
  // Points hugging the lower bound: their kernels lose mass to truncation unless renormalized.
  Eigen::MatrixXd X(6, 1);
  X << 0.0, 0.01, 0.03, 0.5, 0.97, 1.0;
  const Eigen::VectorXd y = X.col(0);
  Tpe tpe(space);
  tpe->fit(make_data(space, X, y, Eigen::MatrixXd(6, 0)), objective());
  Eigen::VectorXd x(1);
  const auto ll = [&](double v) {
    x[0] = v;
    return tpe.density().log_l(x);
  };
  const auto lg = [&](double v) {
    x[0] = v;
    return tpe.density().log_g(x);
  };
  EXPECT_NEAR(integrate(ll, 0.0, 1.0), 1.0, 1e-6);
  EXPECT_NEAR(integrate(lg, 0.0, 1.0), 1.0, 1e-6);
}

TEST(tpe_density, integrates_to_one_in_2d_and_with_integers_and_categoricals) {
  const Space space({Parameter::real("x", -1.0, 2.0), Parameter::integer("n", 0, 5),
                     Parameter::categorical("c", {"a", "b", "c"})});
  const Eigen::MatrixXd X = random_points(space, 30, 3);
  Eigen::VectorXd y = X.col(0) + 0.3 * X.col(1);
  Tpe tpe(space);
  tpe->fit(make_data(space, X, y, Eigen::MatrixXd(30, 0)), objective());
  for (const bool good : {true, false}) {
    double total = 0.0;
    Eigen::VectorXd x(3);
    for (int n = 0; n <= 5; ++n) {
      for (int c = 0; c < 3; ++c) {
        x[1] = n;
        x[2] = c;
        total += integrate(
            [&](double v) {
              x[0] = v;
              return good ? tpe.density().log_l(x) : tpe.density().log_g(x);
            },
            -1.0, 2.0, 4000);
      }
    }
    EXPECT_NEAR(total, 1.0, 1e-5) << (good ? "l" : "g");
  }
}

TEST(tpe_density, real_by_real_integrates_to_one) {
  const Space space({Parameter::real("x", -5.0, 5.0), Parameter::real("y", 0.0, 1.0)});
  const Eigen::MatrixXd X = random_points(space, 12, 5);
  const Eigen::VectorXd y = X.col(0).cwiseAbs();
  Tpe tpe(space);
  tpe->fit(make_data(space, X, y, Eigen::MatrixXd(12, 0)), objective());
  Eigen::VectorXd x(2);
  double total = 0.0;
  const int ny = 400;
  for (int j = 0; j < ny; ++j) {
    x[1] = (j + 0.5) / ny;
    total += integrate(
                 [&](double v) {
                   x[0] = v;
                   return tpe.density().log_l(x);
                 },
                 -5.0, 5.0, 2000) /
             ny;
  }
  EXPECT_NEAR(total, 1.0, 1e-4);
}

TEST(tpe_density, log_integers_sum_to_one) {
  const Space space({Parameter::integer("n", 1, 50, true)});
  Eigen::MatrixXd X(5, 1);
  X << std::log(1.0), std::log(2.0), std::log(7.0), std::log(30.0), std::log(50.0);
  Tpe tpe(space);
  tpe->fit(make_data(space, X, X.col(0), Eigen::MatrixXd(5, 0)), objective());
  double l = 0.0, g = 0.0;
  Eigen::VectorXd x(1);
  for (int n = 1; n <= 50; ++n) {
    x[0] = std::log(double(n));
    l += std::exp(tpe.density().log_l(x));
    g += std::exp(tpe.density().log_g(x));
  }
  EXPECT_NEAR(l, 1.0, 1e-6);
  EXPECT_NEAR(g, 1.0, 1e-6);
}

TEST(tpe_density, conditional_space_sums_to_one) {
  Parameter child = Parameter::real("u", 0.0, 1.0);
  child.condition = Condition{"c", {std::string("b")}};
  const Space space({Parameter::categorical("c", {"a", "b"}), child});
  Eigen::MatrixXd X(6, 2);
  X << 0, 0.5, 1, 0.1, 1, 0.2, 0, 0.5, 1, 0.9, 0, 0.5;
  const Eigen::VectorXd y = (Eigen::VectorXd(6) << 1, 0, 2, 3, 4, 5).finished();
  Tpe tpe(space);
  tpe->fit(make_data(space, X, y, Eigen::MatrixXd(6, 0)), objective());
  Eigen::VectorXd x(2);
  x << 0, 0.5;  // inactive child: one configuration
  const double inactive = std::exp(tpe.density().log_l(x));
  x[0] = 1;
  const double active = integrate(
      [&](double v) {
        x[1] = v;
        return tpe.density().log_l(x);
      },
      0.0, 1.0);
  EXPECT_NEAR(inactive + active, 1.0, 1e-6);
}

TEST(tpe_density, matches_direct_computation) {
  // N = 4: k = ceil(sqrt(4)/4) = 1, so l is the kernel at the best point plus the prior.
  const Space space({Parameter::real("x", 0.0, 1.0)});
  Eigen::MatrixXd X(4, 1);
  X << 0.4, 0.2, 0.5, 0.9;
  Tpe tpe(space);
  tpe->fit(make_data(space, X, X.col(0), Eigen::MatrixXd(4, 0)), objective());
  EXPECT_DOUBLE_EQ(tpe.gamma(), 0.25);
  // Bandwidth of l on {0.2} plus the centre 0.5 (m = 2).
  const double sd = std::sqrt(2 * 0.15 * 0.15);
  const double iqr = 0.425 - 0.275;  // numpy's linear percentiles of {0.2, 0.5}
  const double h = 1.059 * std::min(iqr / 1.34, sd) * std::pow(2.0, -0.2);
  const auto tn = [](double x, double mu, double s) {
    const double z = (x - mu) / s;
    return std::exp(-0.5 * z * z) / (s * std::sqrt(2 * M_PI)) /
           (normal_cdf((1 - mu) / s) - normal_cdf(-mu / s));
  };
  // g on {0.4, 0.5, 0.9} plus the centre: values {0.4, 0.5, 0.5, 0.9}.
  const double mean = (0.4 + 0.5 + 0.5 + 0.9) / 4;
  const double sd_g = std::sqrt(
      (std::pow(0.4 - mean, 2) + 2 * std::pow(0.5 - mean, 2) + std::pow(0.9 - mean, 2)) / 3);
  const double iqr_g = (0.5 + 0.25 * 0.4) - (0.4 + 0.75 * 0.1);
  const double h_g =
      std::clamp(1.059 * std::min(iqr_g / 1.34, sd_g) * std::pow(4.0, -0.2), 0.01, 0.5);
  Eigen::VectorXd x(1);
  for (double v : {0.0, 0.13, 0.2, 0.77, 1.0}) {
    x[0] = v;
    const double l = 0.5 * tn(v, 0.2, h) + 0.5 * tn(v, 0.5, 1.0);
    const double g = (tn(v, 0.4, h_g) + tn(v, 0.5, h_g) + tn(v, 0.9, h_g) + tn(v, 0.5, 1.0)) / 4;
    // The log-sum-exp takes its exponentials in single precision (parzen.cpp): ~1e-7.
    EXPECT_NEAR(tpe.density().log_l(x), std::log(l), 1e-6) << v;
    EXPECT_NEAR(tpe.density().log_g(x), std::log(g), 1e-6) << v;
  }
  // predict(): log g - log l, variance 0.
  Eigen::VectorXd mean_out, var_out;
  tpe->predict(X, mean_out, var_out);
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    const Eigen::VectorXd xi = X.row(i).transpose();
    EXPECT_DOUBLE_EQ(mean_out[i], tpe.density().log_g(xi) - tpe.density().log_l(xi));
    EXPECT_EQ(var_out[i], 0.0);
  }
}

TEST(tpe_density, categorical_kernel_is_aitchison_aitken_with_uniform_prior) {
  const Space space({Parameter::categorical("c", {"a", "b", "c", "d"})});
  Eigen::MatrixXd X(1, 1);
  X << 2;
  Tpe tpe(space);
  tpe->fit(make_data(space, X, Eigen::VectorXd::Zero(1), Eigen::MatrixXd(1, 0)), objective());
  Eigen::VectorXd x(1);
  for (int c = 0; c < 4; ++c) {
    x[0] = c;
    const double own = c == 2 ? 0.8 : 0.2 / 3;
    EXPECT_NEAR(std::exp(tpe.density().log_l(x)), 0.5 * own + 0.5 * 0.25, 1e-7);
    EXPECT_NEAR(std::exp(tpe.density().log_g(x)), 0.25, 1e-7);  // empty bad set: the prior
  }
}

TEST(tpe_density, samples_follow_l_and_stay_on_the_grid) {
  const Space space({Parameter::real("x", 0.0, 1.0), Parameter::integer("n", 0, 9),
                     Parameter::integer("m", 1, 100, true)});
  const Eigen::MatrixXd X = random_points(space, 40, 11);
  Tpe tpe(space);
  tpe->fit(make_data(space, X, X.col(0), Eigen::MatrixXd(40, 0)), objective());
  std::mt19937_64 rng(1);
  Eigen::MatrixXd S;
  tpe.density().sample_l(4000, rng, S);
  ASSERT_EQ(S.rows(), 4000);
  for (Eigen::Index i = 0; i < S.rows(); ++i) {
    Eigen::VectorXd s = S.row(i).transpose();
    EXPECT_TRUE(space.contains(s)) << s.transpose();
  }
  // The integer marginal of the samples matches l's marginal mass on each value; with the
  // other coordinates' marginals summed out, P(n = v) is what the product sampler draws.
  Eigen::VectorXd counts = Eigen::VectorXd::Zero(10);
  for (Eigen::Index i = 0; i < S.rows(); ++i) counts[static_cast<Eigen::Index>(S(i, 1))] += 1;
  counts /= double(S.rows());
  // l's good set is small and near x = 0; the draws of x must concentrate there.
  EXPECT_LT(S.col(0).mean(), 0.35);
  EXPECT_NEAR(counts.sum(), 1.0, 1e-12);
}

// --- splits ----------------------------------------------------------------------------------

TEST(tpe_split, objective_good_set_ends_at_the_kth_feasible_point) {
  const Space space({Parameter::real("x", 0.0, 1.0)});
  // N = 16: k = 1. Sorted by y the first feasible point is third.
  Eigen::MatrixXd X = random_points(space, 16, 2);
  Eigen::VectorXd y = Eigen::VectorXd::LinSpaced(16, 0.0, 15.0);
  Eigen::MatrixXd C = Eigen::MatrixXd::Constant(16, 1, -1.0);
  C(0, 0) = C(1, 0) = 1.0;
  const Dataset data = make_data(space, X, y, C);
  Tpe tpe(space);
  tpe->fit(data, objective());
  EXPECT_DOUBLE_EQ(tpe.gamma(), 3.0 / 16);
  Tpe plain(space, {{"feasible_split", false}});
  plain->fit(data, objective());
  EXPECT_DOUBLE_EQ(plain.gamma(), 1.0 / 16);
}

TEST(tpe_split, fewer_than_k_feasible_points_put_everything_in_the_good_set) {
  const Space space({Parameter::real("x", 0.0, 1.0)});
  const Eigen::MatrixXd X = random_points(space, 10, 3);
  const Dataset data =
      make_data(space, X, X.col(0), Eigen::MatrixXd::Constant(10, 1, 2.0));  // none feasible
  Tpe tpe(space);
  tpe->fit(data, objective());
  EXPECT_DOUBLE_EQ(tpe.gamma(), 1.0);
}

TEST(tpe_split, no_feasible_points_leave_one_point_in_each_constraint_good_set) {
  const Space space({Parameter::real("x", 0.0, 1.0), Parameter::real("y", 0.0, 1.0)});
  const Eigen::MatrixXd X = random_points(space, 25, 4);
  Eigen::MatrixXd C(25, 2);
  C.col(0) = 1.0 + X.col(0).array();
  C.col(1) = 3.0 + X.col(1).array();
  const Dataset data = make_data(space, X, X.col(0), C);
  for (int j = 0; j < 2; ++j) {
    Tpe tpe(space);
    tpe->fit(data, constraint(j));
    EXPECT_DOUBLE_EQ(tpe.gamma(), 1.0 / 25) << "constraint " << j;
  }
}

TEST(tpe_split, constraint_split_is_the_threshold) {
  const Space space({Parameter::real("x", 0.0, 1.0)});
  const Eigen::MatrixXd X = random_points(space, 20, 5);
  Eigen::MatrixXd C(20, 1);
  C.col(0) = X.col(0).array() - 0.3;
  const Dataset data = make_data(space, X, X.col(0), C);
  Tpe tpe(space);
  tpe->fit(data, constraint(0));
  EXPECT_DOUBLE_EQ(tpe.gamma(), double((C.col(0).array() <= 0).count()) / 20);
}

TEST(tpe_split, partial_observations_count_in_the_constraint_model) {
  const Space space({Parameter::real("x", 0.0, 1.0)});
  const Eigen::MatrixXd X = random_points(space, 10, 6);
  Eigen::MatrixXd C(10, 1);
  C.col(0) = X.col(0).array() - 0.3;
  const Dataset data = make_data(space, X, X.col(0), C);
  const Eigen::MatrixXd Xp = random_points(space, 30, 7);
  const Eigen::VectorXd cp = Xp.col(0).array() - 0.3;
  Tpe tpe(space);
  dynamic_cast<FitsPartialObservations&>(*tpe.object).fit_partial(data, constraint(0), Xp, cp);
  const double good = double((C.col(0).array() <= 0).count() + (cp.array() <= 0).count());
  EXPECT_DOUBLE_EQ(tpe.gamma(), good / 40);
}

// Fig. 2 of the paper: 200 fixed random points on [-5, 5]^2, f = (x+2)^2 + (y+2)^2,
// c = (x-1)^2 + (y-1)^2 <= c*. Reported: tight (4) gamma_1 ~ 0.12, gamma_0 ~ 0.3; loose (16)
// gamma_1 ~ 0.50, gamma_0 ~ 0.02.
TEST(tpe_split, figure_2_realised_gammas) {
  const Space space({Parameter::real("x", -5.0, 5.0), Parameter::real("y", -5.0, 5.0)});
  const Eigen::MatrixXd X = random_points(space, 200, 2023);
  const Eigen::VectorXd f = (X.col(0).array() + 2).square() + (X.col(1).array() + 2).square();
  const Eigen::ArrayXd c = (X.col(0).array() - 1).square() + (X.col(1).array() - 1).square();
  // The f-order position of the 4th feasible point (k = ceil(sqrt(200)/4) = 4), directly.
  std::vector<int> order(200);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return f[a] < f[b]; });
  double gamma0[2] = {0, 0};
  int which = 0;
  for (const double threshold : {4.0, 16.0}) {
    Eigen::MatrixXd C(200, 1);
    C.col(0) = c - threshold;
    const Dataset data = make_data(space, X, f, C);
    Tpe t0(space), t1(space);
    t0->fit(data, objective());
    t1->fit(data, constraint(0));
    int seen = 0, cut = 0;
    while (seen < 4) seen += C(order[static_cast<std::size_t>(cut++)], 0) <= 0 ? 1 : 0;
    EXPECT_DOUBLE_EQ(t0.gamma(), cut / 200.0);
    EXPECT_DOUBLE_EQ(t1.gamma(), double((C.col(0).array() <= 0).count()) / 200);
    gamma0[which++] = t0.gamma();
    if (threshold == 4.0) {
      EXPECT_NEAR(t1.gamma(), 0.12, 0.04);
      EXPECT_GT(t0.gamma(), 0.15);
      EXPECT_LT(t0.gamma(), 0.45);
    } else {
      // The paper's 0.02 (= 4/200) needs the 4 best points to be feasible; the f-optimum
      // (-2, -2) lies just outside the disk (c = 18 > 16), so most samples give a few times
      // that (bench/results/ctpe/report.md has the distribution).
      EXPECT_NEAR(t1.gamma(), 0.50, 0.06);
      EXPECT_LT(t0.gamma(), 0.15);
    }
  }
  EXPECT_LT(gamma0[1], gamma0[0]);
}

// --- acquisition -----------------------------------------------------------------------------

struct Fitted {
  Fitted(const Space& space, const Dataset& data, bool feasible_split = true)
      : f(space, {{"feasible_split", feasible_split}}), c(space) {
    f->fit(data, objective());
    c->fit(data, constraint(0));
  }
  Tpe f, c;
};

TEST(ctpe_acquisition, value_is_the_sum_of_log_relative_ratios) {
  const Space space({Parameter::real("x", 0.0, 1.0), Parameter::real("y", 0.0, 1.0)});
  const Eigen::MatrixXd X = random_points(space, 40, 8);
  Eigen::MatrixXd C(40, 1);
  C.col(0) = X.col(1).array() - 0.4;
  const Dataset data = make_data(space, X, X.col(0), C);
  Fitted m(space, data);
  Ctpe acq(space);
  acq->bind(AcquisitionInputs{data, m.f.ptr, {m.c.ptr}, data.incumbent()});
  const Eigen::MatrixXd Q = random_points(space, 10, 9);
  for (Eigen::Index i = 0; i < Q.rows(); ++i) {
    const Eigen::VectorXd q = Q.row(i).transpose();
    double expected = 0.0;
    for (const Tpe* t : {&m.f, &m.c}) {
      const double r = std::exp(t->density().log_l(q) - t->density().log_g(q));
      expected += std::log(1.0 / (t->gamma() + (1.0 - t->gamma()) / r));
    }
    EXPECT_NEAR(acq->value(q), expected, 1e-9);
  }
}

TEST(ctpe_acquisition, gamma_one_is_an_exact_no_op) {
  // Every point satisfies the constraint: its model has gamma_hat = 1.
  const Space space({Parameter::real("x", 0.0, 1.0), Parameter::real("y", 0.0, 1.0)});
  const Eigen::MatrixXd X = random_points(space, 30, 10);
  const Dataset data = make_data(space, X, X.col(0), Eigen::MatrixXd::Constant(30, 1, -1.0));
  Fitted m(space, data);
  ASSERT_EQ(m.c.gamma(), 1.0);
  Ctpe with(space), without(space);
  with->bind(AcquisitionInputs{data, m.f.ptr, {m.c.ptr}, data.incumbent()});
  without->bind(AcquisitionInputs{data, m.f.ptr, {}, data.incumbent()});
  const Eigen::MatrixXd Q = random_points(space, 50, 11);
  for (Eigen::Index i = 0; i < Q.rows(); ++i) {
    const Eigen::VectorXd q = Q.row(i).transpose();
    EXPECT_EQ(with->value(q), without->value(q));
  }
}

TEST(ctpe_acquisition, corollary_2_argmax_equals_tpe_when_constraints_always_hold) {
  const Space space({Parameter::real("x", -5.0, 5.0), Parameter::real("y", -5.0, 5.0)});
  const Eigen::MatrixXd X = random_points(space, 60, 12);
  const Eigen::VectorXd f = (X.col(0).array() + 2).square() + (X.col(1).array() + 2).square();
  const Dataset data = make_data(space, X, f, Eigen::MatrixXd::Constant(60, 1, -1.0));
  Fitted m(space, data);
  Ctpe ctpe(space), tpe(space, "vanilla");
  ctpe->bind(AcquisitionInputs{data, m.f.ptr, {m.c.ptr}, data.incumbent()});
  tpe->bind(AcquisitionInputs{data, m.f.ptr, {m.c.ptr}, data.incumbent()});
  std::mt19937_64 rng(3);
  Eigen::MatrixXd cand;
  dynamic_cast<const ProposesCandidates&>(*ctpe.object).candidates(48, rng, cand);
  Eigen::VectorXd a, b;
  ctpe->values(cand, a);
  tpe->values(cand, b);
  Eigen::Index ia = 0, ib = 0;
  a.maxCoeff(&ia);
  b.maxCoeff(&ib);
  EXPECT_EQ(ia, ib);
}

TEST(ctpe_acquisition, naive_mode_is_the_product_of_plain_ratios) {
  const Space space({Parameter::real("x", 0.0, 1.0)});
  const Eigen::MatrixXd X = random_points(space, 20, 13);
  Eigen::MatrixXd C(20, 1);
  C.col(0) = 0.5 - X.col(0).array();
  const Dataset data = make_data(space, X, X.col(0), C);
  Fitted m(space, data, false);
  Ctpe naive(space, "naive");
  naive->bind(AcquisitionInputs{data, m.f.ptr, {m.c.ptr}, data.incumbent()});
  Eigen::VectorXd q(1);
  q << 0.45;
  const double expected = m.f.density().log_l(q) - m.f.density().log_g(q) + m.c.density().log_l(q) -
                          m.c.density().log_g(q);
  EXPECT_NEAR(naive->value(q), expected, 1e-12);
}

TEST(ctpe_acquisition, candidates_come_in_equal_shares_from_each_model) {
  const Space space({Parameter::real("x", 0.0, 1.0)});
  const Eigen::MatrixXd X = random_points(space, 40, 14);
  Eigen::MatrixXd C(40, 1);
  C.col(0) = 0.8 - X.col(0).array();  // satisfied only near x = 1; the objective likes x = 0
  const Dataset data = make_data(space, X, X.col(0), C);
  Fitted m(space, data);
  Ctpe acq(space);
  acq->bind(AcquisitionInputs{data, m.f.ptr, {m.c.ptr}, data.incumbent()});
  std::mt19937_64 rng(5);
  Eigen::MatrixXd cand;
  dynamic_cast<const ProposesCandidates&>(*acq.object).candidates(48, rng, cand);
  ASSERT_EQ(cand.rows(), 48);
  // The first 24 come from the objective's l (near its feasible good set), the last 24 from
  // the constraint's l (near x >= 0.8).
  EXPECT_GT(cand.bottomRows(24).col(0).mean(), 0.7);
}

// --- candidate pool --------------------------------------------------------------------------

class UpperBound final : public Constraint {
 public:
  explicit UpperBound(double bound) : bound_(bound) {}
  double violation(const Eigen::VectorXd& x) const override { return std::max(0.0, x[0] - bound_); }

 private:
  double bound_;
};

// Proposes only x0 = 1 (infeasible under UpperBound(0.5)); scores -x0.
class Stubborn final : public Acquisition, public ProposesCandidates {
 public:
  void bind(const AcquisitionInputs&) override {}
  double value(const Eigen::VectorXd& x) const override { return -x[0]; }
  void candidates(std::size_t n, std::mt19937_64&, Eigen::MatrixXd& out) const override {
    ++calls;
    out = Eigen::MatrixXd::Ones(static_cast<Eigen::Index>(n), 1);
  }
  mutable int calls = 0;
};

struct Pool : Made<InnerSolver> {
  explicit Pool(const Space& s, const std::map<std::string, ParamValue>& raw = {})
      : Made(Kind::InnerSolver, "libarbo_inner_solver_candidate_pool.so", "candidate_pool", s,
             raw) {}
};

TEST(candidate_pool, uses_the_acquisition_candidates_and_respects_known_constraints) {
  const Space space({Parameter::real("x", 0.0, 1.0), Parameter::real("y", 0.0, 1.0)});
  const Eigen::MatrixXd X = random_points(space, 30, 15);
  Eigen::MatrixXd C(30, 1);
  C.col(0) = X.col(1).array() - 0.5;
  const Dataset data = make_data(space, X, X.col(0), C);
  Fitted m(space, data);
  Ctpe acq(space);
  acq->bind(AcquisitionInputs{data, m.f.ptr, {m.c.ptr}, data.incumbent()});
  const UpperBound bound(0.3);
  Pool pool(space);
  for (int rep = 0; rep < 10; ++rep) {
    const Proposal p = pool->maximize(SolveRequest{acq.ptr, space, {&bound}, data});
    ASSERT_TRUE(p.found) << p.note;
    EXPECT_LE(p.x[0], 0.3);
    EXPECT_NE(p.note.find("proposed"), std::string::npos) << p.note;
    EXPECT_DOUBLE_EQ(p.value, acq->value(p.x));
  }
}

TEST(candidate_pool, falls_back_to_uniform_points_when_every_candidate_is_infeasible) {
  const Space space({Parameter::real("x", 0.0, 1.0)});
  Dataset data;
  data.reset(1, {});
  const UpperBound bound(0.5);
  Stubborn acq;
  Pool pool(space, {{"rounds", std::int64_t{3}}});
  const Proposal p = pool->maximize(SolveRequest{&acq, space, {&bound}, data});
  ASSERT_TRUE(p.found);
  EXPECT_LE(p.x[0], 0.5);
  EXPECT_EQ(acq.calls, 3);
  EXPECT_NE(p.note.find("uniform fallback"), std::string::npos) << p.note;
}

TEST(candidate_pool, works_without_a_model) {
  const Space space({Parameter::real("x", 0.0, 1.0)});
  Dataset data;
  data.reset(1, {});
  const UpperBound bound(0.1);
  Pool pool(space);
  const Proposal p = pool->maximize(SolveRequest{nullptr, space, {&bound}, data});
  ASSERT_TRUE(p.found);
  EXPECT_LE(p.x[0], 0.1);
}

TEST(candidate_pool, asks_for_draws_per_model) {
  const Space space({Parameter::real("x", 0.0, 1.0)});
  Dataset data;
  data.reset(1, {"a", "b"});
  Stubborn acq;
  Pool pool(space, {{"draws", std::int64_t{5}}});
  // x = 1 is feasible here: no known constraints.
  const Proposal p = pool->maximize(SolveRequest{&acq, space, {}, data});
  ASSERT_TRUE(p.found);
  EXPECT_NE(p.note.find("best of 15 proposed"), std::string::npos) << p.note;
}

}  // namespace
