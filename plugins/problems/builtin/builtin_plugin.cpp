// SPDX-License-Identifier: MIT
// The library's single exported entry: the table of its problems.
#include <arbo/sdk/plugin.hpp>

#include "branin.hpp"
#include "branin_constrained.hpp"
#include "hartmann6.hpp"

ARBO_PLUGIN_BEGIN("arbo-problem-builtin", "0.1.0",
                  "Stock benchmark problems with known optima (Branin, Hartmann)")
ARBO_COMPONENT(Problem, "branin", arbo::plugins::Branin,
               "Branin-Hoo, 2 reals, three global minima f* = 0.397887")
ARBO_COMPONENT(Problem, "branin_constrained", arbo::plugins::BraninConstrained,
               "Branin with one black-box disk constraint (69.8% feasible), f* = 0.397887")
ARBO_COMPONENT(Problem, "hartmann6", arbo::plugins::Hartmann6,
               "Hartmann 6-D on [0,1]^6, f* = -3.32237")
ARBO_PLUGIN_END()
