// SPDX-License-Identifier: MIT
// Tests of the template formulated surrogate, loaded from its .so as the kernel loads it: the
// surrogate contract (conformance kit), the fit, and that the model it writes agrees with its
// predictions, which is what a formulating surrogate must guarantee.
#include <cmath>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include <arbo/sdk/capabilities/surrogate.hpp>
#include <arbo/sdk/model.hpp>
#include <arbo/sdk/testing/conformance.hpp>

namespace {

using namespace arbo::sdk;
using arbo::sdk::testing::expect_plugin_conforms;
using arbo::sdk::testing::PluginUnderTest;
using arbo::sdk::testing::TestContext;

// The generic contract: parameters, factory, fit/predict sizes, finiteness, determinism.
TEST(formulated_surrogate_xyz_plugin, conformance) { expect_plugin_conforms(XYZ_PLUGIN_PATH); }

// A real coordinate and an integer one; y jumps where a crosses 0.3 (or b crosses 4.5).
class formulated_surrogate_xyz_stump : public ::testing::Test {
 protected:
  void make(bool split_on_integer) {
    info_ = plugin_.find(Kind::Surrogate, "xyz");
    ASSERT_NE(info_, nullptr);
    params_ = validate_params(info_->params(), {}, "surrogate/xyz");
    object_.reset(info_->create(CreateArgs{ctx_, params_, space_}));
    model_ = dynamic_cast<Surrogate*>(object_.get());
    formulates_ = dynamic_cast<const FormulatesSurrogate*>(object_.get());
    decodes_ = dynamic_cast<const DecodesSolution*>(object_.get());
    ASSERT_NE(model_, nullptr);
    ASSERT_NE(formulates_, nullptr);
    ASSERT_NE(decodes_, nullptr);
    data_.reset(2, {});
    const Eigen::VectorXd none(0);
    const double as[] = {0.1, 0.2, 0.25, 0.5, 0.7, 0.9};
    const double bs[] = {1, 7, 2, 8, 3, 9};
    for (int i = 0; i < 6; ++i) {
      const bool low = split_on_integer ? bs[i] <= 4.5 : as[i] <= 0.3;
      data_.append(Eigen::Vector2d(as[i], bs[i]), low ? 1.0 + 0.1 * i : 5.0 + 0.1 * i, none);
    }
    model_->fit(data_, Metric{});
    // The only split that separates low from high targets: a at (0.25 + 0.5) / 2, or b at
    // (3 + 7) / 2 (the other coordinate's values interleave).
    split_ = split_on_integer ? 1 : 0;
    threshold_ = split_on_integer ? 5.0 : 0.375;
  }

  // The values every model variable takes at encoded point x (what a solver would find):
  // the point, the side binary, and s and v at the side's sd and variance.
  std::vector<double> solution_at(const Model& m, const PointVariables& pv,
                                  const FormulatesSurrogate::Output& out, const Eigen::VectorXd& x,
                                  bool flip_side = false) const {
    std::vector<double> sol(m.num_variables(), 0.0);
    for (std::size_t i = 0; i < pv.x_vars.size(); ++i)
      sol[static_cast<std::size_t>(pv.x_vars[i])] = x[static_cast<Eigen::Index>(i)];
    Eigen::VectorXd mean, var;
    model_->predict(x.transpose(), mean, var);
    const auto b = m.find_variable("xyz_left");
    EXPECT_TRUE(b.has_value());
    bool left = x[split_] <= threshold_;
    if (flip_side) left = !left;
    sol[static_cast<std::size_t>(*b)] = left ? 1.0 : 0.0;
    sol[static_cast<std::size_t>(out.stddev_var)] = std::sqrt(var[0]);
    sol[static_cast<std::size_t>(out.variance_var)] = var[0];
    return sol;
  }

