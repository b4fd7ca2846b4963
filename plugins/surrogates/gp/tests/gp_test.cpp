// SPDX-License-Identifier: MIT
// surrogate/gp: the log posterior and its gradient against central finite differences, the
// log posterior and the predictions against a direct dense computation written here from the
// formulas, MAP lengthscales on 1-D draws of known lengthscale, joint samples against the
// predictive moments, no allocation per predicted point, and the plugin (loaded from its real
// .so) through the conformance kit.
#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <new>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <Eigen/LU>

#include <arbo/sdk/capabilities/surrogate.hpp>
#include <arbo/sdk/dataset.hpp>
#include <arbo/sdk/error.hpp>
#include <arbo/sdk/testing/conformance.hpp>

#include "gp_model.hpp"

// Counts heap allocations of this process (the core library is linked in statically).
namespace {
std::size_t g_allocations = 0;
}  // namespace

// GCC pairs the replaced operator new with free() and warns; the pair is malloc/free.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t size) {
  ++g_allocations;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return operator new(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
#pragma GCC diagnostic pop

namespace {

using namespace arbo::plugins::gp;
using namespace arbo::sdk;
using arbo::sdk::testing::PluginUnderTest;
using arbo::sdk::testing::TestContext;

constexpr const char* kLibrary = ARBO_PLUGIN_DIR "/libarbo_surrogate_gp.so";
constexpr double kPi = 3.14159265358979323846;

// Numeric columns 0..dn-1 on [lo, hi] each, then categorical columns with `choices` values.
Layout make_layout(int dn, int dc, double lo = -2.0, double hi = 3.0) {
  Layout l;
  l.dim = dn + dc;
  for (int d = 0; d < dn; ++d) l.numeric.push_back(d);
  for (int c = 0; c < dc; ++c) l.categorical.push_back(dn + c);
  l.lower = Eigen::VectorXd::Constant(dn, lo);
  l.range = Eigen::VectorXd::Constant(dn, hi - lo);
  return l;
}

// n random rows of that layout: numeric uniform in [lo, hi], categories in 0..choices-1.
Eigen::MatrixXd random_rows(int n, int dn, int dc, int choices, std::mt19937_64& rng,
                            double lo = -2.0, double hi = 3.0) {
  std::uniform_real_distribution<double> u(lo, hi);
  std::uniform_int_distribution<int> cat(0, choices - 1);
  Eigen::MatrixXd X(n, dn + dc);
  for (int i = 0; i < n; ++i) {
    for (int d = 0; d < dn; ++d) X(i, d) = u(rng);
    for (int c = 0; c < dc; ++c) X(i, dn + c) = cat(rng);
  }
  return X;
}

Eigen::VectorXd smooth_target(const Eigen::MatrixXd& X, int dn, int dc) {
  Eigen::VectorXd y(X.rows());
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    double v = 0.0;
    for (int d = 0; d < dn; ++d) v += std::sin(1.3 * X(i, d) + d) * (d + 1);
    for (int c = 0; c < dc; ++c) v += 0.7 * X(i, dn + c) * (c + 1);
    y[i] = 10.0 * v + 3.0;
  }
  return y;
}

// --- the direct computation: every formula written again, from the definitions ------------

struct Direct {
  KernelType kernel;
  Layout layout;
  Priors priors;
  Eigen::VectorXd theta;

  double k(const Eigen::VectorXd& a, const Eigen::VectorXd& b) const {
    const auto dn = static_cast<Eigen::Index>(layout.numeric.size());
    const auto dc = static_cast<Eigen::Index>(layout.categorical.size());
    double r2 = 0.0;
    for (Eigen::Index d = 0; d < dn; ++d) {
      const Eigen::Index col = layout.numeric[static_cast<std::size_t>(d)];
      const double z = (a[col] - b[col]) / layout.range[d] / std::exp(theta[d]);
      r2 += z * z;
    }
    const double r = std::sqrt(r2);
    const double kx =
        kernel == KernelType::SquaredExponential
            ? std::exp(-r2 / 2.0)
            : (1.0 + std::sqrt(5.0) * r + 5.0 * r2 / 3.0) * std::exp(-std::sqrt(5.0) * r);
    double mism = 0.0;
    for (Eigen::Index c = 0; c < dc; ++c) {
      const Eigen::Index col = layout.categorical[static_cast<std::size_t>(c)];
      if (a[col] != b[col]) mism += 1.0 / std::exp(theta[dn + c]);
    }
    const double kh = dc > 0 ? std::exp(-mism / static_cast<double>(dc)) : 1.0;
    if (dc == 0) return kx;
    if (dn == 0) return std::exp(theta[dc]) * kh;
    const double sx = std::exp(theta[dn + dc]), sh = std::exp(theta[dn + dc + 1]),
                 sp = std::exp(theta[dn + dc + 2]);
    return sx * kx + sh * kh + sp * kx * kh;
  }
  double noise() const { return priors.min_noise + std::exp(theta[theta.size() - 1]); }

  static double log_lognormal(double v, double loc, double scale) {
    const double z = (std::log(v) - loc) / scale;
    return -std::log(v) - std::log(scale) - 0.5 * std::log(2.0 * kPi) - 0.5 * z * z;
  }

  // -log N(ys; 0, K + noise I) - log priors, ys the standardized y.
  double neg_log_posterior(const Eigen::MatrixXd& X, const Eigen::VectorXd& y) const {
    const Eigen::Index n = X.rows();
    const double mean = y.mean();
    const double sd = std::sqrt((y.array() - mean).square().sum() / static_cast<double>(n - 1));
    const Eigen::VectorXd ys = (y.array() - mean) / sd;
    Eigen::MatrixXd K(n, n);
    for (Eigen::Index i = 0; i < n; ++i)
      for (Eigen::Index j = 0; j < n; ++j) K(i, j) = k(X.row(i), X.row(j));
    K.diagonal().array() += noise();
    const Eigen::LDLT<Eigen::MatrixXd> ldlt(K);
    const double logdet = ldlt.vectorD().array().log().sum();
    double f = 0.5 * ys.dot(ldlt.solve(ys)) + 0.5 * logdet + 0.5 * n * std::log(2.0 * kPi);
    const auto dn = static_cast<Eigen::Index>(layout.numeric.size());
    const auto dc = static_cast<Eigen::Index>(layout.categorical.size());
    for (Eigen::Index d = 0; d < dn; ++d)
      f -= log_lognormal(std::exp(theta[d]), priors.lengthscale_loc, priors.lengthscale_scale);
    for (Eigen::Index c = 0; c < dc; ++c)
      f -= log_lognormal(std::exp(theta[dn + c]), priors.categorical_loc, priors.categorical_scale);
    for (Eigen::Index s = dn + dc; s < theta.size() - 1; ++s)
      f -= log_lognormal(std::exp(theta[s]), priors.outputscale_loc, priors.outputscale_scale);
    f -= log_lognormal(noise(), priors.noise_loc, priors.noise_scale);
    return f;
  }
};

Eigen::VectorXd random_theta(const GpModel& gp, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1.0, 0.7);
  Eigen::VectorXd t(gp.num_hyperparameters());
  for (Eigen::Index i = 0; i < t.size(); ++i) t[i] = u(rng);
  t[t.size() - 1] = -3.0;  // noise about 0.05
  return t;
}

