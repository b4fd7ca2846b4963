// SPDX-License-Identifier: MIT
// surrogate/tree_gp: trees read back exactly as XGBoost predicts, the GP equal to a dense
// computation, the branch-and-bound optimum equal to enumeration of all non-empty leaf cells,
// decoded queries inside the optimal cell and feasible, and the conformance kit.
#include <cmath>
#include <functional>
#include <memory>
#include <random>

#include <gtest/gtest.h>
#include <xgboost/c_api.h>
#include <Eigen/Cholesky>

#include <arbo/sdk/capabilities.hpp>
#include <arbo/sdk/constraint.hpp>
#include <arbo/sdk/error.hpp>
#include <arbo/sdk/inner_solver.hpp>
#include <arbo/sdk/projection.hpp>
#include <arbo/sdk/testing/conformance.hpp>

#include "bnb.hpp"
#include "formulation.hpp"
#include "tree_ensemble.hpp"
#include "tree_gp.hpp"
#include "tree_kernel_gp.hpp"

namespace {

using namespace arbo;
using namespace arbo::plugins::tree_gp;
using sdk::Parameter;
using sdk::Space;

Space mixed_space() {
  return Space({Parameter::real("a", -2.0, 3.0), Parameter::integer("n", 0, 9),
                Parameter::categorical("c6", {"p", "q", "r", "s", "t", "u"}),
                Parameter::categorical("c3", {"x", "y", "z"}), Parameter::binary("b"),
                Parameter::real("r", 0.0, 1.0)});
}

Space real_space(int d) {
  std::vector<Parameter> ps;
  for (int i = 0; i < d; ++i) ps.push_back(Parameter::real("x" + std::to_string(i), 0.0, 1.0));
  return Space(std::move(ps));
}

Eigen::MatrixXd sample(const Space& space, int n, std::mt19937_64& rng) {
  return sdk::testing::random_points(space, static_cast<std::size_t>(n), rng);
}

Eigen::VectorXd target(const Eigen::MatrixXd& X) {
  Eigen::VectorXd y(X.rows());
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    double v = 0.0;
    for (Eigen::Index j = 0; j < X.cols(); ++j) v += std::sin(1.7 * X(i, j) + 0.3 * j) * (j + 1);
    y[i] = 10.0 * v + 3.0;
  }
  return y;
}

std::vector<bool> categorical_of(const Space& space) {
  std::vector<bool> c;
  for (std::size_t i = 0; i < space.size(); ++i)
    c.push_back(space[i].type == sdk::ParamType::Categorical);
  return c;
}

// ------------------------------------------------------------------------------------------
// Trees read back predict exactly what XGBoost predicts.

struct XgbPredictions {
  std::vector<float> values, leaves;
};

XgbPredictions xgb_predict(const Ensemble& e, const Eigen::MatrixXd& X,
                           const std::vector<bool>& categorical) {
  BoosterHandle b = nullptr;
  EXPECT_EQ(XGBoosterCreate(nullptr, 0, &b), 0);
  EXPECT_EQ(XGBoosterLoadModelFromBuffer(b, e.model_json.data(), e.model_json.size()), 0)
      << XGBGetLastError();
  std::vector<float> data;
  for (Eigen::Index i = 0; i < X.rows(); ++i)
    for (Eigen::Index j = 0; j < X.cols(); ++j) data.push_back(static_cast<float>(X(i, j)));
  DMatrixHandle dm = nullptr;
  EXPECT_EQ(XGDMatrixCreateFromMat(data.data(), static_cast<bst_ulong>(X.rows()),
                                   static_cast<bst_ulong>(X.cols()), std::nanf(""), &dm),
            0);
  std::vector<const char*> types;
  for (bool c : categorical) types.push_back(c ? "c" : "q");
  EXPECT_EQ(XGDMatrixSetStrFeatureInfo(dm, "feature_type", types.data(),
                                       static_cast<bst_ulong>(types.size())),
            0);
  XgbPredictions out;
  for (int type : {0, 6}) {
    const std::string config = "{\"type\": " + std::to_string(type) +
                               ", \"training\": false, \"iteration_begin\": 0, "
                               "\"iteration_end\": 0, \"strict_shape\": false}";
    const bst_ulong* shape = nullptr;
    bst_ulong dim = 0;
    const float* result = nullptr;
    EXPECT_EQ(XGBoosterPredictFromDMatrix(b, dm, config.c_str(), &shape, &dim, &result), 0)
        << XGBGetLastError();
    bst_ulong size = 1;
    for (bst_ulong k = 0; k < dim; ++k) size *= shape[k];
    (type == 0 ? out.values : out.leaves).assign(result, result + size);
  }
  XGDMatrixFree(dm);
  XGBoosterFree(b);
  return out;
}

void expect_readback_exact(const Space& space, std::uint64_t seed, const BoostConfig& config) {
  std::mt19937_64 rng(seed);
  const Eigen::MatrixXd X = sample(space, 40, rng);
  const Ensemble e = train_ensemble(X, target(X), categorical_of(space), config);
  ASSERT_EQ(e.trees.size(), static_cast<std::size_t>(config.rounds));
  // Random points, plus points sitting exactly on split thresholds (equality goes right).
  Eigen::MatrixXd P = sample(space, 300, rng);
  Eigen::Index on = 0;
  for (const Tree& t : e.trees) {
    for (const TreeNode& n : t.nodes) {
      if (n.is_leaf() || n.categorical || on >= 100) continue;
      P(on, n.feature) = static_cast<double>(static_cast<float>(n.threshold));
      ++on;
    }
  }
  const XgbPredictions xgb = xgb_predict(e, P, categorical_of(space));
  ASSERT_EQ(xgb.values.size(), static_cast<std::size_t>(P.rows()));
  ASSERT_EQ(xgb.leaves.size(), static_cast<std::size_t>(P.rows()) * e.trees.size());
  int mismatched_leaves = 0;
  for (Eigen::Index i = 0; i < P.rows(); ++i) {
    const Eigen::VectorXd x = P.row(i).transpose();
    for (std::size_t t = 0; t < e.trees.size(); ++t) {
      const int expected =
          static_cast<int>(xgb.leaves[static_cast<std::size_t>(i) * e.trees.size() + t]);
      if (e.trees[t].leaf_of(x.data()) != expected) ++mismatched_leaves;
    }
    EXPECT_NEAR(e.predict(x.data()), xgb.values[static_cast<std::size_t>(i)],
                1e-5 * (1.0 + std::abs(xgb.values[static_cast<std::size_t>(i)])))
        << "point " << i;
  }
  EXPECT_EQ(mismatched_leaves, 0);
}

