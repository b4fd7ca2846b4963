// SPDX-License-Identifier: MIT
// The library's single exported entry.
#include <arbo/sdk/plugin.hpp>

#include "bark.hpp"

ARBO_PLUGIN_BEGIN("arbo-surrogate-bark", "0.1.0",
                  "BARK: fully Bayesian tree-kernel Gaussian process (MCMC over BART-prior trees)")
ARBO_COMPONENT(Surrogate, "bark", arbo::plugins::Bark,
               "GP mixture over tree-agreement kernels whose trees and noise are sampled by "
               "MCMC from the BART prior and the marginal likelihood (Boyne et al.)")
ARBO_PLUGIN_END()