struct Case {
  const char* name;
  KernelType kernel;
  int dn, dc;
};

const Case kCases[] = {{"se", KernelType::SquaredExponential, 3, 0},
                       {"matern52", KernelType::Matern52, 3, 0},
                       {"se_mixed", KernelType::SquaredExponential, 2, 2},
                       {"matern52_mixed", KernelType::Matern52, 2, 2},
                       {"categorical_only", KernelType::SquaredExponential, 0, 3}};

TEST(gp_model, log_posterior_matches_direct_computation) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    std::mt19937_64 rng(11);
    const Layout layout = make_layout(c.dn, c.dc);
    const Priors priors = hvarfner_priors(c.dn);
    GpModel gp(c.kernel, layout, priors);
    const Eigen::MatrixXd X = random_rows(25, c.dn, c.dc, 3, rng);
    const Eigen::VectorXd y = smooth_target(X, c.dn, c.dc);
    gp.set_data(X, y);
    for (int rep = 0; rep < 3; ++rep) {
      const Eigen::VectorXd theta = random_theta(gp, rng);
      const Direct direct{c.kernel, layout, priors, theta};
      EXPECT_NEAR(gp.neg_log_posterior(theta, nullptr), direct.neg_log_posterior(X, y), 1e-8);
    }
  }
}

