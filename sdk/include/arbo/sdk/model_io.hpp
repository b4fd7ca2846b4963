// SPDX-License-Identifier: MIT
/// @file
/// @brief Reading and writing `Model`s as CPLEX LP files, so that any model built by plugins
/// can be dumped, inspected, solved standalone (`arbo solve FILE`) or by other solvers.
///
/// Supported subset of the CPLEX LP format: `Minimize`/`Maximize` with a linear part and an
/// optional quadratic part `+ [ x ^ 2 + 2 x * y ] / 2`; `Subject To` with linear rows and
/// quadratic rows `c: 3 x + [ x ^ 2 + 2 x * y ] <= 4`; `Bounds` (`l <= x <= u`, `x >= l`,
/// `x free`, `-inf`/`+inf`); `General`/`Generals`, `Binary`/`Binaries`; `End`. Row names are
/// kept. Whether a quadratic row is convex is not part of the format: `read_lp` marks a `<=`
/// quadratic row convex when its Hessian is positive semidefinite (and a `>=` row whose
/// negation is), everything else nonconvex.
#pragma once

#include <string>
#include <string_view>

#include "arbo/sdk/export.hpp"
#include "arbo/sdk/model.hpp"

namespace arbo::sdk {

/// Writes `model` in CPLEX LP format. Variable names are sanitized to the format's rules
/// (invalid characters replaced, duplicates suffixed). Doubles are written round-trip exact.
ARBO_SDK_API std::string write_lp(const Model& model);

/// Parses a CPLEX LP document. `source_name` is used in error messages.
/// @throws InvalidArgument naming `source_name`, the line and what was expected.
ARBO_SDK_API Model read_lp(std::string_view text, std::string_view source_name = "<lp>");

}  // namespace arbo::sdk
