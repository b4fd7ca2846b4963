// SPDX-License-Identifier: MIT
// acquisition/{ei,pi,lcb,cwei} through their real shared object: the conformance kit, values
// against closed forms (reference numbers from scipy.stats.norm), zero-variance guards, the
// no-feasible-point fallbacks, batched values, and lcb's formulation solved by glpk_bnb.
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include <arbo/sdk/capabilities.hpp>
#include <arbo/sdk/error.hpp>
#include <arbo/sdk/testing/conformance.hpp>

namespace {

using namespace arbo::sdk;
using arbo::sdk::testing::PluginUnderTest;
using arbo::sdk::testing::TestContext;

const std::string kPath = ARBO_PLUGIN_DIR "/libarbo_acquisitions_generic.so";
const std::string kGlpk = ARBO_PLUGIN_DIR "/libarbo_inner_solver_glpk_bnb.so";

TEST(acquisitions_generic, conforms) { arbo::sdk::testing::expect_plugin_conforms(kPath); }

const ComponentInfo& component(const std::string& path, Kind kind, const char* name) {
  // Never destroyed, so the libraries stay reachable for the sanitizer build's leak check.
  static auto* loaded = new std::map<std::string, PluginUnderTest*>;
  auto& p = (*loaded)[path];
  if (p == nullptr) p = new PluginUnderTest(path);
  const ComponentInfo* info = p->find(kind, name);
  if (info == nullptr) throw std::runtime_error(std::string("no component ") + name);
  return *info;
}

// Mean and variance given as functions of x; fit does nothing.
class Fake : public Surrogate {
 public:
  using Fn = std::function<double(const Eigen::VectorXd&)>;
  Fake(Fn mean, Fn var) : mean_(std::move(mean)), var_(std::move(var)) {}
  void fit(const Dataset&, const Metric&) override {}
  void predict(const Eigen::MatrixXd& X, Eigen::VectorXd& mean,
               Eigen::VectorXd& variance) const override {
    mean.resize(X.rows());
    variance.resize(X.rows());
    for (Eigen::Index i = 0; i < X.rows(); ++i) {
      const Eigen::VectorXd x = X.row(i).transpose();
      mean[i] = mean_(x);
      variance[i] = var_(x);
    }
  }

 private:
  Fn mean_, var_;
};

Fake::Fn constant(double v) {
  return [v](const Eigen::VectorXd&) { return v; };
}

struct Acq {
  Acq(const char* name, const std::map<std::string, ParamValue>& raw = {})
      : params(validate_params(component(kPath, Kind::Acquisition, name).params(), raw,
                               std::string("acquisition/") + name)),
        space({Parameter::real("a", 0, 1), Parameter::real("b", 0, 1)}) {
    object.reset(component(kPath, Kind::Acquisition, name).create(CreateArgs{ctx, params, space}));
    acq = dynamic_cast<Acquisition*>(object.get());
    if (acq == nullptr) throw std::runtime_error("not an acquisition");
  }
  void bind(const Surrogate* objective, std::vector<const Surrogate*> constraints,
            std::optional<double> incumbent) {
    data.reset(2, std::vector<std::string>(constraints.size(), "c"));
    Eigen::VectorXd c =
        Eigen::VectorXd::Constant(static_cast<Eigen::Index>(constraints.size()), -0.5);
    data.append(Eigen::Vector2d(0.1, 0.1), 4.0, c);
    data.append(Eigen::Vector2d(0.2, 0.3), 3.0, c);
    acq->bind(AcquisitionInputs{data, objective, std::move(constraints), incumbent});
  }
  double at(double a = 0.5, double b = 0.5) const { return acq->value(Eigen::Vector2d(a, b)); }