TEST(gp_model, gradient_matches_central_finite_differences) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    std::mt19937_64 rng(5);
    GpModel gp(c.kernel, make_layout(c.dn, c.dc), hvarfner_priors(c.dn));
    const Eigen::MatrixXd X = random_rows(30, c.dn, c.dc, 3, rng);
    gp.set_data(X, smooth_target(X, c.dn, c.dc));
    for (int rep = 0; rep < 3; ++rep) {
      const Eigen::VectorXd theta = random_theta(gp, rng);
      Eigen::VectorXd grad;
      const double f = gp.neg_log_posterior(theta, &grad);
      ASSERT_TRUE(std::isfinite(f));
      ASSERT_EQ(grad.size(), theta.size());
      const double h = 1e-5;
      for (Eigen::Index j = 0; j < theta.size(); ++j) {
        Eigen::VectorXd tp = theta, tm = theta;
        tp[j] += h;
        tm[j] -= h;
        const double fd =
            (gp.neg_log_posterior(tp, nullptr) - gp.neg_log_posterior(tm, nullptr)) / (2 * h);
        EXPECT_NEAR(grad[j], fd, 1e-5 * std::max(1.0, std::abs(fd))) << "theta " << j;
      }
    }
  }
}

TEST(gp_model, predictions_match_direct_dense_computation) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    std::mt19937_64 rng(7);
    const Layout layout = make_layout(c.dn, c.dc);
    const Priors priors = hvarfner_priors(c.dn);
    GpModel gp(c.kernel, layout, priors);
    const Eigen::MatrixXd X = random_rows(20, c.dn, c.dc, 3, rng);
    const Eigen::VectorXd y = smooth_target(X, c.dn, c.dc);
    gp.set_data(X, y);
    const Eigen::VectorXd theta = random_theta(gp, rng);
    gp.set_hyperparameters(theta);
    const Direct direct{c.kernel, layout, priors, theta};

    const Eigen::MatrixXd Q = random_rows(15, c.dn, c.dc, 3, rng);
    Eigen::VectorXd mean, var;
    gp.predict(Q, mean, var);
    ASSERT_EQ(mean.size(), 15);
    ASSERT_EQ(var.size(), 15);

    const Eigen::Index n = X.rows();
    const double mu = y.mean();
    const double sd = std::sqrt((y.array() - mu).square().sum() / static_cast<double>(n - 1));
    Eigen::MatrixXd K(n, n);
    for (Eigen::Index i = 0; i < n; ++i)
      for (Eigen::Index j = 0; j < n; ++j) K(i, j) = direct.k(X.row(i), X.row(j));
    K.diagonal().array() += direct.noise();
    const Eigen::MatrixXd Kinv = K.inverse();
    const Eigen::VectorXd ys = (y.array() - mu) / sd;
    for (Eigen::Index q = 0; q < Q.rows(); ++q) {
      Eigen::VectorXd kq(n);
      for (Eigen::Index j = 0; j < n; ++j) kq[j] = direct.k(Q.row(q), X.row(j));
      const double m = mu + sd * kq.dot(Kinv * ys);
      const double v = sd * sd * (direct.k(Q.row(q), Q.row(q)) - kq.dot(Kinv * kq));
      EXPECT_NEAR(mean[q], m, 1e-7 * std::max(1.0, std::abs(m)));
      EXPECT_NEAR(var[q], std::max(v, 0.0), 1e-7 * sd * sd);
      EXPECT_NEAR(gp.kernel(Q.row(q), X.row(0)), direct.k(Q.row(q), X.row(0)), 1e-12);
    }
    // At a training point the latent variance is at most the noise (in metric units).
    gp.predict(X.topRows(1), mean, var);
    EXPECT_LE(var[0], direct.noise() * sd * sd * 1.0001);
  }
}

