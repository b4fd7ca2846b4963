// SPDX-License-Identifier: MIT
// The library's single exported entry.
#include <arbo/sdk/plugin.hpp>

#include "candidate_pool.hpp"

ARBO_PLUGIN_BEGIN("arbo-inner-solver-candidate-pool", "0.1.0",
                  "Argmax of the acquisition over a pool of proposed (or uniform) candidates")
ARBO_COMPONENT(InnerSolver, "candidate_pool", arbo::plugins::CandidatePool,
               "Best of the acquisition's own candidates (TPE: draws from each l(x)), or of "
               "uniform points")
ARBO_PLUGIN_END()
