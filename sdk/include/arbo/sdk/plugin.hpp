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
/// One library may hold any number of components of any kinds. A name must be unique within
/// its kind across every loaded library (the id is "kind/name"); the same name may be used by
/// two kinds. Factories run on the kernel's main thread when a study or command builds its
/// pipeline; `params()` may run earlier, at load time. A library that holds ordinary code
/// besides its components (helpers linked from elsewhere) gets a private copy of it: plugins
/// are MODULE libraries with hidden visibility, and nothing but the entry is exported (P16).
/// `arbo::sdk::testing::expect_plugin_conforms` (testing/conformance.hpp) checks a built
/// library against all of this and against each kind's contract.
///
/// The macros expand to constant data and one `noexcept` entry function exported through a
/// Boost.DLL sectioned alias; nothing runs when the library is loaded (P7, P15). The kernel
/// wraps the raw pointer each factory returns in a shared_ptr whose deleter keeps the library
/// loaded (P1).
///
/// Loading, as the kernel's registry does it (kernel/src/plugins/plugin_registry.cpp):
/// 1. phase 1: resolve the alias, call the entry, `check_plugin_header` (plugin_abi.h);
/// 2. phase 2: read the `PluginTable`; every entry needs a valid kind, a non-empty name
///    without '/', spaces or control characters, non-null `summary`, `params` and `create`,
///    and an id ("kind/name") no other entry or loaded library has;
/// 3. call every component's `params()` once, so a throwing one refuses the library at load
///    time rather than mid-study.
/// Any failure refuses the whole library, with its path and the reason; the others load.
///
/// Requires C++20 (the component checks use a concept); the C++ standard is not part of the
/// build fingerprint, so a plugin compiled as C++23 loads into a C++20 kernel.
#pragma once

#include <concepts>
#include <cstdint>
#include <string>
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

/// Creates a component from validated parameters; returns an owning pointer, which the kernel
/// wraps in a shared_ptr whose deleter holds the library. The pointer must be non-null and
/// point to an object of the kind's interface: the kernel checks both with `dynamic_cast` and
/// refuses the component with a `PluginError` otherwise. To fail, throw (`Error`,
/// `ParamError` for a parameter combination the specs cannot express); the kernel reports
/// "[kind/name] create() failed: <what>". `ARBO_COMPONENT` generates it from the class's
/// `T(const CreateArgs&)` constructor.
using Factory = Component* (*)(const CreateArgs& args);
/// Returns the component's parameter specs. Called at load time and whenever the kernel
/// validates a configuration or prints `arbo plugins --params`, so it must return the same
/// list every time: a function-local static, initialised on first call (never a namespace
/// scope static, which would run at load time, P15).
using ParamsFn = const ParamSpecList& (*)();

/// One entry of a plugin's table: constant data with static storage, built by
/// `ARBO_COMPONENT`. ABI: append-only (its layout is covered by ARBO_PLUGIN_ABI_VERSION).
/// The kernel keeps a copy for the life of the process and reads `name` and `summary` through
/// it, so both must point to static storage (string literals), like everything in the table.
struct ComponentInfo {
  Kind kind;            ///< which interface the created object implements
  const char* name;     ///< unique within the kind, snake_case: "random" (id "inner_solver/random")
  const char* summary;  ///< one line, shown by `arbo plugins`
  ParamsFn params;      ///< the component's parameter specs
  Factory create;       ///< creates one instance; the kernel owns it
};

/// The phase-2 table `arbo_plugin_header_v1::cpp_table` points to: `count` entries (at least
/// one; an empty table refuses the library) at `components`, in the order `arbo plugins`
/// lists them.
struct PluginTable {
  std::uint32_t count;
  const ComponentInfo* components;
};

/// Phase-1 checks shared by the kernel's loader and the conformance kit, in the order of
/// plugin_abi.h: null header, struct size and alignment, ABI integer, SDK major and minor,
/// build fingerprint, non-null table. Returns an empty string when `header` is compatible
/// with this SDK build, otherwise a message that names the first mismatching field with the
/// plugin's and the host's values (e.g. "ABI version mismatch: plugin has 1, host expects 2").
/// Reads only the header (no C++ object of the plugin), never throws for a mismatch, O(length
/// of the fingerprint); safe to call from any thread.
ARBO_SDK_API std::string check_plugin_header(const arbo_plugin_header_v1* header);

