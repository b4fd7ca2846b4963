// SPDX-License-Identifier: MIT
// A plugin built against a future ABI integer.
#define BOOST_DLL_FORCE_ALIAS_INSTANTIATION
#include <boost/dll/alias.hpp>

#include <arbo/sdk/plugin.hpp>

#include "abi_test_component.hpp"

namespace {

constexpr arbo::sdk::ComponentInfo kComponents[] = {
    arbo::sdk::detail::make_component<arbo::sdk::Kind::Constraint, arbo_abi_test::SumConstraint>(
        "abi_bad_abi", "Must never be registered")};
constexpr arbo::sdk::PluginTable kTable{1, kComponents};

constexpr arbo_plugin_header_v1 broken_header() {
  arbo_plugin_header_v1 h = arbo::sdk::detail::make_header("arbo-test-abi-bad-abi", "0.0.1",
                                                           "ABI integer from the future", &kTable);
  h.abi_version = 999;
  return h;
}
constexpr arbo_plugin_header_v1 kHeader = broken_header();

const arbo_plugin_header_v1* entry() noexcept { return &kHeader; }

}  // namespace

BOOST_DLL_ALIAS_SECTIONED(entry, arbo_plugin_entry_v1, arboplug)
