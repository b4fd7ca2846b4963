// SPDX-License-Identifier: MIT
// Its params() throws, so its parameters can be neither documented nor validated.
#include <stdexcept>

#include <arbo/sdk/plugin.hpp>

#include "abi_test_component.hpp"

namespace {

class BadParamsConstraint : public arbo_abi_test::ZeroConstraint {
 public:
  using ZeroConstraint::ZeroConstraint;
  static const arbo::sdk::ParamSpecList& params() {
    throw std::runtime_error("params exploded on purpose");
  }
};

}  // namespace

ARBO_PLUGIN_BEGIN("arbo-test-abi-throwing-params", "1.0.0", "params() throws")
ARBO_COMPONENT(Constraint, "abi_fine", arbo_abi_test::ZeroConstraint, "Refused with its library")
ARBO_COMPONENT(Constraint, "abi_throwing_params", BadParamsConstraint, "params() throws")
ARBO_PLUGIN_END()
