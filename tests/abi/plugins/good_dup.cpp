// SPDX-License-Identifier: MIT
// Well-formed, but claims an id the good plugin already provides: the library is refused as a
// whole (its unique component too), and the first provider keeps working.
#include <arbo/sdk/plugin.hpp>

#include "abi_test_component.hpp"

ARBO_PLUGIN_BEGIN("arbo-test-abi-good-dup", "1.0.0", "Collides with arbo-test-abi-good")
ARBO_COMPONENT(Constraint, "abi_dup_unique", arbo_abi_test::ZeroConstraint,
               "Unique, refused anyway")
ARBO_COMPONENT(Constraint, "abi_sum", arbo_abi_test::SumConstraint, "Same id as the good plugin")
ARBO_PLUGIN_END()
