// SPDX-License-Identifier: MIT
#include "sampling.hpp"

namespace arbo::plugins {

const sdk::ParamSpecList& Sampling::params() {
  // 20,000 samples as the thesis; ten draws per wanted sample before giving up, as random.
  static const sdk::ParamSpecList specs = make_params(20000, 200000);
  return specs;
}

}  // namespace arbo::plugins
