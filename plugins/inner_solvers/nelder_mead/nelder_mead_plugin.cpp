// SPDX-License-Identifier: MIT
// The library's single exported entry.
#include <arbo/sdk/plugin.hpp>

#include "nelder_mead_solver.hpp"
#include "sampling.hpp"

ARBO_PLUGIN_BEGIN("arbo-inner-solver-nelder-mead", "0.1.0",
                  "The Mondrian-forest thesis's acquisition optimizers: Nelder-Mead restarts from "
                  "the best uniform samples (SciPy-identical adaptive simplex), and sampling")
ARBO_COMPONENT(InnerSolver, "nelder_mead", arbo::plugins::NelderMeadSolver,
               "Best of 20,000 uniform samples and 5 adaptive Nelder-Mead runs started from the "
               "best of them")
ARBO_COMPONENT(InnerSolver, "sampling", arbo::plugins::Sampling,
               "Best of 20,000 uniform feasible samples: inner_solver/random with the thesis's "
               "default")
ARBO_PLUGIN_END()