// Draws of a zero-mean GP on [0, 1] with SE lengthscale `ls` at n points (plus a little
// noise), fitted by MAP: the fitted lengthscale lands near the true one.
double fitted_lengthscale(double ls, int n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::normal_distribution<double> normal(0.0, 1.0);
  Eigen::MatrixXd X(n, 1);
  for (int i = 0; i < n; ++i) X(i, 0) = u(rng);
  Eigen::MatrixXd K(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const double z = (X(i, 0) - X(j, 0)) / ls;
      K(i, j) = std::exp(-0.5 * z * z) + (i == j ? 1e-4 : 0.0);
    }
  Eigen::VectorXd z(n);
  for (int i = 0; i < n; ++i) z[i] = normal(rng);
  const Eigen::VectorXd y = K.llt().matrixL() * z;
  GpModel gp(KernelType::SquaredExponential, make_layout(1, 0, 0.0, 1.0), hvarfner_priors(1));
  gp.set_data(X, 5.0 * y.array() + 2.0);
  const FitReport report = gp.fit(rng, FitOptions{});
  EXPECT_EQ(report.failed_starts, 0);
  EXPECT_LT(gp.noise_variance(), 0.05);
  return gp.lengthscales()[0];
}

TEST(gp_model, map_recovers_the_lengthscale_of_one_dimensional_draws) {
  // The prior's mode is exp(sqrt2 - 3) = 0.2 for D = 1; 60 points outweigh it. Standardizing a
  // draw with a long lengthscale inflates its wiggles (its sample variance is below the
  // process's), which the fixed output scale reads as a shorter lengthscale: hence 0.2, not
  // longer.
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    SCOPED_TRACE(seed);
    const double short_ls = fitted_lengthscale(0.05, 60, seed);
    const double long_ls = fitted_lengthscale(0.2, 60, seed);
    EXPECT_GT(short_ls, 0.05 / 1.5);
    EXPECT_LT(short_ls, 0.05 * 1.5);
    EXPECT_GT(long_ls, 0.2 / 1.5);
    EXPECT_LT(long_ls, 0.2 * 1.5);
  }
}

TEST(gp_model, fit_is_deterministic_for_a_seed_and_uses_the_rng) {
  std::mt19937_64 data_rng(3);
  const Eigen::MatrixXd X = random_rows(30, 4, 1, 3, data_rng);
  const Eigen::VectorXd y = smooth_target(X, 4, 1);
  const auto fit = [&](std::uint64_t seed, int restarts) {
    GpModel gp(KernelType::Matern52, make_layout(4, 1), hvarfner_priors(4));
    gp.set_data(X, y);
    std::mt19937_64 rng(seed);
    FitOptions o;
    o.restarts = restarts;
    gp.fit(rng, o);
    return std::pair{gp.theta(), rng()};
  };
  const auto a = fit(9, 3), b = fit(9, 3);
  EXPECT_EQ(a.first, b.first);
  EXPECT_EQ(a.second, b.second);
  // Restarts draw from the rng; without them it is untouched.
  std::mt19937_64 fresh(9);
  EXPECT_EQ(fit(9, 0).second, fresh());
  EXPECT_NE(a.second, fit(9, 0).second);
}

