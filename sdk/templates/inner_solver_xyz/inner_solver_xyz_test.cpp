// SPDX-License-Identifier: MIT
// Tests of the template inner solver, loaded from its .so as the kernel loads it.
#include <algorithm>
#include <memory>

#include <gtest/gtest.h>

#include <arbo/sdk/testing/conformance.hpp>

namespace {

using namespace arbo::sdk;
using arbo::sdk::testing::expect_plugin_conforms;
using arbo::sdk::testing::PluginUnderTest;
using arbo::sdk::testing::TestContext;

// The generic contract: parameters, factory, feasible proposals with and without acquisition.
TEST(inner_solver_xyz_plugin, conformance) { expect_plugin_conforms(XYZ_PLUGIN_PATH); }

// -(a - 0.3)^2 - (b - 0.7)^2: a single smooth peak.
class Bowl final : public Acquisition {
 public:
  void bind(const AcquisitionInputs&) override {}
  double value(const Eigen::VectorXd& x) const override {
    return -(x[0] - 0.3) * (x[0] - 0.3) - (x[1] - 0.7) * (x[1] - 0.7);
  }
};

class AtMost final : public Constraint {
 public:
  explicit AtMost(double bound) : bound_(bound) {}
  double violation(const Eigen::VectorXd& x) const override { return std::max(0.0, x[0] - bound_); }

 private:
  double bound_;
};

struct Fixture {
  Fixture() : plugin(XYZ_PLUGIN_PATH), ctx(3) {
    const ComponentInfo* info = plugin.find(Kind::InnerSolver, "xyz");
    if (info == nullptr) throw std::runtime_error("no inner_solver/xyz");
    params = validate_params(info->params(), {{"starts", std::int64_t{8}}}, "inner_solver/xyz");
    object.reset(info->create(CreateArgs{ctx, params, space}));
    solver = dynamic_cast<InnerSolver*>(object.get());
  }
  PluginUnderTest plugin;
  TestContext ctx;
  ParamSet params;
  Space space{{Parameter::real("a", 0, 1), Parameter::real("b", 0, 1)}};
  Dataset data;
  std::unique_ptr<Component> object;
  InnerSolver* solver = nullptr;
};

// Eight random starts alone land nowhere near the peak; the local search must get there.
TEST(inner_solver_xyz_plugin, local_search_finds_the_peak) {
  Fixture f;
  ASSERT_NE(f.solver, nullptr);
  f.data.reset(2, {});
  const Bowl acq;
  const Proposal p = f.solver->maximize(SolveRequest{&acq, f.space, {}, f.data});
  ASSERT_TRUE(p.found) << p.note;
  EXPECT_NEAR(p.x[0], 0.3, 1e-6);
  EXPECT_NEAR(p.x[1], 0.7, 1e-6);
  EXPECT_DOUBLE_EQ(p.value, acq.value(p.x));
}

TEST(inner_solver_xyz_plugin, stays_feasible_on_an_active_constraint) {
  Fixture f;
  ASSERT_NE(f.solver, nullptr);
  f.data.reset(2, {});
  const Bowl acq;
  const AtMost bound(0.2);
  const Proposal p = f.solver->maximize(SolveRequest{&acq, f.space, {&bound}, f.data});
  ASSERT_TRUE(p.found) << p.note;
  EXPECT_LE(p.x[0], 0.2);
  EXPECT_NEAR(p.x[0], 0.2, 1e-6);
  EXPECT_NEAR(p.x[1], 0.7, 1e-6);
}

}  // namespace