  TestContext ctx{11};
  ParamSet params;
  Space space;
  Dataset data;
  std::unique_ptr<Component> object;
  Acquisition* acq = nullptr;
};

struct Case {
  double mu, sd, incumbent, xi, ei, pi;
};
// Reference values: scipy.stats.norm, z = (y* - xi - mu) / sd, EI = sd (z Phi(z) + phi(z)).
const Case kCases[] = {
    {0.5, 0.2, 1.0, 0.0, 0.5004008274358257, 0.9937903346742238},
    {1.3, 0.5, 1.0, 0.0, 0.08433636612087776, 0.27425311775007355},
    {0.9, 0.1, 1.0, 0.05, 0.06977965574013056, 0.6914624612740129},
    {-3.0, 2.0, -2.5, 0.0, 1.0726893964471604, 0.5987063256829237},
};

TEST(acquisitions_generic, ei_and_pi_match_closed_forms) {
  for (const Case& c : kCases) {
    Fake model(constant(c.mu), constant(c.sd * c.sd));
    Acq ei("ei", {{"xi", c.xi}});
    ei.bind(&model, {}, c.incumbent);
    EXPECT_NEAR(ei.at(), c.ei, 1e-13) << c.mu;
    Acq pi("pi", {{"xi", c.xi}});
    pi.bind(&model, {}, c.incumbent);
    EXPECT_NEAR(pi.at(), c.pi, 1e-13) << c.mu;
  }
}

TEST(acquisitions_generic, lcb_is_kappa_sd_minus_mean) {
  Fake model([](const Eigen::VectorXd& x) { return 3.0 * x[0] - x[1]; },
             [](const Eigen::VectorXd& x) { return 0.25 + x[1]; });
  Acq lcb("lcb");
  EXPECT_EQ(lcb.params.get_real("kappa"), 1.96);
  lcb.bind(&model, {}, std::nullopt);
  EXPECT_NEAR(lcb.at(0.2, 0.5), 1.96 * std::sqrt(0.75) - 0.1, 1e-14);
  Acq greedy("lcb", {{"kappa", 0.0}});
  greedy.bind(&model, {}, std::nullopt);
  EXPECT_NEAR(greedy.at(0.2, 0.5), -0.1, 1e-14);
}

TEST(acquisitions_generic, cwei_is_ei_times_probability_of_feasibility) {
  Fake objective(constant(0.5), constant(0.04));
  Fake c1(constant(-0.1), constant(0.09));
  Fake c2(constant(0.2), constant(0.16));
  const double pof = 0.1945510169226755;  // Phi(0.1/0.3) Phi(-0.2/0.4)
  Acq cwei("cwei");
  cwei.bind(&objective, {&c1, &c2}, 1.0);
  EXPECT_NEAR(cwei.at(), 0.5004008274358257 * pof, 1e-13);
  // No feasible observation yet: PoF alone.
  cwei.bind(&objective, {&c1, &c2}, std::nullopt);
  EXPECT_NEAR(cwei.at(), pof, 1e-13);
  // Without constraint models, cwei is EI.
  cwei.bind(&objective, {}, 1.0);
  EXPECT_NEAR(cwei.at(), 0.5004008274358257, 1e-13);
}

TEST(acquisitions_generic, cwei_prefers_feasible_regions_before_any_feasible_point) {
  // Constraint mean x0 - 0.3: the PoF decreases in x0 whatever the objective says.
  Fake objective([](const Eigen::VectorXd& x) { return -x[0]; }, constant(1.0));
  Fake c([](const Eigen::VectorXd& x) { return x[0] - 0.3; }, constant(0.01));
  Acq cwei("cwei");
  cwei.bind(&objective, {&c}, std::nullopt);
  EXPECT_GT(cwei.at(0.1), cwei.at(0.3));
  EXPECT_GT(cwei.at(0.3), cwei.at(0.6));
  EXPECT_NEAR(cwei.at(0.3), 0.5, 1e-14);
}

TEST(acquisitions_generic, zero_variance_uses_the_deterministic_limit) {
  for (double var : {0.0, -1e-18, 1e-40}) {
    Fake below(constant(0.25), constant(var));
    Fake above(constant(1.5), constant(var));
    Acq ei("ei");
    ei.bind(&below, {}, 1.0);
    EXPECT_EQ(ei.at(), 0.75);
    ei.bind(&above, {}, 1.0);
    EXPECT_EQ(ei.at(), 0.0);
    Acq pi("pi");
    pi.bind(&below, {}, 1.0);
    EXPECT_EQ(pi.at(), 1.0);
    pi.bind(&above, {}, 1.0);
    EXPECT_EQ(pi.at(), 0.0);
    Acq lcb("lcb");
    lcb.bind(&below, {}, std::nullopt);
    EXPECT_EQ(lcb.at(), -0.25);
    // PoF at sd = 0: feasible iff the predicted constraint is <= 0 (exactly 0 included).
    Fake on_boundary(constant(0.0), constant(var));
    Fake infeasible(constant(1e-9), constant(var));
    Acq cwei("cwei");
    cwei.bind(&below, {&on_boundary}, 1.0);
    EXPECT_EQ(cwei.at(), 0.75);
    cwei.bind(&below, {&infeasible}, 1.0);
    EXPECT_EQ(cwei.at(), 0.0);
    cwei.bind(&below, {&on_boundary}, std::nullopt);
    EXPECT_EQ(cwei.at(), 1.0);
  }
}

TEST(acquisitions_generic, tiny_relative_variance_is_zero_but_small_absolute_is_not) {
  // sd = 1e-15 next to values ~1e6 is noise; sd = 1e-6 next to values ~1e-5 is not.
  Fake big(constant(1e6), constant(1e-30));
  Acq ei("ei");
  ei.bind(&big, {}, 1e6 + 1.0);
  EXPECT_EQ(ei.at(), 1.0);
  Fake small(constant(1e-5), constant(1e-12));
  ei.bind(&small, {}, 1e-5);
  EXPECT_NEAR(ei.at(), 1e-6 * 0.3989422804014327, 1e-20) << "z = 0: EI = sd phi(0)";
}

TEST(acquisitions_generic, ei_and_pi_ignore_constraint_models_and_fall_back_to_the_best_y) {
  Fake objective(constant(2.5), constant(0.0));
  Fake never(constant(100.0), constant(0.0));
  Acq ei("ei");
  ei.bind(&objective, {&never}, 3.5);
  EXPECT_EQ(ei.at(), 1.0) << "constraint model ignored";
  // No feasible point: the smallest observed y (3.0 in the fixture) is the target.
  ei.bind(&objective, {&never}, std::nullopt);
  EXPECT_EQ(ei.at(), 0.5);
  Acq pi("pi");
  pi.bind(&objective, {&never}, std::nullopt);
  EXPECT_EQ(pi.at(), 1.0);
}

TEST(acquisitions_generic, bind_needs_an_objective_model) {
  for (const char* name : {"ei", "pi", "lcb", "cwei"}) {
    Acq a(name);
    EXPECT_THROW(a.bind(nullptr, {}, 1.0), Error) << name;
    EXPECT_THROW(a.at(), Error) << name << ": value before bind";
  }
}

TEST(acquisitions_generic, values_equal_value_across_blocks) {
  Fake objective([](const Eigen::VectorXd& x) { return std::sin(5 * x[0]) + x[1]; },
                 [](const Eigen::VectorXd& x) { return 0.01 + x[0] * x[1]; });
  Fake c([](const Eigen::VectorXd& x) { return x[0] - x[1]; }, constant(0.05));
  const Eigen::MatrixXd X = (Eigen::MatrixXd::Random(2500, 2).array() + 1.0) / 2.0;
  for (const char* name : {"ei", "pi", "lcb", "cwei"}) {
    Acq a(name);
    a.bind(&objective, {&c}, 0.4);
    Eigen::VectorXd out;
    a.acq->values(X, out);
    ASSERT_EQ(out.size(), X.rows());
    for (Eigen::Index i = 0; i < X.rows(); i += 97)
      EXPECT_EQ(out[i], a.acq->value(X.row(i).transpose())) << name << " row " << i;
    EXPECT_EQ(out[2499], a.acq->value(X.row(2499).transpose())) << name;
    if (std::string(name) == "lcb") {
      // -infinity where the constraint model does not admit the point, finite elsewhere.
      const auto admitted = out.array().isFinite();
      EXPECT_TRUE((admitted || out.array() == -kInfinity).all());
      EXPECT_GT(admitted.count(), 0);
      EXPECT_LT(admitted.count(), out.size());
    } else {
      EXPECT_TRUE(out.allFinite()) << name;
    }
  }
}

// mean = 2 x0 - x1 + 1; sigma^2 = 1 - (x0 - 0.8)^2 on [0, 1]^2, formulated with a hypograph
// variable s: s^2 + (x0 - 0.8)^2 <= 1, which maximizing +kappa s drives to sigma. Of the mean's
// constant 1, 0.75 is declared an offset (a standardization's mean) unless `offset` is false.
class Formulating final : public Surrogate, public FormulatesSurrogate {
 public:
  enum class Uncertainty { Stddev, VarianceOnly, None };
  explicit Formulating(Uncertainty u = Uncertainty::Stddev, bool offset = true)
      : u_(u), offset_(offset) {}
  void fit(const Dataset&, const Metric&) override {}
  void predict(const Eigen::MatrixXd& X, Eigen::VectorXd& mean,
               Eigen::VectorXd& variance) const override {
    mean = 2.0 * X.col(0) - X.col(1) + Eigen::VectorXd::Ones(X.rows());
    variance = (1.0 - (X.col(0).array() - 0.8).square()).matrix();
  }
  Output formulate(Model& m, const PointVariables& p) const override {
    const int x0 = p.x_vars[0], x1 = p.x_vars[1];
    Output out;
    out.mean = {{x0, 2.0}, {x1, -1.0}};
    out.mean_constant = 1.0;
    if (offset_) out.mean_offset = 0.75;
    if (u_ == Uncertainty::Stddev) {
      const int s = m.add_variable("s", VarType::Continuous, 0.0, kInfinity);
      // s^2 + x0^2 - 1.6 x0 <= 1 - 0.64
      m.add_quadratic_row(
          {"sd", {{s, s, 1.0}, {x0, x0, 1.0}}, {{x0, -1.6}}, RowSense::LessEqual, 0.36, true});
      out.stddev_var = s;
    } else if (u_ == Uncertainty::VarianceOnly) {
      out.variance_var = m.add_variable("v", VarType::Continuous, 0.0, kInfinity);
    }
    return out;
  }

