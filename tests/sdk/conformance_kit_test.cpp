// SPDX-License-Identifier: MIT
// The conformance kit must catch what it claims to catch: each deliberately broken component
// below violates one contract, and the kit has to report it (and a well-behaved twin must pass).
#include <atomic>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <arbo/sdk/error.hpp>
#include <arbo/sdk/plugin.hpp>
#include <arbo/sdk/testing/conformance.hpp>

namespace {

using namespace arbo::sdk;
using arbo::sdk::testing::ConformanceOptions;
using arbo::sdk::testing::expect_component_conforms;
using arbo::sdk::testing::expect_plugin_conforms;
using arbo::sdk::testing::PluginUnderTest;

// Messages of every failure `f` reports, intercepted so that this test does not fail.
std::vector<std::string> failures_of(const std::function<void()>& f) {
  ::testing::TestPartResultArray results;
  {
    ::testing::ScopedFakeTestPartResultReporter reporter(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &results);
    f();
  }
  std::vector<std::string> out;
  for (int i = 0; i < results.size(); ++i) out.push_back(results.GetTestPartResult(i).message());
  return out;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& m : v) s += m + "\n---\n";
  return s;
}

#define EXPECT_KIT_REPORTS(component, substring)                                          \
  do {                                                                                    \
    const auto failures_ = failures_of([&] { expect_component_conforms(component); });    \
    EXPECT_FALSE(failures_.empty()) << "the kit accepted a broken component";             \
    EXPECT_NE(joined(failures_).find(substring), std::string::npos) << joined(failures_); \
  } while (0)

template <Kind K, class T>
ComponentInfo info(const char* name = "sample") {
  return detail::make_component<K, T>(name, "a component of the kit's self-test");
}

const ParamSpecList& no_params() {
  static const ParamSpecList specs;
  return specs;
}

// --- surrogates -------------------------------------------------------------------------------

template <int Variant>
class SampleSurrogate final : public Surrogate {
 public:
  explicit SampleSurrogate(const CreateArgs&) {}
  static const ParamSpecList& params() { return no_params(); }
  void fit(const Dataset& data, const Metric& metric) override {
    mean_ = data.target(metric).mean();
  }
  void predict(const Eigen::MatrixXd& X, Eigen::VectorXd& mean,
               Eigen::VectorXd& variance) const override {
    static std::atomic<int> instances_seen{0};
    if (Variant == 3) {  // forgets to resize
      mean.setZero(1);
      variance.setOnes(1);
      return;
    }
    mean = Eigen::VectorXd::Constant(X.rows(), mean_) + X.col(0);
    variance = Eigen::VectorXd::Constant(X.rows(), Variant == 1 ? -1.0 : 1.0);
    if (Variant == 2) mean.array() += ++instances_seen;  // hidden state across calls
  }

 private:
  double mean_ = 0.0;
};

TEST(conformance_kit, accepts_a_correct_surrogate) {
  const auto failures =
      failures_of([] { expect_component_conforms(info<Kind::Surrogate, SampleSurrogate<0>>()); });
  EXPECT_TRUE(failures.empty()) << joined(failures);
}

TEST(conformance_kit, reports_negative_variance) {
  EXPECT_KIT_REPORTS((info<Kind::Surrogate, SampleSurrogate<1>>()), "negative variance");
}

TEST(conformance_kit, reports_nondeterministic_predictions) {
  EXPECT_KIT_REPORTS((info<Kind::Surrogate, SampleSurrogate<2>>()), "two calls differ");
}

TEST(conformance_kit, reports_unsized_predictions) {
  EXPECT_KIT_REPORTS((info<Kind::Surrogate, SampleSurrogate<3>>()), "must resize mean");
}

// --- acquisitions -----------------------------------------------------------------------------

template <int Variant>
class SampleAcquisition final : public Acquisition {
 public:
  explicit SampleAcquisition(const CreateArgs&) {}
  static const ParamSpecList& params() { return no_params(); }
  void bind(const AcquisitionInputs& in) override { model_ = in.objective; }
  double value(const Eigen::VectorXd& x) const override {
    Eigen::VectorXd m, v;
    model_->predict(x.transpose(), m, v);
    return Variant == 2 ? std::nan("") : -m[0];
  }
  void values(const Eigen::MatrixXd& X, Eigen::VectorXd& out) const override {
    Acquisition::values(X, out);
    if (Variant == 1) out.array() += 1e-3;  // batch path disagrees with value()
  }

 private:
  const Surrogate* model_ = nullptr;
};

TEST(conformance_kit, accepts_a_correct_acquisition) {
  const auto failures = failures_of(
      [] { expect_component_conforms(info<Kind::Acquisition, SampleAcquisition<0>>()); });
  EXPECT_TRUE(failures.empty()) << joined(failures);
}

