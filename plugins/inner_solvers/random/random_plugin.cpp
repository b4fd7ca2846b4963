// SPDX-License-Identifier: MIT
// The library's single exported entry.
#include <arbo/sdk/plugin.hpp>

#include "random_search.hpp"

ARBO_PLUGIN_BEGIN("arbo-inner-solver-random", "0.1.0",
                  "Uniform random sampling subject to the known constraints")
ARBO_COMPONENT(InnerSolver, "random", arbo::plugins::RandomSearch,
               "Best of N uniform feasible samples (or the first feasible one without a model)")
ARBO_PLUGIN_END()