  PluginUnderTest plugin_{XYZ_PLUGIN_PATH};
  const ComponentInfo* info_ = nullptr;
  TestContext ctx_{1};
  Space space_{{Parameter::real("a", 0, 1), Parameter::integer("b", 0, 10)}};
  ParamSet params_;
  std::unique_ptr<Component> object_;
  Surrogate* model_ = nullptr;
  const FormulatesSurrogate* formulates_ = nullptr;
  const DecodesSolution* decodes_ = nullptr;
  Dataset data_;
  Eigen::Index split_ = 0;
  double threshold_ = 0.0;
};

// The fit finds the separating split, and each side predicts its own mean, with a variance
// that is the side's spread plus the spread of all targets over the side's size.
TEST_F(formulated_surrogate_xyz_stump, predicts_each_sides_mean) {
  make(false);
  Eigen::MatrixXd X(4, 2);
  X << 0.0, 5, 0.375, 5, 0.376, 5, 1.0, 0;
  Eigen::VectorXd mean, var;
  model_->predict(X, mean, var);
  EXPECT_NEAR(mean[0], 1.1, 1e-12);  // (1.0 + 1.1 + 1.2) / 3
  EXPECT_NEAR(mean[1], 1.1, 1e-12);  // the threshold itself is on the left
  EXPECT_NEAR(mean[2], 5.4, 1e-12);  // (5.3 + 5.4 + 5.5) / 3
  EXPECT_NEAR(mean[3], 5.4, 1e-12);
  const Eigen::VectorXd y = data_.y;
  const double all = (y.array() - y.mean()).square().mean();
  EXPECT_NEAR(var[0], 0.02 / 3.0 + all / 3.0, 1e-12);
  EXPECT_NEAR(var[0], var[3], 1e-12);  // same spread on both sides here
}

// At every point the model's rows hold with the side binary at the point's side and s, v at
// the side's sd and variance, and the formulated mean equals predict(): the formulation and
// the predictions agree, which the acquisitions rely on. The other side's binary violates a
// row: the big-M rows do tie b to x.
TEST_F(formulated_surrogate_xyz_stump, formulation_agrees_with_predict_on_a_real_split) {
  make(false);
  Model m;
  const PointVariables pv = add_point_variables(m, space_);
  const FormulatesSurrogate::Output out = formulates_->formulate(m, pv);
  ASSERT_GE(out.stddev_var, 0);
  ASSERT_GE(out.variance_var, 0);
  for (const Eigen::Vector2d& x :
       {Eigen::Vector2d(0.0, 0), Eigen::Vector2d(0.2, 10), Eigen::Vector2d(0.375, 3),
        Eigen::Vector2d(0.6, 4), Eigen::Vector2d(1.0, 10)}) {
    const std::vector<double> sol = solution_at(m, pv, out, x);
    const ModelEvaluation e = m.evaluate(sol);
    EXPECT_LE(e.max_violation(), 1e-12) << x.transpose();
    double formulated = out.mean_constant;
    for (const LinearTerm& term : out.mean)
      formulated += term.coef * sol[static_cast<std::size_t>(term.var)];
    Eigen::VectorXd mean, var;
    model_->predict(x.transpose(), mean, var);
    EXPECT_NEAR(formulated, mean[0], 1e-12) << x.transpose();
    if (x[0] != 0.375) {  // strictly inside a side: the other side's binary is cut off
      EXPECT_GT(m.evaluate(solution_at(m, pv, out, x, true)).max_violation(), 1e-6)
          << x.transpose();
    }
  }
}

// On an integer coordinate the sides are b <= 5 and b >= 6: both integers next to the
// threshold are feasible on their own side only.
TEST_F(formulated_surrogate_xyz_stump, formulation_leaves_no_gap_on_an_integer_split) {
  make(true);
  Model m;
  const PointVariables pv = add_point_variables(m, space_);
  const FormulatesSurrogate::Output out = formulates_->formulate(m, pv);
  EXPECT_EQ(m.variables()[static_cast<std::size_t>(pv.x_vars[1])].type, VarType::Integer);
  for (double b : {0.0, 5.0, 6.0, 10.0}) {
    const Eigen::Vector2d x(0.5, b);
    EXPECT_LE(m.evaluate(solution_at(m, pv, out, x)).max_violation(), 1e-12) << b;
    EXPECT_GT(m.evaluate(solution_at(m, pv, out, x, true)).max_violation(), 0.5) << b;
  }
}

// decode moves the split coordinate to the middle of the solver's side and keeps the rest.
TEST_F(formulated_surrogate_xyz_stump, decode_moves_to_the_middle_of_the_side) {
  make(false);
  Model m;
  const PointVariables pv = add_point_variables(m, space_);
  formulates_->formulate(m, pv);
  Eigen::VectorXd x = Eigen::Vector2d(0.375, 4);  // a vertex: x_a at the split
  EXPECT_TRUE(decodes_->decode(m, pv, std::vector<double>(m.num_variables(), 0.0), {}, x));
  EXPECT_DOUBLE_EQ(x[0], 0.1875);  // middle of [0, 0.375]
  EXPECT_DOUBLE_EQ(x[1], 4.0);
  x = Eigen::Vector2d(1.0, 4);
  EXPECT_TRUE(decodes_->decode(m, pv, std::vector<double>(m.num_variables(), 0.0), {}, x));
  EXPECT_DOUBLE_EQ(x[0], 0.6875);  // middle of [0.375, 1]
}

}  // namespace
