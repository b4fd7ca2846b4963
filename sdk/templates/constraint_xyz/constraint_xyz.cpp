// SPDX-License-Identifier: MIT
#include "constraint_xyz.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include <arbo/sdk/error.hpp>
#include <arbo/sdk/model.hpp>

namespace xyz {

const arbo::sdk::ParamSpecList& ConstraintXyz::params() {
  static const arbo::sdk::ParamSpecList specs{
      arbo::sdk::ParamSpec::real_list(
          "center",
          "Centre of the ball in coordinates scaled to [0, 1], one entry per always-active real "
          "parameter in space order; empty means the middle of the box.",
          {}),
      arbo::sdk::ParamSpec::real("radius", "Radius of the ball in scaled coordinates.", 0.5, 0.0)};
  return specs;
}

ConstraintXyz::ConstraintXyz(const arbo::sdk::CreateArgs& args)
    : radius_(args.params.get_real("radius")) {
  const arbo::sdk::Space& space = args.space;
  for (std::size_t i = 0; i < space.size(); ++i) {
    if (space[i].type == arbo::sdk::ParamType::Real && !space[i].condition) {
      reals_.push_back(static_cast<Eigen::Index>(i));
      names_.push_back(space[i].name);
    }
  }
  const std::vector<double>& center = args.params.get_real_list("center");
  if (!center.empty() && center.size() != reals_.size()) {
    throw arbo::sdk::ParamError(
        "center", fmt::format("constraint/xyz: 'center' has {} entries but the space has {} "
                              "always-active real parameters ({})",
                              center.size(), reals_.size(), fmt::join(names_, ", ")));
  }
  const auto m = static_cast<Eigen::Index>(reals_.size());
  a_.resize(m);
  b_.resize(m);
  for (Eigen::Index k = 0; k < m; ++k) {
    const Eigen::Index j = reals_[static_cast<std::size_t>(k)];
    const double range = std::max(space.upper()[j] - space.lower()[j], 1e-12);
    const double c = center.empty() ? 0.5 : center[static_cast<std::size_t>(k)];
    a_[k] = 1.0 / range;
    b_[k] = -space.lower()[j] / range - c;
  }
}

double ConstraintXyz::violation(const Eigen::VectorXd& x) const {
  double sq = 0.0;
  for (Eigen::Index k = 0; k < a_.size(); ++k) {
    const double s = a_[k] * x[reals_[static_cast<std::size_t>(k)]] + b_[k];
    sq += s * s;
  }
  return std::max(0.0, std::sqrt(sq) - radius_);
}

std::string ConstraintXyz::describe() const {
  return fmt::format("ball of radius {} over the scaled reals ({})", radius_,
                     fmt::join(names_, ", "));
}

void ConstraintXyz::formulate(arbo::sdk::Model& model,
                              const arbo::sdk::PointVariables& point) const {
  arbo::sdk::QuadraticRow row;
  row.name = "xyz_ball";
  row.sense = arbo::sdk::RowSense::LessEqual;
  row.convex = true;  // a sum of squares: positive semidefinite
  row.rhs = radius_ * radius_;
  for (Eigen::Index k = 0; k < a_.size(); ++k) {
    const int var = point.x_vars.at(static_cast<std::size_t>(reals_[static_cast<std::size_t>(k)]));
    row.quad.push_back({var, var, a_[k] * a_[k]});
    row.linear.push_back({var, 2.0 * a_[k] * b_[k]});
    row.rhs -= b_[k] * b_[k];
  }
  model.add_quadratic_row(std::move(row));
}

}  // namespace xyz