 private:
  Uncertainty u_;
  bool offset_;
};

PointVariables point_of(Model& m) {
  PointVariables p;
  p.x_vars = {m.add_variable("a", VarType::Continuous, 0, 1),
              m.add_variable("b", VarType::Continuous, 0, 1)};
  return p;
}

TEST(acquisitions_generic, lcb_formulates_maximize_minus_mean_plus_kappa_s) {
  Formulating model;
  Acq lcb("lcb", {{"kappa", 2.0}});
  lcb.bind(&model, {}, std::nullopt);
  const auto* f = dynamic_cast<const FormulatesAcquisition*>(lcb.acq);
  ASSERT_NE(f, nullptr);
  Model m;
  const PointVariables p = point_of(m);
  f->formulate(m, p);
  EXPECT_EQ(m.objective().sense, ObjectiveSense::Maximize);
  // At x = (0.5, 0.25) with s = sigma(x) the objective equals value().
  const double sigma = std::sqrt(1.0 - 0.09);
  const ModelEvaluation e = m.evaluate({0.5, 0.25, sigma});
  EXPECT_NEAR(e.objective, lcb.at(0.5, 0.25), 1e-12);
  EXPECT_LE(e.max_violation(), 1e-12);
  // The surrogate's declared shift becomes the objective's offset (negated, as the mean is).
  EXPECT_EQ(m.objective().offset, -0.75);
  Formulating undeclared(Formulating::Uncertainty::Stddev, false);
  lcb.bind(&undeclared, {}, std::nullopt);
  Model m2;
  f->formulate(m2, point_of(m2));
  EXPECT_TRUE(std::isnan(m2.objective().offset));
}

// A posterior mixture of two components (BARK's samples, in small): component 0 is
// `Formulating`'s model, component 1 has mean x1 and constant sd 0.5 (formulated as s1 <= 0.5
// through s1^2 <= 0.25; its offset is 0, or none when `offset` is false). predict() returns
// the moment-matched mixture.
class Mixture final : public Surrogate, public PosteriorMixture, public FormulatesMixture {
 public:
  explicit Mixture(bool offset = true) : offset_(offset) {}
  void fit(const Dataset&, const Metric&) override {}
  void predict(const Eigen::MatrixXd& X, Eigen::VectorXd& mean,
               Eigen::VectorXd& variance) const override {
    Eigen::MatrixXd m, v;
    predict_components(X, m, v);
    mean = m.rowwise().mean();
    variance = ((v + m.cwiseProduct(m)).rowwise().mean() - mean.cwiseProduct(mean));
  }
  std::size_t num_components() const override { return 2; }
  void predict_components(const Eigen::MatrixXd& X, Eigen::MatrixXd& mean,
                          Eigen::MatrixXd& variance) const override {
    mean.resize(X.rows(), 2);
    variance.resize(X.rows(), 2);
    mean.col(0) = 2.0 * X.col(0) - X.col(1) + Eigen::VectorXd::Ones(X.rows());
    variance.col(0) = (1.0 - (X.col(0).array() - 0.8).square()).matrix();
    mean.col(1) = X.col(1);
    variance.col(1).setConstant(0.25);
  }
  std::vector<FormulatesSurrogate::Output> formulate_components(
      Model& m, const PointVariables& p) const override {
    std::vector<FormulatesSurrogate::Output> out(2);
    out[0] = Formulating().formulate(m, p);
    const int s1 = m.add_variable("s1", VarType::Continuous, 0.0, kInfinity);
    m.add_quadratic_row({"sd1", {{s1, s1, 1.0}}, {}, RowSense::LessEqual, 0.25, true});
    out[1].mean = {{p.x_vars[1], 1.0}};
    if (offset_) out[1].mean_offset = 0.0;
    out[1].stddev_var = s1;
    return out;
  }

