// SPDX-License-Identifier: MIT
// A table that claims zero components: a plugin that provides nothing is a packaging error.
#define BOOST_DLL_FORCE_ALIAS_INSTANTIATION
#include <boost/dll/alias.hpp>

#include <arbo/sdk/plugin.hpp>

#include "abi_test_component.hpp"

namespace {

constexpr arbo::sdk::ComponentInfo kComponents[] = {
    arbo::sdk::detail::make_component<arbo::sdk::Kind::Constraint, arbo_abi_test::SumConstraint>(
        "abi_empty_table", "Hidden behind count == 0")};
constexpr arbo::sdk::PluginTable kTable{0, kComponents};
constexpr arbo_plugin_header_v1 kHeader = arbo::sdk::detail::make_header(
    "arbo-test-abi-empty-table", "1.0.0", "Zero components", &kTable);

const arbo_plugin_header_v1* entry() noexcept { return &kHeader; }

}  // namespace

BOOST_DLL_ALIAS_SECTIONED(entry, arbo_plugin_entry_v1, arboplug)
