// SPDX-License-Identifier: MIT
// The library's single exported entry: the LEAF-GP benchmark problems (Hartmann 6-D is
// problem/hartmann6 in the builtin library).
#include <arbo/sdk/plugin.hpp>

#include "alkylation.hpp"
#include "g_problems.hpp"
#include "pressure_vessel.hpp"
#include "unconstrained.hpp"

ARBO_PLUGIN_BEGIN("arbo-problem-leafgp-suite", "0.1.0",
                  "Benchmark problems of the LEAF-GP paper (Thebelt et al., NeurIPS 2022)")
ARBO_COMPONENT(Problem, "rastrigin10", arbo::plugins::leafgp::Rastrigin10,
               "Rastrigin 10-D on [-4, 5]^10, f* = 0")
ARBO_COMPONENT(Problem, "schwefel10", arbo::plugins::leafgp::Schwefel10,
               "Schwefel 10-D on [-500, 500]^10, f* = 1.2728e-4 (constant 418.9829)")
ARBO_COMPONENT(Problem, "styblinski_tang10", arbo::plugins::leafgp::StyblinskiTang10,
               "Styblinski-Tang 10-D on [-5, 5]^10, f* = -391.66166")
ARBO_COMPONENT(Problem, "g1", arbo::plugins::leafgp::G1,
               "Hedar G1, 13 reals, 9 known linear constraints, f* = -15")
ARBO_COMPONENT(Problem, "g3", arbo::plugins::leafgp::G3,
               "Hedar G3, 5 reals, 1 known nonconvex equality, f* = -1")
ARBO_COMPONENT(Problem, "g4", arbo::plugins::leafgp::G4,
               "Hedar G4, 5 reals, 6 known bilinear constraints, f* = -30665.539")
ARBO_COMPONENT(Problem, "g6", arbo::plugins::leafgp::G6,
               "Hedar G6, 2 reals, 2 known quadratic constraints, f* = -6961.814")
ARBO_COMPONENT(Problem, "g7", arbo::plugins::leafgp::G7,
               "Hedar G7, 10 reals, 8 known convex constraints, f* = 24.306")
ARBO_COMPONENT(Problem, "g10", arbo::plugins::leafgp::G10,
               "Hedar G10, 8 reals, 6 known constraints (3 bilinear), f* = 7049.248")
ARBO_COMPONENT(Problem, "alkylation", arbo::plugins::leafgp::Alkylation,
               "Alkylation process, 7 reals, 14 known polynomial constraints, f* = -1768.807")
ARBO_COMPONENT(Problem, "pressure_vessel", arbo::plugins::leafgp::PressureVessel,
               "Pressure vessel, 2 integers + 2 reals, 3 known constraints, f* = 6059.714")
ARBO_PLUGIN_END()
