// SPDX-License-Identifier: MIT
// The library's single exported entry: the table of its problems.
#include <arbo/sdk/plugin.hpp>

#include "discrete_functions.hpp"
#include "pest_control.hpp"
#include "tree_function.hpp"

ARBO_PLUGIN_BEGIN("arbo-problem-bark-suite", "0.1.0",
                  "Benchmark problems of the BARK paper (Boyne et al.): tree functions, "
                  "discrete Ackley and Rosenbrock, pest control")
ARBO_COMPONENT(Problem, "tree_function", arbo::plugins::TreeFunction,
               "Sum of 50 BART-prior trees on [0,1]^10, exact f* by branch and bound")
ARBO_COMPONENT(Problem, "tree_function_cat", arbo::plugins::TreeFunctionCat,
               "Sum of 50 BART-prior trees on [0,1]^10 x {a..e}^10 with subset splits, exact f*")
ARBO_COMPONENT(Problem, "discrete_ackley13", arbo::plugins::DiscreteAckley13,
               "Ackley on 10 binary integers and 3 reals, f* = 3.21785")
ARBO_COMPONENT(Problem, "discrete_rosenbrock10", arbo::plugins::DiscreteRosenbrock10,
               "Rosenbrock on 6 integers in {-1..2} (x5) and 4 reals, f* = 8.969897")
ARBO_COMPONENT(Problem, "pest_control", arbo::plugins::PestControl,
               "25-stage pest-control simulator, 25 categoricals x 5 (common random numbers)")
ARBO_PLUGIN_END()