TEST(gp_model, samples_match_the_predictive_moments) {
  std::mt19937_64 rng(17);
  GpModel gp(KernelType::SquaredExponential, make_layout(2, 1), hvarfner_priors(2));
  const Eigen::MatrixXd X = random_rows(15, 2, 1, 2, rng);
  gp.set_data(X, smooth_target(X, 2, 1));
  gp.fit(rng, FitOptions{});
  const Eigen::MatrixXd Q = random_rows(4, 2, 1, 2, rng);
  Eigen::VectorXd mean, var;
  gp.predict(Q, mean, var);
  Eigen::MatrixXd S;
  std::mt19937_64 srng(1);
  gp.sample(Q, 20000, srng, S);
  ASSERT_EQ(S.rows(), 20000);
  ASSERT_EQ(S.cols(), 4);
  for (Eigen::Index j = 0; j < 4; ++j) {
    const double m = S.col(j).mean();
    const double v = (S.col(j).array() - m).square().mean();
    EXPECT_NEAR(m, mean[j], 4.0 * std::sqrt(var[j] / 20000.0) + 1e-9);
    EXPECT_NEAR(v, var[j], 0.05 * var[j] + 1e-9);
  }
  // Joint: two copies of one point are (almost) perfectly correlated.
  Eigen::MatrixXd Q2(2, 3);
  Q2.row(0) = Q.row(0);
  Q2.row(1) = Q.row(0);
  gp.sample(Q2, 200, srng, S);
  EXPECT_LT((S.col(0) - S.col(1)).cwiseAbs().maxCoeff(), 1e-3 * std::sqrt(var[0]) + 1e-9);
}

TEST(gp_model, predict_allocates_nothing_per_point) {
  std::mt19937_64 rng(2);
  GpModel gp(KernelType::Matern52, make_layout(3, 2), hvarfner_priors(3));
  const Eigen::MatrixXd X = random_rows(40, 3, 2, 3, rng);
  gp.set_data(X, smooth_target(X, 3, 2));
  gp.fit(rng, FitOptions{});
  const Eigen::MatrixXd Q = random_rows(50, 3, 2, 3, rng);
  Eigen::MatrixXd row(1, 5);
  Eigen::VectorXd mean, var;
  row = Q.row(0);
  gp.predict(row, mean, var);  // sizes the outputs
  const std::size_t before = g_allocations;
  for (Eigen::Index q = 0; q < Q.rows(); ++q) {
    row = Q.row(q);
    gp.predict(row, mean, var);
  }
  EXPECT_EQ(g_allocations, before);
  Eigen::VectorXd mean_all, var_all;
  gp.predict(Q, mean_all, var_all);
  const std::size_t batch = g_allocations;
  gp.predict(Q, mean_all, var_all);
  EXPECT_EQ(g_allocations, batch);
}

TEST(gp_model, categories_are_told_apart) {
  // y depends only on the category: 0 -> 0, 1 -> 10, 2 -> 20 (plus a small numeric trend).
  std::mt19937_64 rng(4);
  Eigen::MatrixXd X = random_rows(24, 1, 1, 3, rng);
  Eigen::VectorXd y(24);
  for (int i = 0; i < 24; ++i) y[i] = 10.0 * X(i, 1) + 0.1 * X(i, 0);
  GpModel gp(KernelType::SquaredExponential, make_layout(1, 1), hvarfner_priors(1));
  gp.set_data(X, y);
  gp.fit(rng, FitOptions{});
  Eigen::MatrixXd Q(3, 2);
  Q << 0.5, 0, 0.5, 1, 0.5, 2;
  Eigen::VectorXd mean, var;
  gp.predict(Q, mean, var);
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(mean[c], 10.0 * c + 0.05, 0.5) << c;
}