TEST(TreeEnsemble, ReadBackPredictsLikeXgboostOnRealFeatures) {
  BoostConfig config;
  for (std::uint64_t seed : {1u, 2u, 3u}) expect_readback_exact(real_space(4), seed, config);
}

TEST(TreeEnsemble, ReadBackPredictsLikeXgboostWithCategoricalSplits) {
  BoostConfig config;  // auto: hist with native categorical splits
  config.max_depth = 4;
  for (std::uint64_t seed : {4u, 5u, 6u}) expect_readback_exact(mixed_space(), seed, config);
  BoostConfig hist;
  hist.tree_method = "hist";
  expect_readback_exact(real_space(3), 7, hist);
}

TEST(TreeEnsemble, CategoricalSplitsAreReadBack) {
  std::mt19937_64 rng(11);
  const Space space = mixed_space();
  const Eigen::MatrixXd X = sample(space, 60, rng);
  BoostConfig config;
  config.max_depth = 4;
  const Ensemble e = train_ensemble(X, target(X), categorical_of(space), config);
  int categorical = 0;
  for (const Tree& t : e.trees)
    for (const TreeNode& n : t.nodes)
      if (!n.is_leaf() && n.categorical) {
        ++categorical;
        EXPECT_FALSE(n.right_categories.empty());
      }
  EXPECT_GT(categorical, 0);
}

// XGBoost writes non-finite numbers as bare words; they are read as NaN (a categorical node's
// condition) by one pass outside strings, over any length of text.
TEST(TreeEnsemble, NonFiniteWordsAreReadAsNaNOutsideStrings) {
  const std::string padding(200000, ' ');
  const std::string json = R"({"learner": {"learner_model_param": {"base_score": "5E-1"},
    "gradient_booster": {"name": "gbtree", "model": {"trees": [{
      "left_children": [1, -1, -1], "right_children": [2, -1, -1],
      "split_indices": [0, 0, 0], "default_left": [1, 0, 0],
      "split_conditions": [)" +
                           padding + R"(-inf, NaN,)" + padding + R"(Infinity],
      "note": "nan inf NaN"}]}}}})";
  const Ensemble e = parse_ensemble_json(json);
  ASSERT_EQ(e.trees.size(), 1u);
  ASSERT_EQ(e.trees[0].nodes.size(), 3u);
  EXPECT_TRUE(std::isnan(e.trees[0].nodes[0].threshold));
  EXPECT_TRUE(std::isnan(e.trees[0].nodes[1].leaf_value));
  EXPECT_TRUE(std::isnan(e.trees[0].nodes[2].leaf_value));
  EXPECT_EQ(e.base_score, 0.5);
}

TEST(TreeEnsemble, TrainingIsDeterministic) {
  std::mt19937_64 rng(12);
  const Space space = mixed_space();
  const Eigen::MatrixXd X = sample(space, 30, rng);
  const Ensemble a = train_ensemble(X, target(X), categorical_of(space), BoostConfig{});
  const Ensemble b = train_ensemble(X, target(X), categorical_of(space), BoostConfig{});
  EXPECT_EQ(a.model_json, b.model_json);
}

// ------------------------------------------------------------------------------------------
// GP posterior equals a dense direct computation.

