// SPDX-License-Identifier: MIT
// A plugin built by another toolchain, as told by its build fingerprint.
#define BOOST_DLL_FORCE_ALIAS_INSTANTIATION
#include <boost/dll/alias.hpp>

#include <arbo/sdk/plugin.hpp>

#include "abi_test_component.hpp"

namespace {

constexpr arbo::sdk::ComponentInfo kComponents[] = {
    arbo::sdk::detail::make_component<arbo::sdk::Kind::Constraint, arbo_abi_test::SumConstraint>(
        "abi_bad_fingerprint", "Must never be registered")};
constexpr arbo::sdk::PluginTable kTable{1, kComponents};

constexpr arbo_plugin_header_v1 broken_header() {
  arbo_plugin_header_v1 h = arbo::sdk::detail::make_header("arbo-test-abi-bad-fingerprint", "0.0.1",
                                                           "Built with another toolchain", &kTable);
  h.build_fingerprint = "gcc-0;libstdc++-cxx11abi0;boost-0;eigen-0.0.0;eigen-align-0;sdk-0";
  return h;
}
constexpr arbo_plugin_header_v1 kHeader = broken_header();

const arbo_plugin_header_v1* entry() noexcept { return &kHeader; }

}  // namespace

BOOST_DLL_ALIAS_SECTIONED(entry, arbo_plugin_entry_v1, arboplug)
