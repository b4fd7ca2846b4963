// SPDX-License-Identifier: MIT
// The plugin's single exported entry: one constant table, built at compile time. Keep this the
// only file that includes <arbo/sdk/plugin.hpp> and uses the macros.
#include <arbo/sdk/plugin.hpp>

#include "constraint_xyz.hpp"

// Library name, version and description, then one line per component: kind, name (snake_case,
// unique within the kind: the id is "constraint/xyz"), class, one-line summary.
ARBO_PLUGIN_BEGIN("constraint-xyz", "0.1.0",
                  "Template known-constraint plugin (ball over the reals)")
ARBO_COMPONENT(Constraint, "xyz", xyz::ConstraintXyz,
               "Ball over the always-active real parameters, in coordinates scaled to [0, 1]")
ARBO_PLUGIN_END()