/// The host's fingerprint (`kBuildFingerprint` as compiled into libarbo_sdk.so), for messages
/// and `arbo --version`; a plugin's own is in its header. Static storage, never null.
ARBO_SDK_API const char* sdk_build_fingerprint() noexcept;

/// Implementation of the macros below; not for direct use.
namespace detail {

/// Maps a `Kind` to its interface class: `KindInterface<Kind::Surrogate>::type` is `Surrogate`.
/// One specialisation per kind; a new kind adds one here and a value to `Kind` (an ABI change).
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

/// True when `T` has `static const ParamSpecList& params()` (exactly that return type).
template <class T>
concept HasParams = requires {
  { T::params() } -> std::same_as<const ParamSpecList&>;
};

/// The `Factory` of `T`: `new T(args)`, converted to the kind's interface first and then to
/// `Component*`, so the pointer the kernel deletes is the right subobject even when `T` also
/// derives from capability classes.
template <Kind K, class T>
Component* create_component(const CreateArgs& args) {
  return static_cast<typename KindInterface<K>::type*>(new T(args));
}

/// The `ParamsFn` of `T`.
template <class T>
const ParamSpecList& params_of() {
  return T::params();
}

/// One table entry for class `T` registered as kind `K`, with compile-time checks that `T`
/// derives from the kind's interface, is constructible from `const CreateArgs&` and has
/// `params()`; each failing check is a `static_assert` whose message says what to add.
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

/// Fills a phase-1 header with this translation unit's struct size and alignment, ABI integer,
/// SDK version and fingerprint: the values the plugin was compiled with, which the kernel
/// compares with its own.
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

// The alias macro must be instantiated in the single plugin TU (P12), hence the rule that only
// `<name>_plugin.cpp` includes this header.
#ifndef BOOST_DLL_FORCE_ALIAS_INSTANTIATION
#define BOOST_DLL_FORCE_ALIAS_INSTANTIATION
#endif
#include <boost/dll/alias.hpp>

// What the three macros expand to, which helps to read a compiler error in them:
//   namespace arbo_plugin_detail {
//   inline constexpr const char* kPluginName = "my-plugins";  // likewise version, description
//   constexpr ::arbo::sdk::ComponentInfo kComponents[] = {
//       make_component<Kind::Surrogate, my::MySurrogate>("my_model", "One line ..."),  // each
//   };
//   constexpr ::arbo::sdk::PluginTable kTable{1, kComponents};
//   constexpr arbo_plugin_header_v1 kHeader = make_header(kPluginName, ..., &kTable);
//   const arbo_plugin_header_v1* arbo_plugin_entry() noexcept { return &kHeader; }
//   }
//   BOOST_DLL_ALIAS_SECTIONED(arbo_plugin_detail::arbo_plugin_entry, arbo_plugin_entry_v1,
//   arboplug)
// Everything is constexpr: the table lives in the library's read-only data, and a component
// whose class fails a check is a compile error, never a load error. ARBO_COMPONENT lines need
// no separator (each ends with a comma, which the array initializer accepts).

/// Opens a plugin's component list. Use once per library, at global namespace scope, in the
/// plugin's single `<name>_plugin.cpp`. `plugin_name` names the library ("my-plugins"),
/// `plugin_version` is its own version string, `plugin_description` one line; all three are
/// string literals, shown by `arbo plugins` and in load errors.
#define ARBO_PLUGIN_BEGIN(plugin_name, plugin_version, plugin_description) \
  namespace arbo_plugin_detail {                                           \
  inline constexpr const char* kPluginName = plugin_name;                  \
  inline constexpr const char* kPluginVersion = plugin_version;            \
  inline constexpr const char* kPluginDescription = plugin_description;    \
  constexpr ::arbo::sdk::ComponentInfo kComponents[] = {
/// Adds one component. `kind` is Surrogate, Acquisition, InnerSolver, Constraint or Problem
/// (unqualified), `component_name` the snake_case name of the id "kind/name", `Class` the
/// fully qualified class, `component_summary` one line. Compile-time checks: see
/// `detail::make_component`.
#define ARBO_COMPONENT(kind, component_name, Class, component_summary)                \
  ::arbo::sdk::detail::make_component<::arbo::sdk::Kind::kind, Class>(component_name, \
                                                                      component_summary),

/// Closes the list and defines the exported entry `arbo_plugin_entry_v1` (the only symbol a
/// plugin exports; `arbo_add_plugin` enforces that with a version script).
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
