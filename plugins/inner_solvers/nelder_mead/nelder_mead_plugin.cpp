// SPDX-License-Identifier: MIT
// The library's single exported entry.
#include <arbo/sdk/plugin.hpp>

#include "mixed_alternating.hpp"
#include "nelder_mead_solver.hpp"
#include "sampling.hpp"

ARBO_PLUGIN_BEGIN("arbo-inner-solver-nelder-mead", "0.1.0",
                  "Black-box acquisition optimizers: the Mondrian-forest thesis's Nelder-Mead "
                  "restarts (SciPy-identical adaptive simplex) and sampling, and BoTorch's mixed "
                  "alternating search")
ARBO_COMPONENT(InnerSolver, "nelder_mead", arbo::plugins::NelderMeadSolver,
               "Best of 20,000 uniform samples and 5 adaptive Nelder-Mead runs started from the "
               "best of them")
ARBO_COMPONENT(InnerSolver, "sampling", arbo::plugins::Sampling,
               "Best of 20,000 uniform feasible samples: inner_solver/random with the thesis's "
               "default")
ARBO_COMPONENT(InnerSolver, "mixed_alternating", arbo::plugins::MixedAlternating,
               "BoTorch's mixed alternating optimizer: starts drawn from 1,024 scored samples, "
               "discrete neighbourhood moves alternated with simplex runs on the real "
               "coordinates")
ARBO_PLUGIN_END()
