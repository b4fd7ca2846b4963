// SPDX-License-Identifier: MIT
// The library's single exported entry.
#include <arbo/sdk/plugin.hpp>

#include "tree_gp.hpp"

ARBO_PLUGIN_BEGIN("arbo-surrogate-tree-gp", "0.1.0",
                  "LEAF-GP: tree-ensemble-kernel Gaussian process (XGBoost trees)")
ARBO_COMPONENT(Surrogate, "tree_gp", arbo::plugins::TreeGp,
               "GP with the leaf-agreement kernel of a gradient-boosted tree ensemble; "
               "formulates itself as a MIQCP for global acquisition optimization")
ARBO_PLUGIN_END()
