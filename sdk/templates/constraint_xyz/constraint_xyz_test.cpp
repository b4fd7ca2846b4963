// SPDX-License-Identifier: MIT
// Tests of the template constraint, loaded from its .so as the kernel loads it.
#include <cmath>
#include <map>
#include <memory>

#include <gtest/gtest.h>

#include <arbo/sdk/capabilities/constraint.hpp>
#include <arbo/sdk/error.hpp>
#include <arbo/sdk/testing/conformance.hpp>

namespace {

using namespace arbo::sdk;
using arbo::sdk::testing::expect_plugin_conforms;
using arbo::sdk::testing::PluginUnderTest;
using arbo::sdk::testing::TestContext;

// The generic contract: parameters, factory, finite non-negative violations, describe().
TEST(constraint_xyz_plugin, conformance) { expect_plugin_conforms(XYZ_PLUGIN_PATH); }

// Creates the constraint on [0, 10] x [0, 10] (+ one categorical it must ignore).
struct Ball {
  explicit Ball(const std::map<std::string, ParamValue>& raw) : plugin(XYZ_PLUGIN_PATH) {
    const ComponentInfo* info = plugin.find(Kind::Constraint, "xyz");
    if (info == nullptr) throw std::runtime_error("no constraint/xyz");
    params = validate_params(info->params(), raw, "constraint/xyz");
    object.reset(info->create(CreateArgs{ctx, params, space}));
    constraint = dynamic_cast<Constraint*>(object.get());
  }
  PluginUnderTest plugin;
  TestContext ctx{1};
  ParamSet params;
  Space space{{Parameter::real("a", 0, 10), Parameter::categorical("c", {"u", "v"}),
               Parameter::real("b", 0, 10)}};
  std::unique_ptr<Component> object;
  Constraint* constraint = nullptr;
};

TEST(constraint_xyz_plugin, violation_is_distance_outside_the_ball) {
  Ball ball({});
  ASSERT_NE(ball.constraint, nullptr);
  EXPECT_EQ(ball.constraint->violation(Eigen::Vector3d(5, 1, 5)), 0.0);
  EXPECT_EQ(ball.constraint->violation(Eigen::Vector3d(10, 0, 5)), 0.0);  // on the sphere
  EXPECT_NEAR(ball.constraint->violation(Eigen::Vector3d(10, 1, 10)), std::sqrt(0.5) - 0.5, 1e-12);
  EXPECT_NE(ball.constraint->describe().find("a, b"), std::string::npos);
}

TEST(constraint_xyz_plugin, center_and_radius_parameters) {
  Ball ball({{"center", std::vector<double>{0.0, 0.0}}, {"radius", 0.1}});
  ASSERT_NE(ball.constraint, nullptr);
  EXPECT_EQ(ball.constraint->violation(Eigen::Vector3d(0.5, 0, 0.5)), 0.0);
  EXPECT_NEAR(ball.constraint->violation(Eigen::Vector3d(3, 0, 4)), 0.5 - 0.1, 1e-12);
}

TEST(constraint_xyz_plugin, center_of_the_wrong_length_is_a_param_error) {
  EXPECT_THROW(Ball({{"center", std::vector<double>{0.5}}}), ParamError);
}

TEST(constraint_xyz_plugin, formulation_matches_violation) {
  Ball ball({});
  auto* formulates = dynamic_cast<const FormulatesConstraint*>(ball.constraint);
  ASSERT_NE(formulates, nullptr) << "the capability is discovered by dynamic_cast";
  Model model;
  PointVariables point;
  for (int j = 0; j < 3; ++j) {
    point.x_vars.push_back(model.add_variable("x" + std::to_string(j), VarType::Continuous,
                                              ball.space.lower()[j], ball.space.upper()[j]));
  }
  formulates->formulate(model, point);
  ASSERT_EQ(model.quadratic_rows().size(), 1u);
  const double rhs = model.quadratic_rows()[0].rhs;
  // Row activity minus rhs = ||s - c||^2 - radius^2.
  EXPECT_NEAR(model.evaluate({10, 1, 10}).quadratic_activity[0] - rhs, 0.5 - 0.25, 1e-12);
  EXPECT_NEAR(model.evaluate({5, 0, 5}).quadratic_activity[0] - rhs, -0.25, 1e-12);
}

}  // namespace
