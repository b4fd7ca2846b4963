// SPDX-License-Identifier: MIT
// The library's single exported entry.
#include <arbo/sdk/plugin.hpp>

#include "mondrian_forest.hpp"

ARBO_PLUGIN_BEGIN("arbo-surrogate-mondrian-forest", "0.1.0",
                  "Mondrian forest surrogate with distance-based uncertainty (Braun 2022)")
ARBO_COMPONENT(Surrogate, "mondrian_forest", arbo::plugins::MondrianForestSurrogate,
               "Mondrian forest (path-weighted, infinite lifetime) with distance or forest "
               "variance uncertainty")
ARBO_PLUGIN_END()