TEST(TreeKernelGp, PosteriorEqualsDenseComputation) {
  for (std::uint64_t seed : {21u, 22u}) {
    std::mt19937_64 rng(seed);
    const Space space = seed == 21 ? real_space(3) : mixed_space();
    const Eigen::MatrixXd X = sample(space, 35, rng);
    const Eigen::VectorXd y = target(X);
    const Ensemble e = train_ensemble(X, y, categorical_of(space), BoostConfig{});
    TreeKernelGp gp;
    GpConfig config;
    gp.fit(e, X, y, config);
    const double s0 = gp.signal_variance(), sy = gp.noise_variance();
    EXPECT_GE(s0, config.signal_lower);
    EXPECT_LE(s0, config.signal_upper);
    EXPECT_GE(sy, config.noise_lower);
    EXPECT_LE(sy, config.noise_upper);

    // Dense: agreement counted directly from the trees, no low-rank algebra.
    std::vector<const Tree*> trees;
    for (const Tree& t : e.trees)
      if (!t.degenerate()) trees.push_back(&t);
    ASSERT_FALSE(trees.empty());
    const auto agree = [&](const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
      double n = 0.0;
      for (const Tree* t : trees) n += t->leaf_of(a.data()) == t->leaf_of(b.data()) ? 1.0 : 0.0;
      return n / static_cast<double>(trees.size());
    };
    const Eigen::Index m = X.rows();
    Eigen::MatrixXd K(m, m);
    for (Eigen::Index i = 0; i < m; ++i)
      for (Eigen::Index j = 0; j < m; ++j)
        K(i, j) = s0 * agree(X.row(i).transpose(), X.row(j).transpose());
    const double mean = y.mean();
    const double sd = std::sqrt((y.array() - mean).square().sum() / static_cast<double>(m - 1));
    const Eigen::VectorXd ys = (y.array() - mean) / sd;
    Eigen::MatrixXd Kn = K;
    Kn.diagonal().array() += sy;
    const Eigen::LLT<Eigen::MatrixXd> llt(Kn);
    const Eigen::VectorXd alpha = llt.solve(ys);
    // Marginal likelihood: the fitted value is at least the midpoint start's.
    const auto loglik = [&](double a, double b) {
      Eigen::MatrixXd M = K / s0 * a;
      M.diagonal().array() += b;
      const Eigen::LLT<Eigen::MatrixXd> l(M);
      const Eigen::VectorXd v = l.solve(ys);
      const double logdet = 2.0 * l.matrixLLT().diagonal().array().log().sum();
      return (-0.5 * ys.dot(v) - 0.5 * logdet) / static_cast<double>(m) -
             0.5 * std::log(2.0 * M_PI);
    };
    EXPECT_NEAR(gp.log_likelihood(), loglik(s0, sy), 1e-8);
    EXPECT_GE(loglik(s0, sy), loglik(0.5 * (config.signal_lower + config.signal_upper),
                                     0.5 * (config.noise_lower + config.noise_upper)));

    const Eigen::MatrixXd P = sample(space, 50, rng);
    Eigen::VectorXd mu, var;
    gp.predict(P, mu, var);
    for (Eigen::Index r = 0; r < P.rows(); ++r) {
      Eigen::VectorXd k(m);
      for (Eigen::Index i = 0; i < m; ++i)
        k[i] = s0 * agree(P.row(r).transpose(), X.row(i).transpose());
      const double mu_std = k.dot(alpha);
      const double var_std = s0 + sy - k.dot(llt.solve(k));
      EXPECT_NEAR(mu[r], mean + sd * mu_std, 1e-7 * sd * (1.0 + std::abs(mu_std))) << r;
      EXPECT_NEAR(var[r], sd * sd * var_std, 1e-7 * sd * sd * (1.0 + var_std)) << r;
    }
  }
}

TEST(TreeKernelGp, RepeatedObservationsShrinkTheVarianceToTheNoiseFloor) {
  // A point observed r times has posterior variance (noisy, standardized) between sigma_y^2
  // and sigma_y^2 (1 + 1/r): conditioning on its r copies alone already gives that bound.
  // This is why LEAF-GP can keep proposing an observed cell: its stddev bonus only falls to
  // the noise floor, it never becomes negative, and the mean there stays the observed value.
  std::mt19937_64 rng(61);
  const Space space = real_space(3);
  const Eigen::MatrixXd X0 = sample(space, 15, rng);
  const Eigen::VectorXd y0 = target(X0);
  for (const int r : {1, 2, 5, 20}) {
    Eigen::MatrixXd X(X0.rows() + r - 1, 3);
    Eigen::VectorXd y(X.rows());
    X.topRows(X0.rows()) = X0;
    y.head(X0.rows()) = y0;
    for (Eigen::Index k = X0.rows(); k < X.rows(); ++k) {
      X.row(k) = X0.row(0);
      y[k] = y0[0];
    }
    const Ensemble e = train_ensemble(X, y, categorical_of(space), BoostConfig{});
    TreeKernelGp gp;
    gp.fit(e, X, y, GpConfig{});
    Eigen::VectorXd mu, var;
    gp.predict(X0.topRows(1), mu, var);
    const double var_std = var[0] / (gp.y_scale() * gp.y_scale());
    const double sy = gp.noise_variance();
    EXPECT_GE(var_std, sy * (1.0 - 1e-9)) << r;
    EXPECT_LE(var_std, sy * (1.0 + 1.0 / r) * (1.0 + 1e-9)) << r;
    // Near-interpolation: the mean at the point is its observed value within the noise.
    EXPECT_NEAR(mu[0], y0[0], 3.0 * std::sqrt(sy) * gp.y_scale()) << r;
  }
}

// ------------------------------------------------------------------------------------------
// Branch-and-bound optimum of LCB equals enumeration of all non-empty leaf cells.

struct Fitted {
  Space space;
  Eigen::MatrixXd X;
  Eigen::VectorXd y;
  Ensemble e;
  TreeKernelGp gp;
};

std::unique_ptr<Fitted> fit_small(const Space& space, std::uint64_t seed, int trees, int depth,
                                  int n) {
  auto f = std::make_unique<Fitted>(Fitted{space, {}, {}, {}, {}});
  std::mt19937_64 rng(seed);
  f->X = sample(space, n, rng);
  f->y = target(f->X);
  BoostConfig config;
  config.rounds = trees;
  config.max_depth = depth;
  config.learning_rate = 0.3;
  f->e = train_ensemble(f->X, f->y, categorical_of(space), config);
  f->gp.fit(f->e, f->X, f->y, GpConfig{});
  return f;
}

// Known linear constraint sum_j w_j x_j <= rhs, for the enumeration and the model alike, and
// optionally the nonconvex x_0^2 + x_last^2 >= ring^2 (outside a disc).
struct LinearKnown {
  std::vector<double> w;
  double rhs = 0.0;
  bool active = false;
  double ring = 0.0;  // 0: no ring constraint
};

double lcb_of_leaves(const Fitted& f, const std::vector<int>& leaves, double kappa) {
  Eigen::VectorXd s = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(f.gp.size()));
  for (std::size_t k = 0; k < leaves.size(); ++k)
    for (std::size_t i = 0; i < f.gp.size(); ++i)
      if (f.gp.training_leaf(k, i) == leaves[k])
        s[static_cast<Eigen::Index>(i)] += 1.0 / leaves.size();
  double mu = 0.0, var = 0.0;
  f.gp.predict_std(s, mu, var);
  return -(f.gp.y_mean() + f.gp.y_scale() * mu) + kappa * f.gp.y_scale() * std::sqrt(var);
}

