// SPDX-License-Identifier: MIT
#include "acquisition_xyz.hpp"

#include <cmath>
#include <limits>

#include <arbo/sdk/error.hpp>

namespace xyz {

const arbo::sdk::ParamSpecList& AcquisitionXyz::params() {
  static const arbo::sdk::ParamSpecList specs{arbo::sdk::ParamSpec::real(
      "beta",
      "Exploration weight: standard deviations subtracted from the predicted mean. 0 is pure "
      "exploitation; larger values favour uncertain regions.",
      2.0, 0.0)};
  return specs;
}

AcquisitionXyz::AcquisitionXyz(const arbo::sdk::CreateArgs& args)
    : beta_(args.params.get_real("beta")) {}

void AcquisitionXyz::bind(const arbo::sdk::AcquisitionInputs& inputs) {
  if (inputs.objective == nullptr) {
    throw arbo::sdk::Error("needs a surrogate of the objective");
  }
  objective_ = inputs.objective;
  constraints_ = inputs.constraints;
}

double AcquisitionXyz::value(const Eigen::VectorXd& x) const {
  Eigen::VectorXd out;
  values(x.transpose(), out);
  return out[0];
}

void AcquisitionXyz::values(const Eigen::MatrixXd& X, Eigen::VectorXd& out) const {
  if (objective_ == nullptr) {
    throw arbo::sdk::Error("called before bind()");
  }
  Eigen::VectorXd mean, variance;
  objective_->predict(X, mean, variance);
  // Clamping guards against a model returning a tiny negative variance from round-off.
  out = -(mean.array() - beta_ * variance.array().max(0.0).sqrt()).matrix();
  for (const arbo::sdk::Surrogate* c : constraints_) {
    c->predict(X, mean, variance);
    const Eigen::ArrayXd bound = mean.array() - beta_ * variance.array().max(0.0).sqrt();
    for (Eigen::Index i = 0; i < X.rows(); ++i) {
      if (!(bound[i] <= 0.0)) out[i] = -std::numeric_limits<double>::infinity();
    }
  }
}

}  // namespace xyz