TEST(gp_model, rejects_bad_data) {
  GpModel gp(KernelType::SquaredExponential, make_layout(2, 0), hvarfner_priors(2));
  EXPECT_THROW(gp.set_data(Eigen::MatrixXd(0, 2), Eigen::VectorXd(0)), std::invalid_argument);
  EXPECT_THROW(gp.set_data(Eigen::MatrixXd::Zero(3, 3), Eigen::VectorXd::Zero(3)),
               std::invalid_argument);
  Eigen::VectorXd y = Eigen::VectorXd::Zero(3);
  y[1] = std::nan("");
  EXPECT_THROW(gp.set_data(Eigen::MatrixXd::Zero(3, 2), y), std::invalid_argument);
  Eigen::VectorXd mean, var;
  EXPECT_THROW(gp.predict(Eigen::MatrixXd::Zero(1, 2), mean, var), std::logic_error);
}

TEST(gp_model, constant_target_and_one_observation_are_fitted) {
  std::mt19937_64 rng(1);
  GpModel gp(KernelType::SquaredExponential, make_layout(2, 0), hvarfner_priors(2));
  gp.set_data(Eigen::MatrixXd::Constant(1, 2, 0.5), Eigen::VectorXd::Constant(1, 4.0));
  gp.fit(rng, FitOptions{});
  Eigen::VectorXd mean, var;
  gp.predict(Eigen::MatrixXd::Constant(1, 2, 0.5), mean, var);
  EXPECT_NEAR(mean[0], 4.0, 1e-3);
  const Eigen::MatrixXd X = random_rows(6, 2, 0, 1, rng);
  gp.set_data(X, Eigen::VectorXd::Constant(6, -2.0));
  gp.fit(rng, FitOptions{});
  gp.predict(X, mean, var);
  EXPECT_TRUE(mean.allFinite());
  EXPECT_TRUE(var.allFinite());
  EXPECT_NEAR(mean[0], -2.0, 1e-6);
}

// --- the plugin, loaded from its .so ---------------------------------------------------------

const ComponentInfo& component() {
  static const auto* p = new PluginUnderTest(kLibrary);
  const ComponentInfo* info = p->find(Kind::Surrogate, "gp");
  if (info == nullptr) throw std::runtime_error("no surrogate/gp");
  return *info;
}

TEST(gp_plugin, conformance_kit) { arbo::sdk::testing::expect_plugin_conforms(kLibrary); }

TEST(gp_plugin, conformance_kit_matern_without_restarts) {
  arbo::sdk::testing::ConformanceOptions options;
  options.param_overrides["surrogate/gp"] = {{"kernel", std::string("matern52")},
                                             {"restarts", std::int64_t{0}}};
  arbo::sdk::testing::expect_plugin_conforms(kLibrary, options);
}

TEST(gp_plugin, conformance_kit_one_hot_categoricals) {
  arbo::sdk::testing::ConformanceOptions options;
  options.param_overrides["surrogate/gp"] = {{"categorical_encoding", std::string("one_hot")}};
  arbo::sdk::testing::expect_plugin_conforms(kLibrary, options);
}

TEST(gp_plugin, fits_the_conformance_space_and_offers_posterior_samples) {
  TestContext ctx(3);
  const Space space = arbo::sdk::testing::default_test_space();
  const ParamSet params = validate_params(component().params(), {}, "surrogate/gp");
  std::unique_ptr<Component> object(component().create(CreateArgs{ctx, params, space}));
  auto* model = dynamic_cast<Surrogate*>(object.get());
  auto* sampler = dynamic_cast<PosteriorSampler*>(object.get());
  ASSERT_NE(model, nullptr);
  ASSERT_NE(sampler, nullptr);
  Dataset data;
  data.reset(space.size(), {});
  std::mt19937_64 rng(8);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Eigen::VectorXd x(static_cast<Eigen::Index>(space.size())), unit(x.size());
  for (int i = 0; i < 20; ++i) {
    for (Eigen::Index k = 0; k < unit.size(); ++k) unit[k] = u(rng);
    space.from_unit(unit, x);
    data.append(x, x[0] * x[0] + 3.0 * x[3], Eigen::VectorXd());
  }
  model->fit(data, Metric{});
  Eigen::VectorXd mean, var;
  model->predict(data.X, mean, var);
  EXPECT_LT((mean - data.y).cwiseAbs().maxCoeff(), 0.5);
  Eigen::MatrixXd S;
  sampler->sample(data.X.topRows(3), 5, rng, S);
  EXPECT_EQ(S.rows(), 5);
  EXPECT_EQ(S.cols(), 3);
  EXPECT_TRUE(S.allFinite());

  Dataset bad = data;
  bad.y[2] = std::numeric_limits<double>::infinity();
  EXPECT_THROW(model->fit(bad, Metric{}), InvalidArgument);
  EXPECT_THROW(model->predict(Eigen::MatrixXd::Zero(1, 2), mean, var), InvalidArgument);
}

