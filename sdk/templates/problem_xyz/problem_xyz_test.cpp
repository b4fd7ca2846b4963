// SPDX-License-Identifier: MIT
// Tests of the template problem, loaded from its .so as the kernel loads it.
#include <memory>

#include <gtest/gtest.h>

#include <arbo/sdk/error.hpp>
#include <arbo/sdk/testing/conformance.hpp>

namespace {

using namespace arbo::sdk;
using arbo::sdk::testing::expect_plugin_conforms;
using arbo::sdk::testing::PluginUnderTest;
using arbo::sdk::testing::TestContext;

// The generic contract, including f(x*) = f* at the declared optimizer. Run it for a second
// parameter value too: conformance must hold for every valid configuration you ship.
TEST(problem_xyz_plugin, conformance) {
  expect_plugin_conforms(XYZ_PLUGIN_PATH);
  arbo::sdk::testing::ConformanceOptions options;
  options.param_overrides["problem/xyz"] = {{"dim", std::int64_t{7}}};
  expect_plugin_conforms(XYZ_PLUGIN_PATH, options);
}

TEST(problem_xyz_plugin, values_and_space) {
  const PluginUnderTest plugin(XYZ_PLUGIN_PATH);
  const ComponentInfo* info = plugin.find(Kind::Problem, "xyz");
  ASSERT_NE(info, nullptr);
  TestContext ctx(1);
  const Space none;
  const ParamSet params =
      validate_params(info->params(), {{"dim", std::int64_t{3}}}, "problem/xyz");
  std::unique_ptr<Component> object(info->create(CreateArgs{ctx, params, none}));
  auto* problem = dynamic_cast<Problem*>(object.get());
  ASSERT_NE(problem, nullptr);
  ASSERT_EQ(problem->space().size(), 3u);
  EXPECT_EQ(problem->space()[2].name, "x3");

  Evaluation e;
  problem->evaluate(Eigen::Vector3d(1, -2, 3), e);
  EXPECT_DOUBLE_EQ(e.objective, 14.0);
  EXPECT_EQ(e.constraints.size(), 0);
  problem->evaluate(Eigen::Vector3d::Zero(), e);
  EXPECT_EQ(e.objective, 0.0);
  EXPECT_THROW(problem->evaluate(Eigen::Vector2d(1, 1), e), InvalidArgument);
}

}  // namespace
