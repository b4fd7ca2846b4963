// SPDX-License-Identifier: MIT
// The plugin's single exported entry: one constant table, built at compile time. Keep this the
// only file that includes <arbo/sdk/plugin.hpp> and uses the macros.
#include <arbo/sdk/plugin.hpp>

#include "surrogate_xyz.hpp"

// Library name, version and description, then one line per component: kind, name (snake_case,
// unique within the kind: the id is "surrogate/xyz"), class, one-line summary.
ARBO_PLUGIN_BEGIN("surrogate-xyz", "0.1.0", "Template surrogate plugin (k nearest neighbours)")
ARBO_COMPONENT(Surrogate, "xyz", xyz::SurrogateXyz,
               "k-nearest-neighbour mean; variance from the neighbours' spread and distance")
ARBO_PLUGIN_END()
