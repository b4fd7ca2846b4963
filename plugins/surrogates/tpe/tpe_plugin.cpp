// SPDX-License-Identifier: MIT
// The library's single exported entry.
#include <arbo/sdk/plugin.hpp>

#include "tpe_surrogate.hpp"

ARBO_PLUGIN_BEGIN("arbo-surrogate-tpe", "0.1.0",
                  "Tree-structured Parzen estimators of c-TPE (good/bad density pairs per metric)")
ARBO_COMPONENT(Surrogate, "tpe", arbo::plugins::TpeSurrogate,
               "Good/bad split and two Parzen estimators l(x), g(x) per metric (c-TPE)")
ARBO_PLUGIN_END()