bool cell_nonempty(const Space& space, const Cell& cell, const LinearKnown& known) {
  double lhs = 0.0;
  for (std::size_t i = 0; i < space.size(); ++i) {
    const auto j = static_cast<Eigen::Index>(i);
    if (space[i].type == sdk::ParamType::Categorical) {
      if (cell.allowed[i].empty()) return false;
      continue;
    }
    if (integral_coordinate(space[i]) ? cell.lower[j] > cell.upper[j]
                                      : !(cell.lower[j] < cell.upper[j])) {
      return false;
    }
    if (known.active) lhs += known.w[i] * (known.w[i] >= 0 ? cell.lower[j] : cell.upper[j]);
  }
  if (!known.active || lhs > known.rhs) return !known.active;
  if (known.ring > 0.0) {
    // With the ring, the linear row has weights on x_0 and x_last only (w0 a + w1 b <= rhs).
    // The convex x_0^2 + x_last^2 is largest over the polygon (box cut by that half-plane) at
    // one of its vertices: box corners below the line, and the line's crossings of the edges.
    const auto last = static_cast<Eigen::Index>(space.size() - 1);
    const double w0 = known.w.front(), w1 = known.w.back();
    const double l0 = cell.lower[0], u0 = cell.upper[0], l1 = cell.lower[last],
                 u1 = cell.upper[last];
    double far = -1.0;
    auto consider = [&](double a, double b) {
      if (a >= l0 - 1e-12 && a <= u0 + 1e-12 && b >= l1 - 1e-12 && b <= u1 + 1e-12 &&
          w0 * a + w1 * b <= known.rhs + 1e-12) {
        far = std::max(far, a * a + b * b);
      }
    };
    for (double a : {l0, u0}) {
      for (double b : {l1, u1}) consider(a, b);
      if (w1 != 0.0) consider(a, (known.rhs - w0 * a) / w1);
    }
    if (w0 != 0.0) {
      for (double b : {l1, u1}) consider((known.rhs - w1 * b) / w0, b);
    }
    return far >= known.ring * known.ring;
  }
  return true;
}

double enumerate_best(const Fitted& f, const LinearKnown& known, double kappa) {
  const std::vector<int>& active = f.gp.active_trees();
  std::vector<std::size_t> idx(active.size(), 0);
  double best = -std::numeric_limits<double>::infinity();
  while (true) {
    std::vector<int> leaves;
    for (std::size_t k = 0; k < active.size(); ++k)
      leaves.push_back(f.e.trees[static_cast<std::size_t>(active[k])].leaves[idx[k]]);
    const Cell cell = cell_of(f.space, f.gp, leaves);
    if (cell_nonempty(f.space, cell, known)) best = std::max(best, lcb_of_leaves(f, leaves, kappa));
    std::size_t k = 0;
    while (k < active.size()) {
      if (++idx[k] < f.e.trees[static_cast<std::size_t>(active[k])].leaves.size()) break;
      idx[k] = 0;
      ++k;
    }
    if (k == active.size()) break;
  }
  return best;
}

sdk::SolveResult solve_lcb(const Fitted& f, const LinearKnown& known, double kappa,
                           Formulation* out = nullptr, sdk::SolveOptions options = {},
                           int threads = 1) {
  sdk::Model model;
  const sdk::PointVariables point = sdk::add_point_variables(model, f.space);
  const Formulation form = formulate(model, point, f.space, f.gp);
  sdk::Objective obj;
  obj.sense = sdk::ObjectiveSense::Maximize;
  for (const auto& t : form.output.mean) obj.linear.push_back({t.var, -t.coef});
  obj.linear.push_back({form.output.stddev_var, kappa});
  obj.constant = -form.output.mean_constant;
  // The targets' mean is declared a shift (the paper's model is the standardized one).
  EXPECT_NEAR(form.output.mean_offset, f.y.mean(), 1e-12 * (1.0 + std::abs(f.y.mean())));
  obj.offset = -form.output.mean_offset;
  model.set_objective(obj);
  if (known.active) {
    sdk::LinearRow row{"known", {}, sdk::RowSense::LessEqual, known.rhs};
    for (std::size_t i = 0; i < known.w.size(); ++i)
      if (known.w[i] != 0.0) row.terms.push_back({point.x_vars[i], known.w[i]});
    model.add_linear_row(row);
  }
  if (known.ring > 0.0) {
    const int a = point.x_vars.front(), b = point.x_vars.back();
    model.add_quadratic_row(sdk::QuadraticRow{"ring",
                                              {{a, a, -1.0}, {b, b, -1.0}},
                                              {},
                                              sdk::RowSense::LessEqual,
                                              -known.ring * known.ring});
  }
  if (options.time_limit_seconds == sdk::kInfinity && options.node_limit < 0) {
    options.relative_gap = 1e-7;
    options.absolute_gap = 1e-7;
    options.time_limit_seconds = 120.0;
  }
  if (out != nullptr) *out = form;
  plugins::glpk::BnbConfig config;
  config.threads = threads;
  return plugins::glpk::solve_model(model, options, config);
}

