// SPDX-License-Identifier: MIT
// A compatible header that points to no component table.
#define BOOST_DLL_FORCE_ALIAS_INSTANTIATION
#include <boost/dll/alias.hpp>

#include <arbo/sdk/plugin.hpp>

namespace {

constexpr arbo_plugin_header_v1 kHeader = arbo::sdk::detail::make_header(
    "arbo-test-abi-null-table", "1.0.0", "No component table", nullptr);

const arbo_plugin_header_v1* entry() noexcept { return &kHeader; }

}  // namespace

BOOST_DLL_ALIAS_SECTIONED(entry, arbo_plugin_entry_v1, arboplug)
