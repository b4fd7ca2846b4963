// SPDX-License-Identifier: MIT
/// @file
/// @brief Template acquisition: lower confidence bound, to be maximized.
///
/// From the SDK's acquisition template (`tools/new-plugin acquisition NAME` copies and renames it).
/// The contract is in <arbo/sdk/acquisition.hpp>; the conformance kit checks it
/// (acquisition_xyz_test.cpp).
#pragma once

#include <arbo/sdk/acquisition.hpp>

namespace xyz {

/// value(x) = -(mean(x) - beta * sd(x)): the negated lower confidence bound of the objective
/// model. The kernel minimizes y and inner solvers maximize acquisitions, hence the sign.
///
/// A deliberately small example: it ignores the black-box constraint models and the incumbent
/// that `bind` also receives (a constrained acquisition would, for instance, multiply by the
/// probability of feasibility computed from `inputs.constraints`).
class AcquisitionXyz final : public arbo::sdk::Acquisition {
 public:
  explicit AcquisitionXyz(const arbo::sdk::CreateArgs& args);
  static const arbo::sdk::ParamSpecList& params();

  /// Keeps a pointer to the objective model; valid until the next `bind`. Throws when the
  /// pipeline has no objective model.
  void bind(const arbo::sdk::AcquisitionInputs& inputs) override;

  /// One point: predicts a one-row matrix. Inner solvers that score many points call
  /// `values`, which predicts them in one call.
  double value(const Eigen::VectorXd& x) const override;
  void values(const Eigen::MatrixXd& X, Eigen::VectorXd& out) const override;

 private:
  double beta_;
  const arbo::sdk::Surrogate* objective_ = nullptr;
};

}  // namespace xyz