TEST(conformance_kit, reports_values_differing_from_value) {
  EXPECT_KIT_REPORTS((info<Kind::Acquisition, SampleAcquisition<1>>()), "differs from value()");
}

TEST(conformance_kit, reports_non_finite_acquisition) {
  EXPECT_KIT_REPORTS((info<Kind::Acquisition, SampleAcquisition<2>>()), "must be finite");
}

// --- inner solvers ----------------------------------------------------------------------------

template <int Variant>
class SampleSolver final : public InnerSolver {
 public:
  explicit SampleSolver(const CreateArgs&) {}
  static const ParamSpecList& params() { return no_params(); }
  Proposal maximize(const SolveRequest& r) override {
    Proposal p;
    p.found = Variant != 2;
    // Variant 0 proposes the lower corner (feasible), variant 1 the upper one (x0 too large).
    p.x = Variant == 1 ? r.space.upper() : r.space.lower();
    return p;
  }
};

TEST(conformance_kit, accepts_a_correct_inner_solver) {
  const auto failures =
      failures_of([] { expect_component_conforms(info<Kind::InnerSolver, SampleSolver<0>>()); });
  EXPECT_TRUE(failures.empty()) << joined(failures);
}

TEST(conformance_kit, reports_proposals_violating_known_constraints) {
  EXPECT_KIT_REPORTS((info<Kind::InnerSolver, SampleSolver<1>>()), "violates the known constraint");
}

TEST(conformance_kit, reports_solver_finding_nothing) {
  EXPECT_KIT_REPORTS((info<Kind::InnerSolver, SampleSolver<2>>()), "no point found");
}

// --- constraints ------------------------------------------------------------------------------

template <int Variant>
class SampleConstraint final : public Constraint {
 public:
  explicit SampleConstraint(const CreateArgs&) {}
  static const ParamSpecList& params() { return no_params(); }
  double violation(const Eigen::VectorXd& x) const override {
    return Variant == 1 ? x[0] : std::max(0.0, x[0]);  // variant 1 goes negative
  }
  std::string describe() const override { return Variant == 2 ? "" : "x0 <= 0"; }
};

TEST(conformance_kit, accepts_a_correct_constraint) {
  const auto failures =
      failures_of([] { expect_component_conforms(info<Kind::Constraint, SampleConstraint<0>>()); });
  EXPECT_TRUE(failures.empty()) << joined(failures);
}

TEST(conformance_kit, reports_negative_violation) {
  EXPECT_KIT_REPORTS((info<Kind::Constraint, SampleConstraint<1>>()), "finite and >= 0");
}

TEST(conformance_kit, reports_empty_description) {
  EXPECT_KIT_REPORTS((info<Kind::Constraint, SampleConstraint<2>>()), "describe()");
}

// --- problems ---------------------------------------------------------------------------------

template <int Variant>
class SampleProblem final : public Problem {
 public:
  explicit SampleProblem(const CreateArgs& args)
      : ctx_(args.context), space_({Parameter::real("a", -1, 1), Parameter::real("b", -1, 1)}) {}
  static const ParamSpecList& params() { return no_params(); }
  const Space& space() const override { return space_; }
  std::vector<std::string> constraint_names() const override { return {"c"}; }
  ProblemInfo info() const override {
    ProblemInfo i;
    i.source = "kit self-test";
    i.optimum = Variant == 1 ? 0.5 : 0.0;  // variant 1 declares a wrong optimum
    i.optimizers = {Eigen::Vector2d::Zero()};
    return i;
  }
  void evaluate(const Eigen::VectorXd& x, Evaluation& out) override {
    out.objective = x.squaredNorm();
    if (Variant == 2) out.objective += std::uniform_real_distribution<double>(0, 1)(ctx_.rng());
    out.constraints.resize(Variant == 3 ? 2 : 1);
    out.constraints.setConstant(x[0] - 0.5);
  }

 private:
  Context& ctx_;
  Space space_;
};

TEST(conformance_kit, accepts_a_correct_problem) {
  const auto failures =
      failures_of([] { expect_component_conforms(info<Kind::Problem, SampleProblem<0>>()); });
  EXPECT_TRUE(failures.empty()) << joined(failures);
}

TEST(conformance_kit, reports_wrong_declared_optimum) {
  EXPECT_KIT_REPORTS((info<Kind::Problem, SampleProblem<1>>()), "differs from info().optimum");
}

TEST(conformance_kit, reports_nondeterministic_problem) {
  EXPECT_KIT_REPORTS((info<Kind::Problem, SampleProblem<2>>()), "same point twice");
}

TEST(conformance_kit, reports_constraint_vector_of_wrong_size) {
  EXPECT_KIT_REPORTS((info<Kind::Problem, SampleProblem<3>>()), "one constraint value per");
}

// --- parameters, names, factories -------------------------------------------------------------

