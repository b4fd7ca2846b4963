// SPDX-License-Identifier: MIT
// A component whose kind value is not one of the five (e.g. from a newer SDK's enum).
#define BOOST_DLL_FORCE_ALIAS_INSTANTIATION
#include <boost/dll/alias.hpp>

#include <arbo/sdk/plugin.hpp>

#include "abi_test_component.hpp"

namespace {

constexpr arbo::sdk::ComponentInfo kComponents[] = {
    {static_cast<arbo::sdk::Kind>(42), "abi_bad_kind", "Kind 42 does not exist",
     &arbo::sdk::detail::params_of<arbo_abi_test::SumConstraint>,
     &arbo::sdk::detail::create_component<arbo::sdk::Kind::Constraint,
                                          arbo_abi_test::SumConstraint>}};
constexpr arbo::sdk::PluginTable kTable{1, kComponents};
constexpr arbo_plugin_header_v1 kHeader = arbo::sdk::detail::make_header(
    "arbo-test-abi-bad-kind", "1.0.0", "Unknown kind value", &kTable);

const arbo_plugin_header_v1* entry() noexcept { return &kHeader; }

}  // namespace

BOOST_DLL_ALIAS_SECTIONED(entry, arbo_plugin_entry_v1, arboplug)
