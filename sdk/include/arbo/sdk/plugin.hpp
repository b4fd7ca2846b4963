// SPDX-License-Identifier: MIT
/// @file
/// @brief Phase 2 of the handshake (the component table) and the macros plugin authors use.
///
/// A plugin library is one translation unit `<name>_plugin.cpp` of this shape:
/// @code
///   #include <arbo/sdk/plugin.hpp>
///   #include "my_surrogate.hpp"
///
///   ARBO_PLUGIN_BEGIN("my-plugins", "1.0.0", "What these components are")
///   ARBO_COMPONENT(Surrogate, "my_model", my::MySurrogate, "One line on what it does")
///   ARBO_PLUGIN_END()
/// @endcode
/// Each component class `T` must derive from the kind's interface, be constructible from
/// `const arbo::sdk::CreateArgs&`, and have `static const arbo::sdk::ParamSpecList& params()`.
/// The macros check all three at compile time.
///
/// The macros expand to constant data and one `noexcept` entry function exported through a
/// Boost.DLL sectioned alias; nothing runs when the library is loaded (P7, P15). The kernel
/// wraps the raw pointer each factory returns in a shared_ptr whose deleter keeps the library
/// loaded (P1).
#pragma once

#include <cstdint>
#include <type_traits>

#include "arbo/sdk/acquisition.hpp"
#include "arbo/sdk/component.hpp"
#include "arbo/sdk/constraint.hpp"
#include "arbo/sdk/export.hpp"
#include "arbo/sdk/fingerprint.hpp"
#include "arbo/sdk/inner_solver.hpp"
#include "arbo/sdk/params.hpp"
#include "arbo/sdk/plugin_abi.h"
#include "arbo/sdk/problem.hpp"
#include "arbo/sdk/surrogate.hpp"
#include "arbo/sdk/version.hpp"

namespace arbo::sdk {

/// Creates a component; returns an owning pointer (never null; throws on error).
using Factory = Component* (*)(const CreateArgs& args);
/// Returns the component's parameter specs (a function-local static).
using ParamsFn = const ParamSpecList& (*)();

/// One entry of a plugin's table. ABI: append-only.
struct ComponentInfo {
  Kind kind;
  const char* name;     ///< unique within the kind, snake_case: "random"
  const char* summary;  ///< one line
  ParamsFn params;
  Factory create;
};

/// The phase-2 table `arbo_plugin_header_v1::cpp_table` points to.
struct PluginTable {
  std::uint32_t count;
  const ComponentInfo* components;
};

/// Phase-1 checks shared by the kernel's loader and the conformance kit. Returns an empty
/// string when `header` is compatible with this SDK build, otherwise a message that names the
/// mismatching field with the plugin's and the host's values.
ARBO_SDK_API std::string check_plugin_header(const arbo_plugin_header_v1* header);

/// The host's fingerprint, compiled into libarbo_sdk.so.
ARBO_SDK_API const char* sdk_build_fingerprint() noexcept;

namespace detail {

template <Kind K>
struct KindInterface;
template <>
struct KindInterface<Kind::Surrogate> {
  using type = Surrogate;
};
template <>
struct KindInterface<Kind::Acquisition> {
  using type = Acquisition;
};
template <>
struct KindInterface<Kind::InnerSolver> {
  using type = InnerSolver;
};
template <>
struct KindInterface<Kind::Constraint> {
  using type = Constraint;
};
template <>
struct KindInterface<Kind::Problem> {
  using type = Problem;
};

template <class T>
concept HasParams = requires {
  { T::params() } -> std::same_as<const ParamSpecList&>;
};

template <Kind K, class T>
Component* create_component(const CreateArgs& args) {
  return static_cast<typename KindInterface<K>::type*>(new T(args));
}

template <class T>
const ParamSpecList& params_of() {
  return T::params();
}

template <Kind K, class T>
constexpr ComponentInfo make_component(const char* name, const char* summary) {
  static_assert(std::is_base_of_v<typename KindInterface<K>::type, T>,
                "ARBO_COMPONENT: the class must derive from the interface of the kind it is "
                "registered as (arbo::sdk::Surrogate, Acquisition, InnerSolver, Constraint or "
                "Problem)");
  static_assert(std::is_constructible_v<T, const CreateArgs&>,
                "ARBO_COMPONENT: the class needs a constructor taking "
                "const arbo::sdk::CreateArgs&");
  static_assert(HasParams<T>,
                "ARBO_COMPONENT: the class needs "
                "static const arbo::sdk::ParamSpecList& params()");
  return ComponentInfo{K, name, summary, &params_of<T>, &create_component<K, T>};
}

/// Fills a phase-1 header with this translation unit's versions and fingerprint.
constexpr arbo_plugin_header_v1 make_header(const char* name, const char* version,
                                            const char* description, const PluginTable* table) {
  return arbo_plugin_header_v1{static_cast<std::uint32_t>(sizeof(arbo_plugin_header_v1)),
                               static_cast<std::uint32_t>(alignof(arbo_plugin_header_v1)),
                               ARBO_PLUGIN_ABI_VERSION,
                               ARBO_SDK_VERSION_MAJOR,
                               ARBO_SDK_VERSION_MINOR,
                               ARBO_SDK_VERSION_PATCH,
                               kBuildFingerprint,
                               name,
                               version,
                               description,
                               table};
}

}  // namespace detail
}  // namespace arbo::sdk

// The alias macro must be instantiated in the single plugin TU (P12).
#ifndef BOOST_DLL_FORCE_ALIAS_INSTANTIATION
#define BOOST_DLL_FORCE_ALIAS_INSTANTIATION
#endif
#include <boost/dll/alias.hpp>

/// Opens a plugin's component list. Use once per library, at namespace scope.
#define ARBO_PLUGIN_BEGIN(plugin_name, plugin_version, plugin_description) \
  namespace arbo_plugin_detail {                                           \
  inline constexpr const char* kPluginName = plugin_name;                  \
  inline constexpr const char* kPluginVersion = plugin_version;            \
  inline constexpr const char* kPluginDescription = plugin_description;    \
  constexpr ::arbo::sdk::ComponentInfo kComponents[] = {
/// Adds one component. `kind` is Surrogate, Acquisition, InnerSolver, Constraint or Problem.
#define ARBO_COMPONENT(kind, component_name, Class, component_summary)                \
  ::arbo::sdk::detail::make_component<::arbo::sdk::Kind::kind, Class>(component_name, \
                                                                      component_summary),

/// Closes the list and defines the exported entry.
#define ARBO_PLUGIN_END()                                                                         \
  }                                                                                               \
  ;                                                                                               \
  constexpr ::arbo::sdk::PluginTable kTable{                                                      \
      static_cast<std::uint32_t>(sizeof(kComponents) / sizeof(kComponents[0])), kComponents};     \
  constexpr arbo_plugin_header_v1 kHeader =                                                       \
      ::arbo::sdk::detail::make_header(kPluginName, kPluginVersion, kPluginDescription, &kTable); \
  const arbo_plugin_header_v1* arbo_plugin_entry() noexcept { return &kHeader; }                  \
  } /* namespace arbo_plugin_detail */                                                            \
  BOOST_DLL_ALIAS_SECTIONED(arbo_plugin_detail::arbo_plugin_entry, arbo_plugin_entry_v1, arboplug)
