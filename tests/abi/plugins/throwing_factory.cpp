// SPDX-License-Identifier: MIT
// Loads fine, but its factory throws: `create` must turn that into a PluginError.
#include <arbo/sdk/error.hpp>
#include <arbo/sdk/plugin.hpp>

#include "abi_test_component.hpp"

namespace {

class ThrowingConstraint : public arbo_abi_test::ZeroConstraint {
 public:
  explicit ThrowingConstraint(const arbo::sdk::CreateArgs& args) : ZeroConstraint(args) {
    throw arbo::sdk::Error("factory exploded on purpose");
  }
};

}  // namespace

ARBO_PLUGIN_BEGIN("arbo-test-abi-throwing-factory", "1.0.0", "Factory throws")
ARBO_COMPONENT(Constraint, "abi_throwing_factory", ThrowingConstraint, "Cannot be created")
ARBO_PLUGIN_END()
