// SPDX-License-Identifier: MIT
// The library's single exported entry.
#include <arbo/sdk/plugin.hpp>

#include "glpk_bnb.hpp"

ARBO_PLUGIN_BEGIN("arbo-inner-solver-glpk-bnb", "0.1.0",
                  "Global MIQCP branch-and-bound on GLPK: model-based inner solver and model "
                  "solver")
ARBO_COMPONENT(InnerSolver, "glpk_bnb", arbo::plugins::GlpkBnb,
               "Proven global optimum of formulated acquisitions and known constraints (MILP, "
               "convex and nonconvex quadratic rows) with GLPK")
ARBO_PLUGIN_END()
