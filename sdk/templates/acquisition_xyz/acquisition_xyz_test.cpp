// SPDX-License-Identifier: MIT
// Tests of the template acquisition, loaded from its .so as the kernel loads it.
#include <cmath>
#include <memory>

#include <gtest/gtest.h>

#include <arbo/sdk/error.hpp>
#include <arbo/sdk/testing/conformance.hpp>

namespace {

using namespace arbo::sdk;
using arbo::sdk::testing::expect_plugin_conforms;
using arbo::sdk::testing::PluginUnderTest;
using arbo::sdk::testing::TestContext;

// The generic contract: parameters, factory, bind, finite values, values() == value().
TEST(acquisition_xyz_plugin, conformance) { expect_plugin_conforms(XYZ_PLUGIN_PATH); }

// A model with a known mean and variance, to check the formula.
class Known final : public Surrogate {
 public:
  void fit(const Dataset&, const Metric&) override {}
  void predict(const Eigen::MatrixXd& X, Eigen::VectorXd& mean,
               Eigen::VectorXd& variance) const override {
    mean = X.col(0);                                // mean = x0
    variance = X.col(1).array().square().matrix();  // sd = |x1|
  }
};

TEST(acquisition_xyz_plugin, is_negated_lower_confidence_bound) {
  const PluginUnderTest plugin(XYZ_PLUGIN_PATH);
  const ComponentInfo* info = plugin.find(Kind::Acquisition, "xyz");
  ASSERT_NE(info, nullptr);
  TestContext ctx(1);
  const Space space({Parameter::real("a", -5, 5), Parameter::real("b", 0, 3)});
  const ParamSet params = validate_params(info->params(), {{"beta", 1.5}}, "acquisition/xyz");
  std::unique_ptr<Component> object(info->create(CreateArgs{ctx, params, space}));
  auto* acq = dynamic_cast<Acquisition*>(object.get());
  ASSERT_NE(acq, nullptr);

  Dataset data;
  data.reset(2, {});
  const Known model;
  acq->bind(AcquisitionInputs{data, &model, {}, std::nullopt});
  EXPECT_DOUBLE_EQ(acq->value(Eigen::Vector2d(2.0, 0.0)), -2.0);
  EXPECT_DOUBLE_EQ(acq->value(Eigen::Vector2d(2.0, 2.0)), -(2.0 - 1.5 * 2.0));
  // Lower mean and higher uncertainty are both preferred.
  EXPECT_GT(acq->value(Eigen::Vector2d(1.0, 1.0)), acq->value(Eigen::Vector2d(2.0, 1.0)));
  EXPECT_GT(acq->value(Eigen::Vector2d(1.0, 2.0)), acq->value(Eigen::Vector2d(1.0, 1.0)));
}

TEST(acquisition_xyz_plugin, bind_without_objective_model_throws) {
  const PluginUnderTest plugin(XYZ_PLUGIN_PATH);
  const ComponentInfo* info = plugin.find(Kind::Acquisition, "xyz");
  ASSERT_NE(info, nullptr);
  TestContext ctx(1);
  const Space space({Parameter::real("a", 0, 1)});
  const ParamSet params = validate_params(info->params(), {}, "acquisition/xyz");
  std::unique_ptr<Component> object(info->create(CreateArgs{ctx, params, space}));
  auto* acq = dynamic_cast<Acquisition*>(object.get());
  ASSERT_NE(acq, nullptr);
  Dataset data;
  data.reset(1, {});
  EXPECT_THROW(acq->bind(AcquisitionInputs{data, nullptr, {}, std::nullopt}), Error);
}

}  // namespace
