// SPDX-License-Identifier: MIT
// The library's single exported entry.
#include <arbo/sdk/plugin.hpp>

#include "ctpe_acquisition.hpp"

ARBO_PLUGIN_BEGIN("arbo-acquisition-ctpe", "0.1.0",
                  "c-TPE acquisition: product of relative density ratios (and TPE ablations)")
ARBO_COMPONENT(Acquisition, "ctpe", arbo::plugins::CtpeAcquisition,
               "c-TPE: product over metrics of relative density ratios (modes naive, vanilla)")
ARBO_PLUGIN_END()
