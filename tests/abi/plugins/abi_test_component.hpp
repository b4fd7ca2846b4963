// SPDX-License-Identifier: MIT
// The trivial component every ABI test plugin registers. Each plugin compiles its own hidden
// copy, exactly as an unrelated third-party plugin would.
#pragma once

#include <string>

#include <Eigen/Core>

#include <arbo/sdk/constraint.hpp>
#include <arbo/sdk/params.hpp>

namespace arbo_abi_test {

/// Violation = max(0, sum(x) - limit): 0 for the origin, so tests can see it work.
class SumConstraint : public arbo::sdk::Constraint {
 public:
  explicit SumConstraint(const arbo::sdk::CreateArgs& args)
      : limit_(args.params.has("limit") ? args.params.get_real("limit") : 1.0) {}

  static const arbo::sdk::ParamSpecList& params() {
    static const arbo::sdk::ParamSpecList specs{
        arbo::sdk::ParamSpec::real("limit", "Upper bound on the sum of the coordinates.", 1.0)};
    return specs;
  }

  double violation(const Eigen::VectorXd& x) const override {
    const double excess = x.sum() - limit_;
    return excess > 0.0 ? excess : 0.0;
  }

  std::string describe() const override { return "sum(x) <= limit (abi test)"; }

 private:
  double limit_;
};

/// Always satisfied; no parameters.
class ZeroConstraint : public arbo::sdk::Constraint {
 public:
  explicit ZeroConstraint(const arbo::sdk::CreateArgs& /*args*/) {}

  static const arbo::sdk::ParamSpecList& params() {
    static const arbo::sdk::ParamSpecList specs;
    return specs;
  }

  double violation(const Eigen::VectorXd& /*x*/) const override { return 0.0; }
};

}  // namespace arbo_abi_test
