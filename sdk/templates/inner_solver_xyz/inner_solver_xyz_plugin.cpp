// SPDX-License-Identifier: MIT
// The plugin's single exported entry: one constant table, built at compile time. Keep this the
// only file that includes <arbo/sdk/plugin.hpp> and uses the macros.
#include <arbo/sdk/plugin.hpp>

#include "inner_solver_xyz.hpp"

// Library name, version and description, then one line per component: kind, name (snake_case,
// unique within the kind: the id is "inner_solver/xyz"), class, one-line summary.
ARBO_PLUGIN_BEGIN("inner-solver-xyz", "0.1.0",
                  "Template inner-solver plugin (random starts + compass search)")
ARBO_COMPONENT(InnerSolver, "xyz", xyz::InnerSolverXyz,
               "Best of N feasible random points refined by coordinate-wise compass search")
ARBO_PLUGIN_END()
