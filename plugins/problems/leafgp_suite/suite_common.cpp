// SPDX-License-Identifier: MIT
#include "suite_common.hpp"

#include <fmt/format.h>

#include <arbo/sdk/error.hpp>

namespace arbo::plugins::leafgp {

sdk::Space real_box(const std::vector<std::pair<double, double>>& bounds) {
  std::vector<sdk::Parameter> p;
  p.reserve(bounds.size());
  for (std::size_t i = 0; i < bounds.size(); ++i) {
    p.push_back(sdk::Parameter::real(fmt::format("x{}", i), bounds[i].first, bounds[i].second));
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

const sdk::ParamSpecList& no_params() {
  static const sdk::ParamSpecList specs;
  return specs;
}

const sdk::ParamSpecList& variant_params() {
  static const sdk::ParamSpecList specs = {sdk::ParamSpec::choice(
      "variant",
      "\"standard\": the textbook definition the LEAF-GP paper cites; \"leafgp_code\": the "
      "deviating formula of the authors' reference code, which the paper's runs used "
      "(see the plugin README).",
      "standard", {"standard", "leafgp_code"})};
  return specs;
}

bool uses_leafgp_code(const sdk::ParamSet& params) {
  return params.get_string("variant") == "leafgp_code";
}

void KnownConstrainedProblem::prepare(const Eigen::VectorXd& x, Eigen::VectorXd& out,
                                      const char* id) const {
  require_size(x, static_cast<Eigen::Index>(space_.size()), id);
  out.resize(static_cast<Eigen::Index>(specs_.size()));
}

}  // namespace arbo::plugins::leafgp
