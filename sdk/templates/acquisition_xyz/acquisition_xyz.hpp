// SPDX-License-Identifier: MIT
/// @file
/// @brief Template acquisition: lower confidence bound, to be maximized.
///
/// From the SDK's acquisition template (`tools/new-plugin acquisition NAME` copies and renames it).
/// The contract is in <arbo/sdk/acquisition.hpp>; the conformance kit checks it
/// (acquisition_xyz_test.cpp).
#pragma once

#include <vector>

#include <arbo/sdk/acquisition.hpp>
#include <arbo/sdk/capabilities/acquisition.hpp>

namespace xyz {

/// value(x) = -(mean(x) - beta * sd(x)): the negated lower confidence bound of the objective
/// model. The kernel minimizes y and inner solvers maximize acquisitions, hence the sign.
///
/// Black-box constraints (c_k(x) <= 0 is feasible): a point counts only where every constraint
/// model's optimistic bound mean_k(x) - beta * sd_k(x) is <= 0, else its value is -infinity.
/// That is what the capability arbo::sdk::RespectsBlackBoxConstraints promises; without it the
/// kernel refuses the acquisition on problems that have black-box constraints.
class AcquisitionXyz final : public arbo::sdk::Acquisition,
                             public arbo::sdk::RespectsBlackBoxConstraints {
 public:
  explicit AcquisitionXyz(const arbo::sdk::CreateArgs& args);
  static const arbo::sdk::ParamSpecList& params();

  /// Keeps pointers to the objective and constraint models; valid until the next `bind`.
  /// Throws when the pipeline has no objective model.
  void bind(const arbo::sdk::AcquisitionInputs& inputs) override;

  /// One point: predicts a one-row matrix. Inner solvers that score many points call
  /// `values`, which predicts them in one call.
  double value(const Eigen::VectorXd& x) const override;
  void values(const Eigen::MatrixXd& X, Eigen::VectorXd& out) const override;

 private:
  double beta_;
  const arbo::sdk::Surrogate* objective_ = nullptr;
  std::vector<const arbo::sdk::Surrogate*> constraints_;
};

}  // namespace xyz