template <int Variant>
class WithParams final : public Constraint {
 public:
  explicit WithParams(const CreateArgs& args) {
    if (Variant == 6) throw Error("factory failure for the test");
    (void)args;
  }
  static const ParamSpecList& params() {
    static const ParamSpecList specs = [] {
      ParamSpecList s{ParamSpec::real("weight", "A weight.", 0.5, 0.0, 1.0),
                      ParamSpec::choice("mode", "A mode.", "fast", {"fast", "slow"})};
      if (Variant == 1) s[0].name = "Weight";
      if (Variant == 2) s[0].default_value = 2.0;
      if (Variant == 3) s[1].default_value = std::string("medium");
      if (Variant == 4) s[1].description.clear();
      if (Variant == 5) s[1].name = "weight";
      if (Variant == 7) s[0].default_value = true;  // a bool default for a real parameter
      return s;
    }();
    return specs;
  }
  double violation(const Eigen::VectorXd&) const override { return 0.0; }
};

TEST(conformance_kit, accepts_well_declared_parameters) {
  const auto failures =
      failures_of([] { expect_component_conforms(info<Kind::Constraint, WithParams<0>>()); });
  EXPECT_TRUE(failures.empty()) << joined(failures);
}

TEST(conformance_kit, reports_parameter_declaration_errors) {
  EXPECT_KIT_REPORTS((info<Kind::Constraint, WithParams<1>>()), "snake_case");
  EXPECT_KIT_REPORTS((info<Kind::Constraint, WithParams<2>>()), "outside");
  EXPECT_KIT_REPORTS((info<Kind::Constraint, WithParams<3>>()), "not one of the choices");
  EXPECT_KIT_REPORTS((info<Kind::Constraint, WithParams<4>>()), "description");
  EXPECT_KIT_REPORTS((info<Kind::Constraint, WithParams<5>>()), "declared twice");
  EXPECT_KIT_REPORTS((info<Kind::Constraint, WithParams<7>>()), "validate_params");
}

TEST(conformance_kit, reports_throwing_factory_and_bad_names) {
  EXPECT_KIT_REPORTS((info<Kind::Constraint, WithParams<6>>()), "factory failure for the test");
  EXPECT_KIT_REPORTS((info<Kind::Constraint, WithParams<0>>("BadName")), "snake_case");
}

Component* wrong_kind_factory(const CreateArgs& args) {
  return static_cast<Constraint*>(new SampleConstraint<0>(args));
}

TEST(conformance_kit, reports_object_of_the_wrong_interface) {
  const ComponentInfo wrong{Kind::Surrogate, "wrong", "registered as the wrong kind", &no_params,
                            &wrong_kind_factory};
  EXPECT_KIT_REPORTS(wrong, "does not dynamic_cast");
}

// --- loading ----------------------------------------------------------------------------------

TEST(conformance_kit, loader_names_the_path_of_a_missing_library) {
  try {
    PluginUnderTest p("/nonexistent/libnothing.so");
    ADD_FAILURE() << "loading a missing file succeeded";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/libnothing.so"), std::string::npos)
        << e.what();
  }
  const auto failures = failures_of([] { expect_plugin_conforms("/nonexistent/libnothing.so"); });
  EXPECT_NE(joined(failures).find("cannot load plugin"), std::string::npos) << joined(failures);
}

TEST(conformance_kit, loader_rejects_a_library_without_entry) {
  // The SDK library is a perfectly loadable .so that is not a plugin.
  try {
    PluginUnderTest p(ARBO_BUILD_DIR "/lib/libarbo_sdk.so");
    ADD_FAILURE() << "a library without entry was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("is not an arbo plugin"), std::string::npos) << e.what();
  }
}

TEST(conformance_kit, loader_exposes_header_and_components) {
  const PluginUnderTest p(ARBO_PLUGIN_DIR "/libarbo_inner_solver_random.so");
  ASSERT_TRUE(p.compatible()) << p.header_error();
  EXPECT_STREQ(p.header().plugin_name, "arbo-inner-solver-random");
  ASSERT_EQ(p.components().size(), 1u);
  EXPECT_EQ(arbo::sdk::testing::component_id(p.components()[0]), "inner_solver/random");
  EXPECT_NE(p.find(Kind::InnerSolver, "random"), nullptr);
  EXPECT_EQ(p.find(Kind::Surrogate, "random"), nullptr);
}

TEST(conformance_kit, test_context_is_seeded_and_logs) {
  arbo::sdk::testing::TestContext a(5), b(5);
  EXPECT_EQ(a.rng()(), b.rng()());
  a.warn("value {}", 3);
  ASSERT_EQ(a.logs().size(), 1u);
  EXPECT_EQ(a.logs()[0], "warn: value 3");
  EXPECT_FALSE(a.cancelled());
  EXPECT_TRUE(std::isinf(a.seconds_left()));
  EXPECT_EQ(a.model_solver(), nullptr);
}

}  // namespace
