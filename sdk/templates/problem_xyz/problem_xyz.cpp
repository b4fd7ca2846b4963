// SPDX-License-Identifier: MIT
#include "problem_xyz.hpp"

#include <string>
#include <vector>

#include <arbo/sdk/error.hpp>

namespace xyz {

namespace {

arbo::sdk::Space sphere_space(std::int64_t dim) {
  std::vector<arbo::sdk::Parameter> p;
  for (std::int64_t j = 1; j <= dim; ++j) {
    p.push_back(arbo::sdk::Parameter::real("x" + std::to_string(j), -5.0, 5.0));
  }
  return arbo::sdk::Space(std::move(p));
}

}  // namespace

const arbo::sdk::ParamSpecList& ProblemXyz::params() {
  static const arbo::sdk::ParamSpecList specs{
      arbo::sdk::ParamSpec::integer("dim", "Number of real parameters.", 2, 1, 1000)};
  return specs;
}

ProblemXyz::ProblemXyz(const arbo::sdk::CreateArgs& args)
    : space_(sphere_space(args.params.get_int("dim"))) {}

arbo::sdk::ProblemInfo ProblemXyz::info() const {
  arbo::sdk::ProblemInfo i;
  i.source = "Sphere function (De Jong 1975); arbo SDK template";
  i.optimum = 0.0;
  i.optimizers = {Eigen::VectorXd::Zero(static_cast<Eigen::Index>(space_.size()))};
  return i;
}

void ProblemXyz::evaluate(const Eigen::VectorXd& x, arbo::sdk::Evaluation& out) {
  if (static_cast<std::size_t>(x.size()) != space_.size()) {
    throw arbo::sdk::InvalidArgument("point has the wrong length");
  }
  out.objective = x.squaredNorm();
  out.constraints.resize(0);
}

}  // namespace xyz
