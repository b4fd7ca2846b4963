// SPDX-License-Identifier: MIT
#include "suite_common.hpp"

#include <cmath>

#include <fmt/format.h>

#include <arbo/sdk/error.hpp>

namespace arbo::plugins::mondrian {

sdk::Space real_box(const std::vector<std::pair<double, double>>& bounds) {
  std::vector<sdk::Parameter> p;
  p.reserve(bounds.size());
  for (std::size_t i = 0; i < bounds.size(); ++i) {
    p.push_back(sdk::Parameter::real(fmt::format("x{}", i + 1), bounds[i].first, bounds[i].second));
  }
  return sdk::Space(std::move(p));
}

sdk::Space real_cube(int d, double lo, double hi) {
  return real_box(std::vector<std::pair<double, double>>(static_cast<std::size_t>(d), {lo, hi}));
}

void require_size(const Eigen::VectorXd& x, Eigen::Index d, const char* id) {
  if (x.size() != d) {
    throw sdk::InvalidArgument(
        fmt::format("problem/{}: expected {} coordinates, got {}", id, d, x.size()));
  }
}

int category(const Eigen::VectorXd& x, Eigen::Index i, int k, const char* id) {
  const double v = x[i];
  const double r = std::round(v);
  // Snapped points hold exact indices; anything else is a caller bug worth a clear message.
  if (!(std::abs(v - r) <= 1e-9) || r < 0.0 || r > k - 1) {
    throw sdk::InvalidArgument(fmt::format(
        "problem/{}: coordinate {} must be a category index in [0, {}], got {}", id, i, k - 1, v));
  }
  return static_cast<int>(r);
}

Eigen::VectorXd vec(std::initializer_list<double> values) {
  Eigen::VectorXd x(static_cast<Eigen::Index>(values.size()));
  Eigen::Index i = 0;
  for (double v : values) x[i++] = v;
  return x;
}

const sdk::ParamSpecList& no_params() {
  static const sdk::ParamSpecList specs;
  return specs;
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

void BlackBoxProblem::prepare(const Eigen::VectorXd& x, sdk::Evaluation& out,
                              const char* id) const {
  require_size(x, static_cast<Eigen::Index>(space_.size()), id);
  out.constraints.resize(static_cast<Eigen::Index>(names_.size()));
}

}  // namespace arbo::plugins::mondrian
