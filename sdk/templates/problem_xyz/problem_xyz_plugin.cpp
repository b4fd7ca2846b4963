// SPDX-License-Identifier: MIT
// The plugin's single exported entry: one constant table, built at compile time. Keep this the
// only file that includes <arbo/sdk/plugin.hpp> and uses the macros.
#include <arbo/sdk/plugin.hpp>

#include "problem_xyz.hpp"

// Library name, version and description, then one line per component: kind, name (snake_case,
// unique within the kind: the id is "problem/xyz"), class, one-line summary.
ARBO_PLUGIN_BEGIN("problem-xyz", "0.1.0", "Template problem plugin (sphere)")
ARBO_COMPONENT(Problem, "xyz", xyz::ProblemXyz,
               "Sphere function in dim reals, f* = 0 at the origin")
ARBO_PLUGIN_END()
