// SPDX-License-Identifier: MIT
// The library's single exported entry.
#include <arbo/sdk/plugin.hpp>

#include "linear_constraint.hpp"

ARBO_PLUGIN_BEGIN("arbo-constraint-linear", "0.1.0",
                  "Known constraint made of linear rows over parameter names")
ARBO_COMPONENT(Constraint, "linear", arbo::plugins::LinearConstraint,
               "Linear rows a'x <= b / a'x == b over parameter names, separated by ';'")
ARBO_PLUGIN_END()
