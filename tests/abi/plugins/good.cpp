// SPDX-License-Identifier: MIT
// A well-formed plugin, written exactly as the SDK documents: it must load.
#include <arbo/sdk/plugin.hpp>

#include "abi_test_component.hpp"

ARBO_PLUGIN_BEGIN("arbo-test-abi-good", "1.2.3", "Two trivial constraints for the loader tests")
ARBO_COMPONENT(Constraint, "abi_sum", arbo_abi_test::SumConstraint, "sum(x) <= limit")
ARBO_COMPONENT(Constraint, "abi_zero", arbo_abi_test::ZeroConstraint, "Always satisfied")
ARBO_PLUGIN_END()
