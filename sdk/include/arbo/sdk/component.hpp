// SPDX-License-Identifier: MIT
/// @file
/// @brief The common base of every plugin component, the component kinds, and creation args.
///
/// A component is one object of a plugin class, created by the kernel through the factory of
/// its `ComponentInfo` (plugin.hpp) and used through its kind's interface: `Surrogate`,
/// `Acquisition`, `InnerSolver`, `Constraint` or `Problem`. Its id is "kind/name", e.g.
/// "surrogate/tree_gp"; configurations, logs and error messages name it that way.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "arbo/sdk/context.hpp"
#include "arbo/sdk/export.hpp"
#include "arbo/sdk/params.hpp"
#include "arbo/sdk/space.hpp"

namespace arbo::sdk {

/// The five kinds of component. ABI: values are part of the plugin table; append only.
enum class Kind : std::uint32_t {
  Surrogate = 1,    ///< a model of one metric (surrogate.hpp)
  Acquisition = 2,  ///< the function the inner solver maximizes (acquisition.hpp)
  InnerSolver = 3,  ///< maximizes the acquisition under known constraints (inner_solver.hpp)
  Constraint = 4,   ///< a known constraint on x (constraint.hpp)
  Problem = 5,      ///< a built-in objective with black-box constraints (problem.hpp)
};

/// "surrogate", "acquisition", "inner_solver", "constraint", "problem": the first half of a
/// component id ("inner_solver/random") and the TOML table name of the slot. Static storage;
/// "unknown" for a value outside the enum (a table from a newer SDK).
ARBO_SDK_API const char* to_string(Kind kind) noexcept;
/// Inverse of `to_string(Kind)`: exact, case-sensitive match of one of the five names;
/// std::nullopt otherwise. O(1).
ARBO_SDK_API std::optional<Kind> kind_from_string(std::string_view name) noexcept;

/// Base of every component. Non-copyable; destroyed through the virtual destructor by kernel
/// code while the plugin library is loaded.
///
/// Life cycle: the kernel creates each component once per study run (or command), on its main
/// thread, and calls it from one thread at a time, never concurrently; a component may keep
/// state between calls (a fitted model, a cache) without locking. It is destroyed before the
/// study object, while its library is still loaded (libraries are never unloaded). A
/// component that starts threads of its own must join them before its methods return, or at
/// the latest in its destructor. Optional capabilities (capabilities.hpp) are further base
/// classes of the same object, found with `dynamic_cast` from the interface pointer.
class ARBO_SDK_API Component {
 public:
  virtual ~Component();
  Component(const Component&) = delete;
  Component& operator=(const Component&) = delete;

 protected:
  Component() = default;
};

/// What a factory receives. The three references stay valid for the component's whole
/// lifetime, so a component may keep them (most keep the `Context&` and copy what they need
/// from the others).
struct CreateArgs {
  /// Kernel services for this component: its own log tag, random stream and deadline.
  Context& context;
  /// Validated against the component's `ParamSpecList`: every spec has a value of its kind
  /// (the default when the configuration omits it), and no other key is present.
  const ParamSet& params;
  /// The study's space, which every point the component sees is encoded in. Empty (size 0)
  /// when creating a Problem, since the problem defines the space.
  const Space& space;
};

}  // namespace arbo::sdk
