// SPDX-License-Identifier: MIT
// Registers a Constraint as a Surrogate. ARBO_COMPONENT's static_assert forbids this, so the
// table is written by hand, as a careless or malicious plugin could.
#define BOOST_DLL_FORCE_ALIAS_INSTANTIATION
#include <boost/dll/alias.hpp>

#include <arbo/sdk/plugin.hpp>

#include "abi_test_component.hpp"

namespace {

arbo::sdk::Component* make_constraint(const arbo::sdk::CreateArgs& args) {
  return new arbo_abi_test::SumConstraint(args);
}

constexpr arbo::sdk::ComponentInfo kComponents[] = {
    {arbo::sdk::Kind::Surrogate, "abi_wrong_kind", "A constraint posing as a surrogate",
     &arbo::sdk::detail::params_of<arbo_abi_test::SumConstraint>, &make_constraint}};
constexpr arbo::sdk::PluginTable kTable{1, kComponents};
constexpr arbo_plugin_header_v1 kHeader = arbo::sdk::detail::make_header(
    "arbo-test-abi-wrong-kind", "1.0.0", "Factory returns the wrong kind", &kTable);

const arbo_plugin_header_v1* entry() noexcept { return &kHeader; }

}  // namespace

BOOST_DLL_ALIAS_SECTIONED(entry, arbo_plugin_entry_v1, arboplug)