 private:
  bool offset_;
};

TEST(acquisitions_generic, lcb_integrates_the_bound_over_a_posterior_mixture) {
  Mixture model;
  const double a = 0.5, b = 0.25;
  const double mu0 = 2.0 * a - b + 1.0, sd0 = std::sqrt(1.0 - 0.09), mu1 = b, sd1 = 0.5;
  Acq lcb("lcb", {{"kappa", 2.0}});
  EXPECT_EQ(lcb.params.get_string("posterior_mixture"), "integrate");
  lcb.bind(&model, {}, std::nullopt);
  const double integrated = 0.5 * ((2.0 * sd0 - mu0) + (2.0 * sd1 - mu1));
  EXPECT_NEAR(lcb.at(a, b), integrated, 1e-12);
  // Block scoring agrees with the single point.
  Eigen::MatrixXd X(2, 2);
  X << a, b, 0.9, 0.1;
  Eigen::VectorXd v;
  lcb.acq->values(X, v);
  EXPECT_NEAR(v[0], integrated, 1e-12);

  Acq matched("lcb", {{"kappa", 2.0}, {"posterior_mixture", std::string("moment_matched")}});
  matched.bind(&model, {}, std::nullopt);
  Eigen::VectorXd mm, mv;
  model.predict(X.topRows(1), mm, mv);
  EXPECT_NEAR(matched.at(a, b), 2.0 * std::sqrt(mv[0]) - mm[0], 1e-12);
  EXPECT_GT(std::abs(matched.at(a, b) - integrated), 1e-3) << "the two readings must differ here";

  // The model: maximize the same average, with s_k driven to sd_k.
  const auto* f = dynamic_cast<const FormulatesAcquisition*>(lcb.acq);
  ASSERT_NE(f, nullptr);
  Model m;
  const PointVariables p = point_of(m);
  f->formulate(m, p);
  const ModelEvaluation e = m.evaluate({a, b, sd0, sd1});
  EXPECT_NEAR(e.objective, integrated, 1e-12);
  EXPECT_LE(e.max_violation(), 1e-12);
  // The offset is the average of the components' shifts; none when one component has none.
  EXPECT_EQ(m.objective().offset, -0.375);
  Mixture partly(false);
  lcb.bind(&partly, {}, std::nullopt);
  Model m2;
  f->formulate(m2, point_of(m2));
  EXPECT_TRUE(std::isnan(m2.objective().offset));
}

TEST(acquisitions_generic, lcb_integrates_black_box_constraint_mixtures_too) {
  // Constraint c(x) as the same mixture: admitted iff the average of mean_s - 1.96 sd_s <= 0.
  Mixture objective, constraint;
  Acq lcb("lcb");
  lcb.bind(&objective, {&constraint}, std::nullopt);
  for (const auto& [a, b] : {std::pair{0.0, 0.9}, std::pair{0.9, 0.1}, std::pair{0.3, 0.95}}) {
    const double mu0 = 2.0 * a - b + 1.0, sd0 = std::sqrt(1.0 - (a - 0.8) * (a - 0.8));
    const double bound = 0.5 * ((mu0 - 1.96 * sd0) + (b - 1.96 * 0.5));
    EXPECT_EQ(std::isfinite(lcb.at(a, b)), bound <= 0.0) << a << " " << b << ": " << bound;
  }
}

TEST(acquisitions_generic, lcb_says_which_capability_is_missing) {
  Fake opaque(constant(0.0), constant(1.0));
  Formulating variance_only(Formulating::Uncertainty::VarianceOnly);
  Formulating mean_only(Formulating::Uncertainty::None);
  Acq lcb("lcb");
  const auto* f = dynamic_cast<const FormulatesAcquisition*>(lcb.acq);
  ASSERT_NE(f, nullptr);
  auto message = [&](const Surrogate* s) -> std::string {
    lcb.bind(s, {}, std::nullopt);
    Model m;
    try {
      f->formulate(m, point_of(m));
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(message(&opaque).find("FormulatesSurrogate"), std::string::npos);
  EXPECT_NE(message(&variance_only).find("only provides variance_var"), std::string::npos);
  EXPECT_NE(message(&mean_only).find("stddev_var"), std::string::npos);
  // kappa = 0 needs the mean only.
  Acq greedy("lcb", {{"kappa", 0.0}});
  greedy.bind(&mean_only, {}, std::nullopt);
  Model m;
  EXPECT_NO_THROW(
      dynamic_cast<const FormulatesAcquisition*>(greedy.acq)->formulate(m, point_of(m)));
}

// The proposal of inner_solver/glpk_bnb (default parameters) for the bound acquisition of `a`,
// on a study with the black-box constraints `constraints` and no observation.
Proposal maximize_with_glpk_bnb(const Acq& a, const std::vector<std::string>& constraints) {
  const ComponentInfo& info = component(kGlpk, Kind::InnerSolver, "glpk_bnb");
  TestContext ctx(3);
  const ParamSet params = validate_params(info.params(), {}, "inner_solver/glpk_bnb");
  std::unique_ptr<Component> object(info.create(CreateArgs{ctx, params, a.space}));
  auto* solver = dynamic_cast<InnerSolver*>(object.get());
  if (solver == nullptr) throw std::runtime_error("glpk_bnb is not an inner solver");
  Dataset data;
  data.reset(2, constraints);
  return solver->maximize(SolveRequest{a.acq, a.space, {}, data});
}

// A black-box constraint model: mean x1 - 0.5, sd 0.2 everywhere, formulated with s in
// [0, 0.2] (s <= sigma).
class FormulatingConstraint final : public Surrogate, public FormulatesSurrogate {
 public:
  void fit(const Dataset&, const Metric&) override {}
  void predict(const Eigen::MatrixXd& X, Eigen::VectorXd& mean,
               Eigen::VectorXd& variance) const override {
    mean = (X.col(1).array() - 0.5).matrix();
    variance = Eigen::VectorXd::Constant(X.rows(), 0.04);
  }
  Output formulate(Model& m, const PointVariables& p) const override {
    Output out;
    out.mean = {{p.x_vars[1], 1.0}};
    out.mean_constant = -0.5;
    out.stddev_var = m.add_variable("s_c", VarType::Continuous, 0.0, 0.2);
    return out;
  }
};

// lcb admits a point when every constraint model's optimistic bound mean - constraint_kappa *
// sd is <= 0: here x1 <= 0.5 + 1.96 * 0.2 = 0.892 (x1 <= 0.5 with constraint_kappa = 0).
TEST(acquisitions_generic, lcb_respects_black_box_constraint_models) {
  Formulating objective;
  FormulatingConstraint c;
  Acq lcb("lcb");
  EXPECT_NE(dynamic_cast<const RespectsBlackBoxConstraints*>(lcb.acq), nullptr);
  lcb.bind(&objective, {&c}, std::nullopt);
  Acq plain("lcb");
  plain.bind(&objective, {}, std::nullopt);
  EXPECT_EQ(lcb.at(0.5, 0.89), plain.at(0.5, 0.89));
  EXPECT_EQ(lcb.at(0.5, 0.9), -kInfinity);
  Acq mean_only("lcb", {{"constraint_kappa", 0.0}});
  mean_only.bind(&objective, {&c}, std::nullopt);
  EXPECT_EQ(mean_only.at(0.5, 0.5), plain.at(0.5, 0.5));
  EXPECT_EQ(mean_only.at(0.5, 0.51), -kInfinity);

  // The formulation: one row per constraint model, satisfied exactly where value() admits.
  Model m;
  const PointVariables p = point_of(m);
  dynamic_cast<const FormulatesAcquisition*>(lcb.acq)->formulate(m, p);
  ASSERT_EQ(m.num_variables(), 4u);  // a, b, the objective's s, the constraint's s_c
  const double sigma = std::sqrt(1.0 - 0.09);
  EXPECT_LE(m.evaluate({0.5, 0.89, sigma, 0.2}).max_violation(), 1e-12);
  EXPECT_GT(m.evaluate({0.5, 0.9, sigma, 0.2}).max_violation(), 1e-3);

  // Solved by glpk_bnb: the unconstrained optimum (x1 = 1) is cut off at x1 = 0.892.
  const Proposal q = maximize_with_glpk_bnb(lcb, {"c"});
  ASSERT_TRUE(q.found) << q.note;
  EXPECT_NEAR(q.x[1], 0.892, 1e-6);
  EXPECT_NEAR(q.x[0], 0.8 - 2.0 / std::sqrt(1.96 * 1.96 + 4.0), 2e-2);
  EXPECT_GT(lcb.at(q.x[0], q.x[1]), -kInfinity);
  EXPECT_NEAR(q.value, lcb.at(q.x[0], q.x[1]), 1e-9);

  // A constraint surrogate that cannot formulate itself is named.
  Fake opaque(constant(0.0), constant(1.0));
  lcb.bind(&objective, {&opaque}, std::nullopt);
  Model m2;
  try {
    dynamic_cast<const FormulatesAcquisition*>(lcb.acq)->formulate(m2, point_of(m2));
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("FormulatesSurrogate"), std::string::npos) << e.what();
  }
}

TEST(acquisitions_generic, lcb_is_solved_by_glpk_bnb) {
  Formulating model;
  Acq lcb("lcb");
  lcb.bind(&model, {}, std::nullopt);
  const Proposal p = maximize_with_glpk_bnb(lcb, {});
  ASSERT_TRUE(p.found) << p.note;
  // max -2 x0 + x1 - 1 + kappa sqrt(1 - (x0 - 0.8)^2): x1 = 1 and
  // x0 = 0.8 - 2 / sqrt(kappa^2 + 4).
  const double kappa = 1.96;
  const double x0 = 0.8 - 2.0 / std::sqrt(kappa * kappa + 4.0);
  const double best = -2.0 * x0 + kappa * std::sqrt(1.0 - (x0 - 0.8) * (x0 - 0.8));
  EXPECT_NEAR(p.x[1], 1.0, 1e-6);
  EXPECT_NEAR(p.x[0], x0, 2e-2);
  EXPECT_NEAR(p.value, best, 1e-3);
  EXPECT_NEAR(p.value, lcb.at(p.x[0], p.x[1]), 1e-12);
}

}  // namespace
