// SPDX-License-Identifier: MIT
// The library's single exported entry.
#include <arbo/sdk/plugin.hpp>

#include "gp.hpp"

ARBO_PLUGIN_BEGIN("arbo-surrogate-gp", "0.1.0",
                  "Standard GP baseline: ARD SE / Matern-5/2, Hvarfner priors, MAP by L-BFGS")
ARBO_COMPONENT(Surrogate, "gp", arbo::plugins::GpSurrogate,
               "Exact GP with an ARD squared-exponential or Matern-5/2 kernel (mixed kernel "
               "for categoricals), hyperparameters by MAP with multi-start L-BFGS")
ARBO_PLUGIN_END()
