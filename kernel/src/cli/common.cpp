// SPDX-License-Identifier: MIT
#include "cli/common.hpp"

#include <iostream>

#include <fmt/format.h>

namespace arbo::cli {

kernel::PluginRegistry load_registry(const Globals& g) {
  kernel::PluginRegistry registry;
  registry.load_search_path(kernel::plugin_search_path(g.plugin_paths));
  for (const auto& f : registry.failures()) {
    std::cerr << fmt::format("arbo: warning: {}\n", f.message);
  }
  return registry;
}

std::string format_number(double v) { return fmt::format("{}", v); }

std::string describe_observation(const kernel::Observation& o,
                                 const std::vector<std::string>& constraint_names) {
  std::string s = fmt::format("obs {} {}", o.id, kernel::to_string(o.status));
  if (o.status == kernel::ObsStatus::Complete) {
    s += fmt::format(" objective={} feasible={}", format_number(o.objective),
                     o.feasible ? "yes" : "no");
    for (std::size_t k = 0; k < constraint_names.size() &&
                            static_cast<Eigen::Index>(k) < o.constraints.size();
         ++k) {
      s += fmt::format(" {}={}", constraint_names[k],
                       format_number(o.constraints[static_cast<Eigen::Index>(k)]));
    }
  } else if (o.status == kernel::ObsStatus::Failed) {
    s += fmt::format(" reason=\"{}\"", o.reason);
  }
  s += " params=" + o.params_json;
  return s;
}

}  // namespace arbo::cli
