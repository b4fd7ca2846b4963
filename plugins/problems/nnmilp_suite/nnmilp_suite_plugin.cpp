// SPDX-License-Identifier: MIT
// The library's single exported entry: the table of its problems.
#include <arbo/sdk/plugin.hpp>

#include "bbob_grid.hpp"
#include "ising.hpp"
#include "random_mlp.hpp"

ARBO_PLUGIN_BEGIN("arbo-problem-nnmilp-suite", "0.1.0",
                  "Benchmark problems of the NN+MILP paper (Papalexopoulos et al.): random MLP, "
                  "discretized BBOB functions, constrained Ising")
ARBO_COMPONENT(Problem, "random_mlp", arbo::plugins::RandomMlp,
               "Random 125-128-128-1 ReLU network on 25 categoricals x 5 letters (maximize)")
ARBO_COMPONENT(Problem, "bbob_sphere", arbo::plugins::BbobSphere,
               "BBOB Sphere on a 10 x 10 categorical grid, MAD-normalized, f* = 0")
ARBO_COMPONENT(Problem, "bbob_ellipsoid_separable", arbo::plugins::BbobEllipsoidSeparable,
               "BBOB separable Ellipsoid on a 10 x 10 categorical grid, f* = 0")
ARBO_COMPONENT(Problem, "bbob_attractive_sector", arbo::plugins::BbobAttractiveSector,
               "BBOB Attractive Sector on a 10 x 10 categorical grid, exact grid f*")
ARBO_COMPONENT(Problem, "bbob_step_ellipsoid", arbo::plugins::BbobStepEllipsoid,
               "BBOB Step Ellipsoid on a 10 x 10 categorical grid, f* = 0")
ARBO_COMPONENT(Problem, "bbob_discus", arbo::plugins::BbobDiscus,
               "BBOB Discus on a 10 x 10 categorical grid, f* = 0")
ARBO_COMPONENT(Problem, "bbob_bent_cigar", arbo::plugins::BbobBentCigar,
               "BBOB Bent Cigar on a 10 x 10 categorical grid, f* = 0")
ARBO_COMPONENT(Problem, "bbob_weierstrass", arbo::plugins::BbobWeierstrass,
               "BBOB Weierstrass on a 10 x 10 categorical grid, f* = 0")
ARBO_COMPONENT(Problem, "bbob_schaffers_f7", arbo::plugins::BbobSchaffersF7,
               "BBOB Schaffers F7 on a 10 x 10 categorical grid, f* = 0")
ARBO_COMPONENT(Problem, "bbob_schwefel", arbo::plugins::BbobSchwefel,
               "BBOB Schwefel on a 10 x 10 categorical grid, exact grid f* by DP")
ARBO_COMPONENT(Problem, "bbob_gallagher_21me", arbo::plugins::BbobGallagher21me,
               "BBOB Gallagher 21 peaks on a 10 x 10 categorical grid, f* = 0")
ARBO_COMPONENT(Problem, "ising100", arbo::plugins::Ising100,
               "Ising(100, 2) with 10 known fine-balance equalities (maximize)")
ARBO_COMPONENT(Problem, "ising200", arbo::plugins::Ising200,
               "Ising(200, 2) with 20 known fine-balance equalities (maximize)")
ARBO_COMPONENT(Problem, "ising400", arbo::plugins::Ising400,
               "Ising(400, 2) with 40 known fine-balance equalities (maximize)")
ARBO_PLUGIN_END()
