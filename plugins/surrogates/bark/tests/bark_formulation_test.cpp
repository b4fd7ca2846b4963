// SPDX-License-Identifier: MIT
// BARK's integrated UCB as a model (Boyne et al., Sec. 6.1, Eqs. 9-10): the posterior samples
// converted to tree_gp's trees predict exactly what BARK predicts, and the branch-and-bound
// optimum of the model over the union of all samples' trees, read at the centre of the decoded
// cell, equals the integrated bound computed directly from BARK's per-sample predictions, and
// no random point of the space scores higher.
#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include <arbo/sdk/capabilities.hpp>
#include <arbo/sdk/testing/conformance.hpp>

#include "bark.hpp"
#include "bnb.hpp"

namespace {

using namespace arbo;

constexpr double kKappa = 1.96;

struct Fixture {
  explicit Fixture(const sdk::Space& s)
      : space(s),
        params(sdk::validate_params(plugins::Bark::params(),
                                    {{"num_trees", std::int64_t{10}},
                                     {"chains", std::int64_t{2}},
                                     {"burn_in", std::int64_t{100}},
                                     {"sweeps", std::int64_t{100}},
                                     {"thinning", std::int64_t{50}}},
                                    "surrogate/bark")),
        bark(sdk::CreateArgs{ctx, params, space}) {
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    data.reset(space.size(), {});
    Eigen::VectorXd x(static_cast<Eigen::Index>(space.size()));
    for (int i = 0; i < 18; ++i) {
      Eigen::VectorXd unit(x.size());
      for (Eigen::Index j = 0; j < x.size(); ++j) unit[j] = u(rng);
      x = space.from_unit(unit);
      const double f = std::sin(3.0 * x[0]) + (x.size() > 2 ? 0.3 * x[2] : 0.0) +
                       (x.size() > 3 && x[3] == 1.0 ? 0.8 : 0.0) + 0.5 * x[1] * x[1];
      data.append(x, f, Eigen::VectorXd());
    }
    bark.fit(data, sdk::Metric{sdk::Metric::kObjective, "objective"});
  }
  // (1/S) sum_s (kappa sd_s - mean_s) at x, from BARK's own per-sample predictions.
  double integrated(const Eigen::VectorXd& x) const {
    Eigen::MatrixXd m, v;
    bark.predict_components(x.transpose(), m, v);
    return (kKappa * v.cwiseSqrt() - m).mean();
  }

  sdk::testing::TestContext ctx{3};
  sdk::Space space;
  sdk::ParamSet params;
  plugins::Bark bark;
  sdk::Dataset data;
};

sdk::Space mixed_space() {
  return sdk::Space({sdk::Parameter::real("a", 0.0, 2.0), sdk::Parameter::real("b", -1.0, 1.0),
                     sdk::Parameter::integer("k", 0, 4),
                     sdk::Parameter::categorical("c", {"red", "green", "blue"})});
}

TEST(BarkFormulation, ConvertedSamplesPredictWhatBarkPredicts) {
  const Fixture f(mixed_space());
  const auto& gps = f.bark.sample_gps();
  ASSERT_EQ(gps.size(), f.bark.num_components());
  ASSERT_EQ(gps.size(), 4u);
  std::mt19937_64 rng(11);
  Eigen::MatrixXd X = sdk::testing::random_points(f.space, 200, rng);
  X.topRows(f.data.X.rows()) = f.data.X;  // the training points too
  Eigen::MatrixXd m, v;
  f.bark.predict_components(X, m, v);
  for (std::size_t s = 0; s < gps.size(); ++s) {
    Eigen::VectorXd gm, gv;
    gps[s].predict(X, gm, gv);
    const auto c = static_cast<Eigen::Index>(s);
    EXPECT_LE((gm - m.col(c)).cwiseAbs().maxCoeff(), 1e-8) << "sample " << s;
    EXPECT_LE((gv - v.col(c)).cwiseAbs().maxCoeff(), 1e-8) << "sample " << s;
  }
}

TEST(BarkFormulation, ModelOptimumAtTheDecodedCellEqualsTheIntegratedBound) {
  for (const sdk::Space& space :
       {mixed_space(),
        sdk::Space({sdk::Parameter::real("a", 0.0, 2.0), sdk::Parameter::real("b", -1.0, 1.0)})}) {
    SCOPED_TRACE(space.describe(Eigen::VectorXd::Zero(static_cast<Eigen::Index>(space.size()))));
    const Fixture f(space);
    sdk::Model model;
    const sdk::PointVariables point = sdk::add_point_variables(model, space);
    const auto outputs = f.bark.formulate_components(model, point);
    ASSERT_EQ(outputs.size(), f.bark.num_components());
    sdk::Objective objective;
    objective.sense = sdk::ObjectiveSense::Maximize;
    const double w = 1.0 / static_cast<double>(outputs.size());
    for (const auto& o : outputs) {
      ASSERT_GE(o.stddev_var, 0);
      for (const auto& t : o.mean) objective.linear.push_back({t.var, -w * t.coef});
      objective.linear.push_back({o.stddev_var, w * kKappa});
      objective.constant -= w * o.mean_constant;
      // Each sample's shift is the targets' mean (its standardized model has none).
      EXPECT_NEAR(o.mean_offset, f.data.y.mean(), 1e-12 * (1.0 + std::abs(f.data.y.mean())));
      objective.offset =
          std::isnan(objective.offset) ? -w * o.mean_offset : objective.offset - w * o.mean_offset;
    }
    model.set_objective(objective);
    sdk::SolveOptions options;
    options.relative_gap = 1e-9;
    options.absolute_gap = 1e-9;
    options.time_limit_seconds = 300.0;
    const sdk::SolveResult r = plugins::glpk::solve_model(model, options, {});
    ASSERT_EQ(r.status, sdk::SolveStatus::Optimal) << r.message;

    Eigen::VectorXd x(static_cast<Eigen::Index>(space.size()));
    for (std::size_t i = 0; i < space.size(); ++i) {
      x[static_cast<Eigen::Index>(i)] = r.x[static_cast<std::size_t>(point.x_vars[i])];
    }
    ASSERT_TRUE(f.bark.decode(model, point, r.x, {}, x));
    // The objective is constant on the cell: its value at the centre is the model's optimum.
    EXPECT_NEAR(f.integrated(x), r.objective, 1e-6 * (1.0 + std::abs(r.objective)));
    // And no point of the space beats it (the bound holds up to the gap).
    std::mt19937_64 rng(5);
    const Eigen::MatrixXd P = sdk::testing::random_points(space, 3000, rng);
    double best = -sdk::kInfinity;
    for (Eigen::Index k = 0; k < P.rows(); ++k) {
      best = std::max(best, f.integrated(P.row(k).transpose()));
    }
    EXPECT_LE(best, r.objective + 1e-6 * (1.0 + std::abs(r.objective)));
    EXPECT_GE(best, r.objective - 0.5) << "the random points should come near the optimum";
  }
}

}  // namespace
