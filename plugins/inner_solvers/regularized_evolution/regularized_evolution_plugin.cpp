// SPDX-License-Identifier: MIT
// The library's single exported entry.
#include <arbo/sdk/plugin.hpp>

#include "regularized_evolution.hpp"

ARBO_PLUGIN_BEGIN("arbo-inner-solver-regularized-evolution", "0.1.0",
                  "NN+MILP's evolutionary baselines (Papalexopoulos et al. 2022, App. C): "
                  "RegEvo, NN+RegEvo, ConEvo and NN+ConEvo")
ARBO_COMPONENT(InnerSolver, "regularized_evolution", arbo::plugins::RegularizedEvolution,
               "Regularized evolution with crossover (ConEvo's feasible mutation on "
               "subset-balance equalities): batched on the acquisition, or model-free on the "
               "observations")
ARBO_PLUGIN_END()
