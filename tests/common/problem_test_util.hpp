// SPDX-License-Identifier: MIT
// Helpers of the problem-plugin tests: a library loaded once, problems created from it with
// everything their CreateArgs refer to, uniform samples of a space.
// The test target defines ARBO_PLUGIN_DIR (arbo_add_test does).
#pragma once

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <arbo/sdk/capabilities.hpp>
#include <arbo/sdk/testing/conformance.hpp>

#include "common/vectors.hpp"

namespace arbo::test {

/// The library `file` of ARBO_PLUGIN_DIR, loaded on first use and never unloaded, like the
/// kernel does.
inline const sdk::testing::PluginUnderTest& problem_library(const std::string& file) {
  static auto* loaded = new std::map<std::string, const sdk::testing::PluginUnderTest*>;
  const sdk::testing::PluginUnderTest*& p = (*loaded)[file];
  if (p == nullptr)
    p = new sdk::testing::PluginUnderTest(std::string(ARBO_PLUGIN_DIR) + "/" + file);
  return *p;
}

/// A problem with everything its CreateArgs refer to; the component is destroyed first.
struct ProblemInstance {
  explicit ProblemInstance(std::uint64_t seed) : ctx(seed) {}
  sdk::testing::TestContext ctx;
  sdk::ParamSet params;
  sdk::Space no_space;
  std::unique_ptr<sdk::Component> component;
  sdk::Problem* problem = nullptr;
  const sdk::HasKnownConstraints* known = nullptr;  ///< null without known constraints

  const sdk::Space& space() const { return problem->space(); }

  sdk::Evaluation at(const Eigen::VectorXd& x) {
    sdk::Evaluation e;
    problem->evaluate(x, e);
    return e;
  }
  sdk::Evaluation at(std::initializer_list<double> values) { return at(vec(values)); }
  sdk::Evaluation at(double a, double b) { return at(Eigen::Vector2d(a, b)); }

  /// The objective of a problem without black-box constraints.
  double f(const Eigen::VectorXd& x) {
    const sdk::Evaluation e = at(x);
    EXPECT_EQ(e.constraints.size(), 0) << "the problem has black-box constraints";
    return e.objective;
  }
  /// The known-constraint values.
  Eigen::VectorXd g(const Eigen::VectorXd& x) const {
    Eigen::VectorXd out;
    known->known_values(x, out);
    return out;
  }
};

/// Creates problem `name` of `library` with the parameters `raw` and a context seeded `seed`.
/// `Instance` derives from ProblemInstance, for a test's own helpers.
template <class Instance = ProblemInstance>
std::unique_ptr<Instance> make_problem(const sdk::testing::PluginUnderTest& library,
                                       const std::string& name,
                                       const std::map<std::string, sdk::ParamValue>& raw = {},
                                       std::uint64_t seed = 7) {
  const sdk::ComponentInfo* info = library.find(sdk::Kind::Problem, name);
  if (info == nullptr) throw std::runtime_error("no problem/" + name);
  auto inst = std::make_unique<Instance>(seed);
  inst->params = sdk::validate_params(info->params(), raw, "problem/" + name);
  inst->component.reset(info->create(sdk::CreateArgs{inst->ctx, inst->params, inst->no_space}));
  inst->problem = dynamic_cast<sdk::Problem*>(inst->component.get());
  if (inst->problem == nullptr) throw std::runtime_error("not a problem");
  inst->known = dynamic_cast<const sdk::HasKnownConstraints*>(inst->component.get());
  return inst;
}

/// Calls `fn(x)` at `n` uniform points of `space`, drawn with mt19937_64(`seed`), so that a
/// seed always gives the same points.
template <class Fn>
void for_uniform_points(const sdk::Space& space, int n, std::uint64_t seed, Fn&& fn) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  Eigen::VectorXd u(static_cast<Eigen::Index>(space.size())), x;
  for (int k = 0; k < n; ++k) {
    for (Eigen::Index i = 0; i < u.size(); ++i) u[i] = unit(rng);
    space.from_unit(u, x);
    fn(static_cast<const Eigen::VectorXd&>(x));
  }
}

struct Estimate {
  double rho;  ///< feasible fraction
  double se;   ///< its standard error
};

/// Fraction of `n` uniform points of the space at which every black-box constraint is <= 0.
/// The default seed is the one the Mondrian-suite tolerances were set with.
inline Estimate feasible_fraction(ProblemInstance& p, int n, std::uint64_t seed = 20220831) {
  sdk::Evaluation e;
  long feasible = 0;
  for_uniform_points(p.space(), n, seed, [&](const Eigen::VectorXd& x) {
    p.problem->evaluate(x, e);
    if ((e.constraints.array() <= 0.0).all()) ++feasible;
  });
  const double rho = static_cast<double>(feasible) / n;
  return {rho, std::sqrt(rho * (1.0 - rho) / n)};
}

}  // namespace arbo::test