TEST(gp_plugin, one_hot_categoricals_are_indicator_coordinates) {
  // A categorical of 3 choices with categorical_encoding = one_hot is the GP of three binary
  // coordinates (one per choice) with the same data: same inputs, priors and random draws,
  // so the same predictions; the categorical kernel predicts otherwise.
  const Space a({Parameter::categorical("c", {"u", "v", "w"}), Parameter::real("r", 0.0, 2.0)});
  const Space b({Parameter::binary("c0"), Parameter::binary("c1"), Parameter::binary("c2"),
                 Parameter::real("r", 0.0, 2.0)});
  auto fitted = [](const Space& space, const std::map<std::string, ParamValue>& raw,
                   TestContext& ctx, std::unique_ptr<Component>& object) {
    const ParamSet params = validate_params(component().params(), raw, "surrogate/gp");
    object.reset(component().create(CreateArgs{ctx, params, space}));
    auto* model = dynamic_cast<Surrogate*>(object.get());
    Dataset data;
    data.reset(space.size(), {});
    for (int i = 0; i < 12; ++i) {
      const int c = i % 3;
      const double r = 0.15 * i;
      Eigen::VectorXd x(static_cast<Eigen::Index>(space.size()));
      if (space.size() == 2) {
        x << c, r;
      } else {
        x << (c == 0), (c == 1), (c == 2), r;
      }
      data.append(x, (c == 1 ? 1.0 : 0.0) + std::sin(3.0 * r), Eigen::VectorXd());
    }
    model->fit(data, Metric{});
    return model;
  };
  TestContext ca(5), cb(5), cc(5);
  std::unique_ptr<Component> oa, ob, oc;
  Surrogate* one_hot = fitted(a, {{"categorical_encoding", std::string("one_hot")}}, ca, oa);
  Surrogate* binary = fitted(b, {}, cb, ob);
  Surrogate* kernel = fitted(a, {}, cc, oc);
  Eigen::MatrixXd qa(4, 2), qb(4, 4);
  qa << 0, 0.3, 1, 1.1, 2, 1.7, 1, 0.05;
  qb << 1, 0, 0, 0.3, 0, 1, 0, 1.1, 0, 0, 1, 1.7, 0, 1, 0, 0.05;
  Eigen::VectorXd ma, va, mb, vb, mk, vk;
  one_hot->predict(qa, ma, va);
  binary->predict(qb, mb, vb);
  kernel->predict(qa, mk, vk);
  EXPECT_LT((ma - mb).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LT((va - vb).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_GT((ma - mk).cwiseAbs().maxCoeff(), 1e-6);
  EXPECT_THROW(validate_params(component().params(),
                               {{"categorical_encoding", std::string("ordinal")}}, "surrogate/gp"),
               ParamError);
}

TEST(gp_plugin, invalid_parameters_are_refused) {
  EXPECT_THROW(
      validate_params(component().params(), {{"kernel", std::string("rbf")}}, "surrogate/gp"),
      ParamError);
  EXPECT_THROW(
      validate_params(component().params(), {{"restarts", std::int64_t{-1}}}, "surrogate/gp"),
      ParamError);
  EXPECT_THROW(validate_params(component().params(), {{"min_noise_variance", 0.0}}, "surrogate/gp"),
               ParamError);
}

}  // namespace
