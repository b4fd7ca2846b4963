// SPDX-License-Identifier: MIT
// A plugin whose header layout differs from the host's (as an older or newer SDK would).
#define BOOST_DLL_FORCE_ALIAS_INSTANTIATION
#include <boost/dll/alias.hpp>

#include <arbo/sdk/plugin.hpp>

#include "abi_test_component.hpp"

namespace {

constexpr arbo::sdk::ComponentInfo kComponents[] = {
    arbo::sdk::detail::make_component<arbo::sdk::Kind::Constraint, arbo_abi_test::SumConstraint>(
        "abi_bad_size", "Must never be registered")};
constexpr arbo::sdk::PluginTable kTable{1, kComponents};

constexpr arbo_plugin_header_v1 broken_header() {
  arbo_plugin_header_v1 h = arbo::sdk::detail::make_header("arbo-test-abi-bad-size", "0.0.1",
                                                           "Header of another size", &kTable);
  h.struct_size += 8;
  return h;
}
constexpr arbo_plugin_header_v1 kHeader = broken_header();

const arbo_plugin_header_v1* entry() noexcept { return &kHeader; }

}  // namespace

BOOST_DLL_ALIAS_SECTIONED(entry, arbo_plugin_entry_v1, arboplug)
