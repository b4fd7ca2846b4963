// SPDX-License-Identifier: MIT
#include "suite_common.hpp"

#include <cmath>

#include <fmt/format.h>

#include <arbo/sdk/error.hpp>

namespace arbo::plugins::mondrian {

int category(const Eigen::VectorXd& x, Eigen::Index i, int k, std::string_view id) {
  const double v = x[i];
  const double r = std::round(v);
  // Snapped points hold exact indices; anything else is a caller bug worth a clear message.
  if (!(std::abs(v - r) <= 1e-9) || r < 0.0 || r > k - 1) {
    throw sdk::InvalidArgument(fmt::format(
        "problem/{}: coordinate {} must be a category index in [0, {}], got {}", id, i, k - 1, v));
  }
  return static_cast<int>(r);
}

std::string thesis_source(const char* where, const char* note) {
  std::string s = fmt::format(
      "C. V. Braun, Black-Box Constrained Bayesian Optimisation With Tree Ensembles, MSc thesis, "
      "Imperial College London (2022), {}; definitions as corrected in "
      "docs/methods/mondrian-nelder-mead.md",
      where);
  if (note[0] != '\0') s += fmt::format(". {}", note);
  return s;
}

}  // namespace arbo::plugins::mondrian
