// SPDX-License-Identifier: MIT
// Test plugin: a maximization problem with every parameter type, log scales, conditional
// parameters, a black-box constraint and a known constraint. The stock problems have none of
// these, yet `arbo problems --json`, `arbo problem eval`, the bench runner and the Optuna peer
// must handle all of them.
#include <cmath>

#include <arbo/sdk/capabilities.hpp>
#include <arbo/sdk/plugin.hpp>

namespace arbo::plugins {
namespace {

// Maximize  -(x - 0.5)^2 - (log2 n - 3)^2 / 10 - (log10 lr + 2)^2 + [kind = b]
//           + depth / 10 (kind in {b, c}) + flag * (0.5 - (width - 0.3)^2 (flag only)).
// f* = 2.0 at x = 0.5, n = 8, lr = 0.01, kind = b, depth = 5, flag = true, width = 0.3.
class MixedProblem final : public sdk::Problem, public sdk::HasKnownConstraints {
 public:
  explicit MixedProblem(const sdk::CreateArgs&) : space_(make_space()) {}
  static const sdk::ParamSpecList& params() {
    static const sdk::ParamSpecList specs;
    return specs;
  }
  const sdk::Space& space() const override { return space_; }
  std::vector<std::string> constraint_names() const override { return {"x_cap"}; }
  sdk::ProblemInfo info() const override {
    sdk::ProblemInfo i;
    i.source = "arbo tests/bench (synthetic)";
    i.optimum = 2.0;
    i.maximize = true;
    Eigen::VectorXd x(7);
    x << 0.5, std::log(8.0), std::log(0.01), 1.0, 5.0, 1.0, 0.3;
    i.optimizers = {x};
    return i;
  }
  void evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) override {
    const double n = std::exp(x[1]);
    const double lr = std::exp(x[2]);
    const int kind = static_cast<int>(x[3]);
    double f = -(x[0] - 0.5) * (x[0] - 0.5) - std::pow(std::log2(n) - 3.0, 2) / 10.0 -
               std::pow(std::log10(lr) + 2.0, 2) + (kind == 1 ? 1.0 : 0.0);
    if (kind >= 1) f += x[4] / 10.0;
    if (x[5] > 0.5) f += 0.5 - (x[6] - 0.3) * (x[6] - 0.3);
    out.objective = f;
    out.constraints.resize(1);
    out.constraints[0] = x[0] - 1.5;
  }
  std::vector<sdk::KnownConstraintSpec> known_constraints() const override {
    return {{"x_square", "x^2 <= 3"}};
  }
  void known_values(const Eigen::VectorXd& x, Eigen::VectorXd& out) const override {
    out.resize(1);
    out[0] = x[0] * x[0] - 3.0;
  }

 private:
  static sdk::Space make_space() {
    auto depth = sdk::Parameter::integer("depth", 1, 5);
    depth.condition =
        sdk::Condition{"kind", {sdk::Value(std::string("b")), sdk::Value(std::string("c"))}};
    auto width = sdk::Parameter::real("width", 0.0, 1.0);
    width.condition = sdk::Condition{"flag", {sdk::Value(true)}};
    return sdk::Space({sdk::Parameter::real("x", -2.0, 2.0),
                       sdk::Parameter::integer("n", 1, 64, true),
                       sdk::Parameter::real("lr", 1e-4, 1.0, true),
                       sdk::Parameter::categorical("kind", {"a", "b", "c"}), depth,
                       sdk::Parameter::binary("flag"), width});
  }
  sdk::Space space_;
};

}  // namespace
}  // namespace arbo::plugins

ARBO_PLUGIN_BEGIN("arbo-test-bench", "0.1.0", "Problems for the bench runner's tests")
ARBO_COMPONENT(Problem, "bench_mixed", arbo::plugins::MixedProblem,
               "Mixed-type, conditional, constrained maximization, f* = 2")
ARBO_PLUGIN_END()
