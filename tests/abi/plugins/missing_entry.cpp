// SPDX-License-Identifier: MIT
// Has the `arboplug` section, but its alias is not named arbo_plugin_entry_v1 (a typo, or an
// entry from another ABI generation).
#define BOOST_DLL_FORCE_ALIAS_INSTANTIATION
#include <boost/dll/alias.hpp>

#include <arbo/sdk/plugin.hpp>

#include "abi_test_component.hpp"

namespace {

constexpr arbo::sdk::ComponentInfo kComponents[] = {
    arbo::sdk::detail::make_component<arbo::sdk::Kind::Constraint, arbo_abi_test::SumConstraint>(
        "abi_missing_entry", "Unreachable")};
constexpr arbo::sdk::PluginTable kTable{1, kComponents};
constexpr arbo_plugin_header_v1 kHeader = arbo::sdk::detail::make_header(
    "arbo-test-abi-missing-entry", "1.0.0", "Entry under the wrong name", &kTable);

const arbo_plugin_header_v1* entry() noexcept { return &kHeader; }

}  // namespace

BOOST_DLL_ALIAS_SECTIONED(entry, not_the_entry, arboplug)
