// SPDX-License-Identifier: MIT
/// @file
/// @brief The common base of every plugin component, the component kinds, and creation args.
#pragma once

#include <optional>
#include <string_view>

#include "arbo/sdk/context.hpp"
#include "arbo/sdk/export.hpp"
#include "arbo/sdk/params.hpp"
#include "arbo/sdk/space.hpp"

namespace arbo::sdk {

/// The five kinds of component. ABI: values are part of the plugin table; append only.
enum class Kind : std::uint32_t {
  Surrogate = 1,
  Acquisition = 2,
  InnerSolver = 3,
  Constraint = 4,
  Problem = 5,
};

/// "surrogate", "acquisition", "inner_solver", "constraint", "problem": the first half of a
/// component id ("inner_solver/random") and the TOML table name of the slot.
ARBO_SDK_API const char* to_string(Kind kind) noexcept;
ARBO_SDK_API std::optional<Kind> kind_from_string(std::string_view name) noexcept;

/// Base of every component. Non-copyable; destroyed through the virtual destructor by kernel
/// code while the plugin library is loaded.
class ARBO_SDK_API Component {
 public:
  virtual ~Component();
  Component(const Component&) = delete;
  Component& operator=(const Component&) = delete;

 protected:
  Component() = default;
};

/// What a factory receives. References are valid for the component's lifetime.
struct CreateArgs {
  Context& context;        ///< kernel services for this component
  const ParamSet& params;  ///< validated against the component's ParamSpecList
  const Space& space;      ///< the study's space; empty when creating a Problem
};

}  // namespace arbo::sdk
