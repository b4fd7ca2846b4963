// SPDX-License-Identifier: MIT
// The library's single exported entry.
#include <arbo/sdk/plugin.hpp>

#include "polynomial_constraint.hpp"

ARBO_PLUGIN_BEGIN("arbo-constraint-polynomial", "0.1.0",
                  "Known constraint written as a polynomial (in)equality over parameter names")
ARBO_COMPONENT(Constraint, "polynomial", arbo::plugins::PolynomialConstraint,
               "Polynomial (in)equality over parameter names; formulated with lifted quadratics")
ARBO_PLUGIN_END()
