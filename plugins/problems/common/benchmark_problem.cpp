// SPDX-License-Identifier: MIT
#include "benchmark_problem.hpp"

#include <fmt/format.h>

#include <arbo/sdk/error.hpp>

namespace arbo::plugins::problems_common {

sdk::Space real_box(const std::vector<std::pair<double, double>>& bounds, int first) {
  std::vector<sdk::Parameter> p;
  p.reserve(bounds.size());
  for (std::size_t i = 0; i < bounds.size(); ++i) {
    p.push_back(sdk::Parameter::real(fmt::format("x{}", static_cast<int>(i) + first),
                                     bounds[i].first, bounds[i].second));
  }
  return sdk::Space(std::move(p));
}

sdk::Space real_cube(int d, double lo, double hi, int first) {
  return real_box(std::vector<std::pair<double, double>>(static_cast<std::size_t>(d), {lo, hi}),
                  first);
}

Eigen::VectorXd vec(std::initializer_list<double> values) {
  Eigen::VectorXd x(static_cast<Eigen::Index>(values.size()));
  Eigen::Index i = 0;
  for (double v : values) x[i++] = v;
  return x;
}

void require_size(const Eigen::VectorXd& x, Eigen::Index d, std::string_view id,
                  std::string_view method) {
  if (x.size() != d) {
    throw sdk::InvalidArgument(
        fmt::format("problem/{}: {}() needs {} coordinates, got {}", id, method, d, x.size()));
  }
}

const sdk::ParamSpecList& BenchmarkProblem::params() {
  static const sdk::ParamSpecList specs;
  return specs;
}

BenchmarkProblem::BenchmarkProblem(std::string id, sdk::Space space,
                                   std::vector<std::string> constraint_names)
    : id_(std::move(id)),
      space_(std::move(space)),
      constraint_names_(std::move(constraint_names)) {}

void BenchmarkProblem::prepare(const Eigen::VectorXd& x, sdk::Evaluation& out) const {
  require_size(x, static_cast<Eigen::Index>(space_.size()), id_, "evaluate");
  out.constraints.resize(static_cast<Eigen::Index>(constraint_names_.size()));
}

KnownConstrainedProblem::KnownConstrainedProblem(std::string id, sdk::Space space,
                                                 std::vector<sdk::KnownConstraintSpec> known,
                                                 std::vector<std::string> constraint_names)
    : BenchmarkProblem(std::move(id), std::move(space), std::move(constraint_names)),
      known_(std::move(known)) {}

void KnownConstrainedProblem::prepare_known(const Eigen::VectorXd& x, Eigen::VectorXd& out) const {
  require_size(x, static_cast<Eigen::Index>(space().size()), id(), "known_values");
  out.resize(static_cast<Eigen::Index>(known_.size()));
}

}  // namespace arbo::plugins::problems_common
