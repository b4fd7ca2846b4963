// SPDX-License-Identifier: MIT
// The library's single exported entry.
#include <arbo/sdk/plugin.hpp>

#include "acquisitions.hpp"

ARBO_PLUGIN_BEGIN("arbo-acquisitions-generic", "0.1.0",
                  "Acquisitions for any surrogate with a Gaussian predictive: EI, PI, LCB and "
                  "constraint-weighted EI")
ARBO_COMPONENT(Acquisition, "ei", arbo::plugins::ExpectedImprovement,
               "Expected improvement over the best feasible y; ignores black-box constraint "
               "models")
ARBO_COMPONENT(Acquisition, "pi", arbo::plugins::ProbabilityOfImprovement,
               "Probability of improving on the best feasible y; ignores black-box constraint "
               "models")
ARBO_COMPONENT(Acquisition, "lcb", arbo::plugins::LowerConfidenceBound,
               "Negated lower confidence bound kappa*sd - mean; formulates itself for model-based "
               "solvers")
ARBO_COMPONENT(Acquisition, "cwei", arbo::plugins::ConstrainedExpectedImprovement,
               "EI times the probability of feasibility under the black-box constraint models "
               "(PoF alone until a feasible point exists)")
ARBO_PLUGIN_END()
