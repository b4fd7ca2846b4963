// SPDX-License-Identifier: MIT
#include "suite_common.hpp"

namespace arbo::plugins::leafgp {

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

}  // namespace arbo::plugins::leafgp
