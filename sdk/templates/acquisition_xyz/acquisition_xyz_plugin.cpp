// SPDX-License-Identifier: MIT
// The plugin's single exported entry: one constant table, built at compile time. Keep this the
// only file that includes <arbo/sdk/plugin.hpp> and uses the macros.
#include <arbo/sdk/plugin.hpp>

#include "acquisition_xyz.hpp"

// Library name, version and description, then one line per component: kind, name (snake_case,
// unique within the kind: the id is "acquisition/xyz"), class, one-line summary.
ARBO_PLUGIN_BEGIN("acquisition-xyz", "0.1.0",
                  "Template acquisition plugin (lower confidence bound)")
ARBO_COMPONENT(Acquisition, "xyz", xyz::AcquisitionXyz,
               "Negated lower confidence bound -(mean - beta * sd) of the objective model")
ARBO_PLUGIN_END()
