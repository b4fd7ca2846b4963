// SPDX-License-Identifier: MIT
// The library's single exported entry: the benchmark problems of the Mondrian/Nelder-Mead
// thesis (Braun 2022; Branin is in the builtin library) and the c-TPE paper's two toys.
#include <arbo/sdk/plugin.hpp>

#include "ackley20.hpp"
#include "ctpe_toys.hpp"
#include "keane_bump30.hpp"
#include "mixed.hpp"
#include "synthetic_2d.hpp"
#include "welded_beam.hpp"

namespace m = arbo::plugins::mondrian;

ARBO_PLUGIN_BEGIN("arbo-problem-mondrian-suite", "0.1.0",
                  "Black-box constrained benchmarks of the Mondrian/Nelder-Mead thesis and the "
                  "c-TPE toy problems")
ARBO_COMPONENT(Problem, "rosenbrock_constrained", m::RosenbrockConstrained,
               "Rosenbrock 2-D with |max(x1, x2)| <= 1 (48.8% feasible), f* = 0")
ARBO_COMPONENT(Problem, "g6_reduced", m::G6Reduced,
               "G6 on [13.5, 14.5] x [0.5, 1.5], 2 constraints (1.12% feasible), f* = -6961.81")
ARBO_COMPONENT(Problem, "gardner", m::Gardner,
               "Gardner et al. problem 2 on [0, 2 pi]^2, disjoint feasible parts (1.61%), "
               "f* = 0.2532")
ARBO_COMPONENT(Problem, "alpine_modified", m::AlpineModified,
               "Alpine-1 2-D minus 1 inside r <= 2, ring 2 < r < 4 infeasible (90.6%), f* = -1")
ARBO_COMPONENT(Problem, "townsend", m::Townsend,
               "Constrained Townsend (GPflowOpt form, 50.1% feasible), f* = -3.19972")
ARBO_COMPONENT(Problem, "sphere_constrained", m::SphereConstrained,
               "Shifted sphere 2-D with a wave constraint (51.8% feasible), f* = 0")
ARBO_COMPONENT(Problem, "welded_beam", m::WeldedBeam,
               "Welded beam design, 4 reals, 5 constraints; best known 2.38113 (tau_max 13600)")
ARBO_COMPONENT(Problem, "ackley20_constrained", m::Ackley20Constrained,
               "Ackley 20-D on [-5, 10]^20 with sum(x) <= 0 and ||x|| <= 5 (3.7e-12 feasible), "
               "f* = 0")
ARBO_COMPONENT(Problem, "ackley20", m::Ackley20, "Ackley 20-D on [-5, 10]^20, f* = 0")
ARBO_COMPONENT(Problem, "keane_bump30", m::KeaneBump30,
               "Keane's bump 30-D, 2 constraints (99.99996% feasible); best known -0.821884")
ARBO_COMPONENT(Problem, "mixed_branin", m::MixedBranin,
               "Mixed Branin: 2 reals + 2 categoricals, 1 constraint (40.4%), f* = -0.814299")
ARBO_COMPONENT(Problem, "func3c", m::Func3C,
               "Func-3C: 2 reals + 3 categoricals, disk constraint (2.62%), f* = -0.231450")
ARBO_COMPONENT(Problem, "ctpe_vanished_constraints", m::CtpeVanishedConstraints,
               "c-TPE Fig. 2 toy: shifted sphere with a disk constraint of radius^2 threshold")
ARBO_COMPONENT(Problem, "ctpe_small_overlap", m::CtpeSmallOverlap,
               "c-TPE Fig. 3 toy: sphere with a disk constraint of radius sqrt 3 around (z, z)")
ARBO_COMPONENT(Problem, "ctpe_two_parts", m::CtpeTwoParts,
               "Two quartic constraints, two disjoint feasible parts (8.6%), f* = 0.598953")
ARBO_PLUGIN_END()
