// SPDX-License-Identifier: MIT
// Lists the same id twice in its own table.
#include <arbo/sdk/plugin.hpp>

#include "abi_test_component.hpp"

ARBO_PLUGIN_BEGIN("arbo-test-abi-dup-within", "1.0.0", "One id, two entries")
ARBO_COMPONENT(Constraint, "abi_twice", arbo_abi_test::SumConstraint, "First")
ARBO_COMPONENT(Constraint, "abi_twice", arbo_abi_test::ZeroConstraint, "Second")
ARBO_PLUGIN_END()
