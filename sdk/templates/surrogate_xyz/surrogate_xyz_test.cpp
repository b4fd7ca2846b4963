// SPDX-License-Identifier: MIT
// Tests of the template surrogate, loaded from its .so as the kernel loads it.
#include <memory>

#include <gtest/gtest.h>

#include <arbo/sdk/testing/conformance.hpp>

namespace {

using namespace arbo::sdk;
using arbo::sdk::testing::expect_plugin_conforms;
using arbo::sdk::testing::PluginUnderTest;
using arbo::sdk::testing::TestContext;

// The generic contract: parameters, factory, fit/predict sizes, finiteness, determinism.
TEST(surrogate_xyz_plugin, conformance) { expect_plugin_conforms(XYZ_PLUGIN_PATH); }

// What is specific to this method: with k = 1 the mean at a training point is its target and
// the variance is zero there (no spread, no distance).
TEST(surrogate_xyz_plugin, interpolates_with_one_neighbour) {
  const PluginUnderTest plugin(XYZ_PLUGIN_PATH);
  const ComponentInfo* info = plugin.find(Kind::Surrogate, "xyz");
  ASSERT_NE(info, nullptr);
  TestContext ctx(1);
  const Space space({Parameter::real("a", 0, 10), Parameter::real("b", -1, 1)});
  const ParamSet params =
      validate_params(info->params(), {{"k", std::int64_t{1}}}, "surrogate/xyz");
  std::unique_ptr<Component> object(info->create(CreateArgs{ctx, params, space}));
  auto* model = dynamic_cast<Surrogate*>(object.get());
  ASSERT_NE(model, nullptr);

  Dataset data;
  data.reset(2, {});
  const Eigen::VectorXd none(0);
  data.append(Eigen::Vector2d(1, 0.5), 3.0, none);
  data.append(Eigen::Vector2d(9, -0.5), -1.0, none);
  model->fit(data, Metric{});

  Eigen::MatrixXd X(3, 2);
  X << 1, 0.5, 9, -0.5, 8, -0.4;
  Eigen::VectorXd mean, var;
  model->predict(X, mean, var);
  EXPECT_DOUBLE_EQ(mean[0], 3.0);
  EXPECT_DOUBLE_EQ(mean[1], -1.0);
  EXPECT_DOUBLE_EQ(mean[2], -1.0);  // nearest is the second point
  EXPECT_DOUBLE_EQ(var[0], 0.0);
  EXPECT_DOUBLE_EQ(var[1], 0.0);
  EXPECT_GT(var[2], 0.0);  // away from the data the distance term grows
}

}  // namespace