TEST(TreeGpFormulation, BranchAndBoundOptimumEqualsLeafCellEnumeration) {
  const Space mixed({Parameter::real("a", -1.0, 2.0), Parameter::integer("n", 0, 6),
                     Parameter::categorical("c", {"p", "q", "r", "s", "t"}),
                     Parameter::real("r", 0.0, 1.0)});
  int compared = 0;
  for (std::uint64_t seed = 31; seed < 37; ++seed) {
    const Space& space = seed % 2 == 0 ? mixed : real_space(3);
    const auto f = fit_small(space, seed, 4, 2, 14);
    for (const bool constrained : {false, true}) {
      LinearKnown known;
      if (constrained) {
        known.active = true;
        known.w.assign(space.size(), 0.0);
        known.w[0] = 1.0;
        known.w[space.size() - 1] = 1.0;
        known.rhs = seed % 2 == 0 ? 0.4 : 0.7;  // cuts off a good part of the domain
      }
      for (const double kappa : {0.0, 1.96}) {
        const double expected = enumerate_best(*f, known, kappa);
        const sdk::SolveResult r = solve_lcb(*f, known, kappa);
        ASSERT_EQ(r.status, sdk::SolveStatus::Optimal) << r.message;
        EXPECT_NEAR(r.objective, expected, 1e-5 * (1.0 + std::abs(expected)))
            << "seed " << seed << " constrained " << constrained << " kappa " << kappa;
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, 24);
}

// The certificate against enumeration, on models the small test above does not reach: 5 trees
// of depth 3 (up to 8^5 leaf combinations), the linear constraint with and without the
// nonconvex "outside a disc" row, solved to the end with 1 and 3 threads and stopped by a node
// limit and by a time limit. A finished solve's objective is the enumerated optimum and its bound
// within the gap of it; a stopped one's bound is still >= the optimum >= its objective.
TEST(TreeGpFormulation, ReportedBoundBracketsTheEnumeratedOptimum) {
  const Space space = real_space(3);
  int finished = 0, stopped = 0;
  for (std::uint64_t seed = 51; seed < 53; ++seed) {
    const auto f = fit_small(space, seed, 5, 3, 30);
    for (const bool nonconvex : {false, true}) {
      LinearKnown known;
      known.active = true;
      known.w = {1.0, 0.0, 1.0};
      known.rhs = 1.2;
      known.ring = nonconvex ? 0.8 : 0.0;
      const double kappa = 1.96;
      const double optimum = enumerate_best(*f, known, kappa);
      ASSERT_TRUE(std::isfinite(optimum));
      const std::string where = "seed " + std::to_string(seed) + (nonconvex ? " disc" : "");
      for (const int threads : {1, 3}) {
        const sdk::SolveResult r = solve_lcb(*f, known, kappa, nullptr, {}, threads);
        ASSERT_EQ(r.status, sdk::SolveStatus::Optimal) << where << ": " << r.message;
        EXPECT_NEAR(r.objective, optimum, 1e-5 * (1.0 + std::abs(optimum))) << where;
        EXPECT_GE(r.best_bound, optimum - 1e-6 * (1.0 + std::abs(optimum))) << where;
        EXPECT_LE(r.best_bound - r.objective, 1e-6 * (1.0 + std::abs(optimum))) << where;
        ++finished;
      }
      sdk::SolveOptions by_nodes;
      by_nodes.node_limit = 2;
      sdk::SolveOptions by_time;
      by_time.time_limit_seconds = 1e-3;
      for (const sdk::SolveOptions& o : {by_nodes, by_time}) {
        for (const int threads : {1, 3}) {
          const sdk::SolveResult r = solve_lcb(*f, known, kappa, nullptr, o, threads);
          ASSERT_TRUE(r.status == sdk::SolveStatus::Optimal ||
                      r.status == sdk::SolveStatus::LimitReached)
              << where << ": " << r.message;
          EXPECT_GE(r.best_bound, optimum - 1e-6 * (1.0 + std::abs(optimum))) << where;
          if (!r.x.empty()) {
            EXPECT_LE(r.objective, optimum + 1e-6 * (1.0 + std::abs(optimum))) << where;
            EXPECT_GE(r.best_bound, r.objective) << where;
          }
          stopped += r.status == sdk::SolveStatus::LimitReached ? 1 : 0;
        }
      }
    }
  }
  EXPECT_EQ(finished, 8);
  EXPECT_GE(stopped, 4) << "the limits stop most of these solves";
}

TEST(TreeGpFormulation, ModelValueAtOptimumEqualsPrediction) {
  // The mean and stddev rows evaluate, at the optimal cell's centre, to predict()'s values.
  const auto f = fit_small(real_space(3), 41, 10, 3, 25);
  Formulation form;
  const sdk::SolveResult r = solve_lcb(*f, {}, 1.96, &form);
  ASSERT_EQ(r.status, sdk::SolveStatus::Optimal);
  const std::vector<int> leaves = active_leaves(form, f->gp, r.x);
  const Cell cell = cell_of(f->space, f->gp, leaves);
  std::mt19937_64 rng(1);
  const Eigen::VectorXd c = cell_centre(f->space, cell, rng);
  EXPECT_TRUE(cell.contains(f->space, c));
  EXPECT_EQ(leaves_of(f->gp, c), leaves);
  Eigen::VectorXd mu, var;
  f->gp.predict(c.transpose(), mu, var);
  EXPECT_NEAR(r.objective, -mu[0] + 1.96 * std::sqrt(var[0]), 1e-5 * (1.0 + std::abs(mu[0])));
}

TEST(TreeGpFormulation, InactiveConditionalParametersSitAtTheirDefault) {
  Parameter cond = Parameter::real("x_cond", 0.0, 1.0);
  cond.default_value = 0.2;
  cond.condition = sdk::Condition{"cat", {std::string("b"), std::string("c")}};
  Parameter bcond = Parameter::integer("n_cond", 0, 6);
  bcond.default_value = std::int64_t{1};
  bcond.condition = sdk::Condition{"flag", {true}};
  // An integer parent, as in SMAC's "stride of layer n is active iff #layers >= n".
  Parameter icond = Parameter::real("y_cond", 0.0, 2.0);
  icond.default_value = 0.5;
  icond.condition = sdk::Condition{"layers", {std::int64_t{2}, std::int64_t{3}}};
  const Space space({Parameter::categorical("cat", {"a", "b", "c"}), Parameter::binary("flag"),
                     Parameter::real("x", 0.0, 1.0), cond, bcond,
                     Parameter::integer("layers", 1, 3), icond});
  const auto f = fit_small(space, 61, 6, 3, 20);
  // For each parent value: the largest value the model lets the child take.
  const auto max_child = [&](int parent, double parent_value, int child) {
    sdk::Model model;
    const sdk::PointVariables point = sdk::add_point_variables(model, space);
    formulate(model, point, space, f->gp);
    model.variable(point.x_vars[static_cast<std::size_t>(parent)]).lower = parent_value;
    model.variable(point.x_vars[static_cast<std::size_t>(parent)]).upper = parent_value;
    sdk::Objective obj;
    obj.sense = sdk::ObjectiveSense::Maximize;
    obj.linear.push_back({point.x_vars[static_cast<std::size_t>(child)], 1.0});
    model.set_objective(obj);
    const sdk::SolveResult r = plugins::glpk::solve_model(model, {});
    EXPECT_EQ(r.status, sdk::SolveStatus::Optimal);
    return r.objective;
  };
  EXPECT_NEAR(max_child(0, 0.0, 3), 0.2, 1e-6);  // cat = a: x_cond inactive
  EXPECT_NEAR(max_child(0, 1.0, 3), 1.0, 1e-6);  // cat = b: active
  EXPECT_NEAR(max_child(0, 2.0, 3), 1.0, 1e-6);
  EXPECT_NEAR(max_child(1, 0.0, 4), 1.0, 1e-6);  // flag = false: n_cond at its default 1
  EXPECT_NEAR(max_child(1, 1.0, 4), 6.0, 1e-6);
  EXPECT_NEAR(max_child(5, 1.0, 6), 0.5, 1e-6);  // layers = 1: y_cond at its default
  EXPECT_NEAR(max_child(5, 2.0, 6), 2.0, 1e-6);
  EXPECT_NEAR(max_child(5, 3.0, 6), 2.0, 1e-6);
}

// ------------------------------------------------------------------------------------------
// Through the real glpk_bnb plugin: decoded queries lie in the optimal cell and satisfy the
// known constraints.

const sdk::ComponentInfo& glpk_component() {
  static const auto* p =
      new sdk::testing::PluginUnderTest(ARBO_PLUGIN_DIR "/libarbo_inner_solver_glpk_bnb.so");
  const sdk::ComponentInfo* info = p->find(sdk::Kind::InnerSolver, "glpk_bnb");
  if (info == nullptr) throw std::runtime_error("no inner_solver/glpk_bnb");
  return *info;
}

class SolverContext final : public sdk::testing::TestContext {
 public:
  using TestContext::TestContext;
  sdk::ModelSolver* model_solver() override { return solver; }
  sdk::ModelSolver* solver = nullptr;
};

// LCB written into the model, forwarding decoding to the surrogate (as acquisition/lcb does).
class TestLcb final : public sdk::Acquisition,
                      public sdk::FormulatesAcquisition,
                      public sdk::DecodesSolution {
 public:
  explicit TestLcb(const plugins::TreeGp& gp) : gp_(gp) {}
  void bind(const sdk::AcquisitionInputs&) override {}
  double value(const Eigen::VectorXd& x) const override {
    Eigen::VectorXd mu, var;
    gp_.predict(x.transpose(), mu, var);
    return -mu[0] + 1.96 * std::sqrt(var[0]);
  }
  void formulate(sdk::Model& model, const sdk::PointVariables& point) const override {
    const auto out = gp_.formulate(model, point);
    sdk::Objective obj;
    obj.sense = sdk::ObjectiveSense::Maximize;
    for (const auto& t : out.mean) obj.linear.push_back({t.var, -t.coef});
    obj.linear.push_back({out.stddev_var, 1.96});
    obj.constant = -out.mean_constant;
    model.set_objective(obj);
  }
  bool decode(const sdk::Model& model, const sdk::PointVariables& point,
              const std::vector<double>& solution,
              const std::vector<const sdk::Constraint*>& constraints,
              Eigen::VectorXd& x) const override {
    return gp_.decode(model, point, solution, constraints, x);
  }

 private:
  const plugins::TreeGp& gp_;
};

// sum_j w_j x_j <= rhs, formulated as one row.
class LinearConstraint final : public sdk::Constraint, public sdk::FormulatesConstraint {
 public:
  LinearConstraint(std::vector<double> w, double rhs) : w_(std::move(w)), rhs_(rhs) {}
  double violation(const Eigen::VectorXd& x) const override {
    double lhs = 0.0;
    for (std::size_t i = 0; i < w_.size(); ++i) lhs += w_[i] * x[static_cast<Eigen::Index>(i)];
    return std::max(0.0, lhs - rhs_);
  }
  void formulate(sdk::Model& model, const sdk::PointVariables& point) const override {
    sdk::LinearRow row{"lin", {}, sdk::RowSense::LessEqual, rhs_};
    for (std::size_t i = 0; i < w_.size(); ++i)
      if (w_[i] != 0.0) row.terms.push_back({point.x_vars[i], w_[i]});
    model.add_linear_row(row);
  }

 private:
  std::vector<double> w_;
  double rhs_;
};

// One LEAF-GP iteration on 20 random points of `space` (seed): the fitted model's LCB solved
// by glpk_bnb and decoded, with the optimal cell read from the solver's solution (the
// decoder's own view) and the acquisition at the query.
struct DecodedIteration {
  sdk::Proposal proposal;
  std::vector<int> leaves;        // optimal leaf per active tree
  std::vector<int> query_leaves;  // the leaves every tree puts the query in
  Cell cell;
  double acquisition = 0.0;  // LCB at the query
};

DecodedIteration decode_one(const Space& space, std::uint64_t seed,
                            const std::vector<const sdk::Constraint*>& cons,
                            const sdk::ParamSet& gp_params) {
  const sdk::ParamSet solver_params =
      sdk::validate_params(glpk_component().params(), {}, "inner_solver/glpk_bnb");
  SolverContext solver_ctx(seed), gp_ctx(seed);
  std::unique_ptr<sdk::Component> solver_obj(
      glpk_component().create(sdk::CreateArgs{solver_ctx, solver_params, space}));
  auto* inner = dynamic_cast<sdk::InnerSolver*>(solver_obj.get());
  gp_ctx.solver = dynamic_cast<sdk::ModelSolver*>(solver_obj.get());
  if (inner == nullptr || gp_ctx.solver == nullptr) throw std::runtime_error("glpk_bnb kinds");
  plugins::TreeGp gp(sdk::CreateArgs{gp_ctx, gp_params, space});
  std::mt19937_64 rng(seed);
  sdk::Dataset data;
  data.reset(space.size(), {});
  const Eigen::MatrixXd X = sample(space, 20, rng);
  const Eigen::VectorXd y = target(X);
  for (Eigen::Index i = 0; i < X.rows(); ++i) data.append(X.row(i).transpose(), y[i], {});
  sdk::Metric metric;
  gp.fit(data, metric);
  TestLcb acq(gp);
  DecodedIteration it;
  it.proposal = inner->maximize(sdk::SolveRequest{&acq, space, cons, data});
  if (!it.proposal.found || !it.proposal.certificate.has_value()) return it;
  Formulation form;
  {
    sdk::Model m;
    form = formulate(m, sdk::add_point_variables(m, space), space, gp.gp());
  }
  it.leaves = active_leaves(form, gp.gp(), it.proposal.certificate->x);
  it.query_leaves = leaves_of(gp.gp(), it.proposal.x);
  it.cell = cell_of(space, gp.gp(), it.leaves);
  it.acquisition = acq.value(it.proposal.x);
  return it;
}

const Space& decode_space() {
  static const Space space({Parameter::real("a", 0.0, 1.0), Parameter::integer("n", 0, 8),
                            Parameter::categorical("c", {"p", "q", "r", "s"}),
                            Parameter::real("b", 0.0, 1.0)});
  return space;
}

sdk::ParamSet tree_gp_params(const std::map<std::string, sdk::ParamValue>& values = {}) {
  return sdk::validate_params(plugins::TreeGp::params(), values, "surrogate/tree_gp");
}

TEST(TreeGpDecode, QueryLiesInTheOptimalCellAndSatisfiesKnownConstraints) {
  const Space& space = decode_space();
  LinearConstraint sum({1.0, 0.0, 0.0, 1.0}, 0.6);
  const std::vector<std::vector<const sdk::Constraint*>> variants = {{}, {&sum}};
  int projected = 0, total = 0;
  for (std::uint64_t seed = 51; seed < 57; ++seed) {
    for (const auto& cons : variants) {
      const DecodedIteration it = decode_one(space, seed, cons, tree_gp_params());
      const sdk::Proposal& p = it.proposal;
      ASSERT_TRUE(p.found) << p.note;
      ASSERT_TRUE(p.certificate.has_value());
      EXPECT_EQ(p.certificate->status, sdk::SolveStatus::Optimal);
      ASSERT_TRUE(p.model_size.has_value());
      EXPECT_GT(p.model_size->binaries, 0);
      EXPECT_EQ(p.model_size->quadratic_rows, 1);
      EXPECT_TRUE(it.cell.contains(space, p.x)) << space.describe(p.x);
      // Every tree puts the query in the optimal cell's leaf, the projected ones too.
      EXPECT_EQ(it.query_leaves, it.leaves) << space.describe(p.x);
      EXPECT_NE(p.note.find("decoded"), std::string::npos) << p.note;
      for (const sdk::Constraint* c : cons) EXPECT_LE(c->violation(p.x), 1e-6);
      // How often the projection was needed.
      std::mt19937_64 r2(0);
      const Eigen::VectorXd centre = cell_centre(space, it.cell, r2);
      if (!sdk::satisfies(cons, centre)) ++projected;
      // The acquisition at the query equals the certified optimum (constant on the cell).
      EXPECT_NEAR(it.acquisition, p.certificate->objective,
                  1e-4 * (1.0 + std::abs(p.certificate->objective)));
      ++total;
    }
  }
  EXPECT_EQ(total, 12);
  EXPECT_GT(projected, 0);
  RecordProperty("projected", projected);
}

// The projection of a centre c onto a + b <= 0.6 minimizes sum_i ((x_i - c_i) / s_i)^2: where
// the answer lies inside the cell, x_i = c_i - lambda s_i^2 with lambda = (c_a + c_b - 0.6) /
// (s_a^2 + s_b^2), s_i the cell's width (cell_scaled) or 1 (plain, Eq. 11 as printed). The
// solver meets it to its gaps (about 1e-4 here); the two metrics' answers differ by far more in
// the cells counted as `distinct`.
TEST(TreeGpDecode, ProjectionDistanceIsScaledByTheCellWidthsOrPlain) {
  const Space& space = decode_space();
  LinearConstraint sum({1.0, 0.0, 0.0, 1.0}, 0.6);
  const std::vector<const sdk::Constraint*> cons = {&sum};
  for (const std::string& distance : {std::string("cell_scaled"), std::string("plain")}) {
    int checked = 0, distinct = 0;
    for (std::uint64_t seed = 51; seed < 71; ++seed) {
      const DecodedIteration it =
          decode_one(space, seed, cons, tree_gp_params({{"projection_distance", distance}}));
      ASSERT_TRUE(it.proposal.found) << it.proposal.note;
      std::mt19937_64 r2(0);
      const Eigen::VectorXd centre = cell_centre(space, it.cell, r2);
      if (sdk::satisfies(cons, centre)) continue;
      // The analytic answer under each metric (0: cell_scaled, 1: plain), and whether it lies
      // inside the cell.
      Eigen::Vector2d answer[2];
      bool inside[2];
      const Eigen::Index a = 0, b = 3;
      const Eigen::Vector2d c(centre[a], centre[b]);
      const Eigen::Vector2d lo(it.cell.lower[a], it.cell.lower[b]);
      const Eigen::Vector2d hi(it.cell.closed_upper(a), it.cell.closed_upper(b));
      for (int m = 0; m < 2; ++m) {
        const Eigen::Vector2d s2 = m == 0 ? (hi - lo).cwiseAbs2().eval() : Eigen::Vector2d(1, 1);
        answer[m] = c - (c.sum() - 0.6) / s2.sum() * s2;
        inside[m] = (answer[m].array() > lo.array() + 1e-6).all() &&
                    (answer[m].array() < hi.array() - 1e-6).all();
      }
      const int own = distance == "cell_scaled" ? 0 : 1;
      if (!inside[own]) continue;
      const Eigen::Vector2d x(it.proposal.x[a], it.proposal.x[b]);
      EXPECT_LE((x - answer[own]).cwiseAbs().maxCoeff(), 1e-3)
          << distance << " seed " << seed << ": " << space.describe(it.proposal.x) << ", expected "
          << answer[own].transpose() << "; centre " << c.transpose() << ", cell " << lo.transpose()
          << " to " << hi.transpose();
      ++checked;
      if ((answer[0] - answer[1]).cwiseAbs().maxCoeff() > 1e-2) ++distinct;
    }
    EXPECT_GT(distinct, 0) << distance;
    RecordProperty(distance, checked);
  }
}

// LEAF-GP-RND's query: the representative of x is the centre of x's own leaf-intersection box,
// so every tree puts both in the same leaf, and its real coordinates are the box's midpoints.
TEST(TreeGpDecode, RepresentativeIsTheCentreOfTheSamplesCell) {
  const Space& space = decode_space();
  SolverContext ctx(7);
  plugins::TreeGp gp(sdk::CreateArgs{ctx, tree_gp_params(), space});
  std::mt19937_64 rng(7);
  sdk::Dataset data;
  data.reset(space.size(), {});
  const Eigen::MatrixXd X = sample(space, 20, rng);
  const Eigen::VectorXd y = target(X);
  for (Eigen::Index i = 0; i < X.rows(); ++i) data.append(X.row(i).transpose(), y[i], {});
  EXPECT_THROW(gp.representative(X.row(0).transpose()), sdk::Error);  // before fit
  gp.fit(data, sdk::Metric{});
  const Eigen::MatrixXd P = sample(space, 50, rng);
  int moved = 0;
  for (Eigen::Index i = 0; i < P.rows(); ++i) {
    const Eigen::VectorXd x = P.row(i).transpose();
    const Eigen::VectorXd r = gp.representative(x);
    const std::vector<int> leaves = leaves_of(gp.gp(), x);
    EXPECT_EQ(leaves_of(gp.gp(), r), leaves) << space.describe(x);
    const Cell cell = cell_of(space, gp.gp(), leaves);
    for (const Eigen::Index j : {Eigen::Index{0}, Eigen::Index{3}}) {
      EXPECT_DOUBLE_EQ(r[j], std::min(0.5 * (cell.lower[j] + cell.upper[j]), cell.closed_upper(j)))
          << space.describe(x);
    }
    EXPECT_TRUE(space.contains(r));
    moved += (r - x).norm() > 1e-9 ? 1 : 0;
  }
  EXPECT_GT(moved, 40);  // a random point is almost never its cell's centre
}

// A cell left of a split at v holds x < v only (XGBoost sends x = v right): its largest
// point is the last float32 below v, and the centre of a cell one float32 step wide stays in.
TEST(TreeGpDecode, OpenUpperBoundsEndBelowTheThreshold) {
  const Space space({Parameter::real("a", 0.0, 1.0)});
  Cell cell;
  cell.lower = Eigen::VectorXd::Constant(1, 0.25);
  cell.upper = Eigen::VectorXd::Constant(1, 0.5);
  cell.upper_open = {true};
  cell.allowed.resize(1);
  const double below = static_cast<double>(std::nextafter(0.5F, 0.0F));
  EXPECT_EQ(cell.closed_upper(0), below);
  EXPECT_TRUE(cell.contains(space, Eigen::VectorXd::Constant(1, below), 0.0));
  EXPECT_FALSE(cell.contains(space, Eigen::VectorXd::Constant(1, 0.5), 0.0));
  cell.lower[0] = below;
  EXPECT_FALSE(cell.empty());
  std::mt19937_64 rng(1);
  EXPECT_EQ(cell_centre(space, cell, rng)[0], below);
  cell.lower[0] = 0.5;  // x >= v and x < v: no point
  EXPECT_TRUE(cell.empty());
  cell.upper_open = {false};  // x <= v: the point v
  EXPECT_FALSE(cell.empty());
}

TEST(TreeGpPlugin, PassesTheConformanceKit) {
  sdk::testing::expect_plugin_conforms(ARBO_PLUGIN_DIR "/libarbo_surrogate_tree_gp.so");
}

}  // namespace
