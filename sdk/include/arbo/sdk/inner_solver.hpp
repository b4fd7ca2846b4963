// SPDX-License-Identifier: MIT
/// @file
/// @brief Inner solvers: maximize an acquisition over the space subject to known constraints.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "arbo/sdk/acquisition.hpp"
#include "arbo/sdk/component.hpp"
#include "arbo/sdk/constraint.hpp"
#include "arbo/sdk/dataset.hpp"
#include "arbo/sdk/model.hpp"

namespace arbo::sdk {

/// One maximization request.
struct SolveRequest {
  /// The bound acquisition, or nullptr in a pipeline without a model (random search, and the
  /// initial design's fallback): then any point satisfying the known constraints will do.
  const Acquisition* acquisition = nullptr;
  const Space& space;
  std::vector<const Constraint*> constraints;  ///< known constraints; x must satisfy them
  const Dataset& data;                         ///< observations so far (incl. pending points)
};

/// The answer. `found == false` means no point satisfying the known constraints was found;
/// the kernel then stops the study with an "infeasible known constraints" error.
struct Proposal {
  bool found = false;
  Eigen::VectorXd x;                       ///< encoded point (the kernel snaps it again)
  double value = 0.0;                      ///< acquisition value at x (0 without acquisition)
  std::optional<SolveResult> certificate;  ///< model-based solvers: bound, gap, nodes, status
  std::string note;                        ///< free text for the log
  /// Model-based solvers: size of the model solved (the kernel records it per iteration).
  struct ModelSize {
    std::int64_t variables = 0;
    std::int64_t binaries = 0;  ///< binary variables
    std::int64_t integers = 0;  ///< general integer variables
    std::int64_t linear_rows = 0;
    std::int64_t quadratic_rows = 0;
  };
  std::optional<ModelSize> model_size;
};

/// Maximizes `request.acquisition` over `request.space`.
///
/// Black-box solvers only call `Acquisition::value`; model-based solvers ask the acquisition
/// for its formulation (capabilities.hpp) and may reject a pipeline that lacks it by throwing
/// `Error` from `maximize`. Must poll `Context::cancelled()` in long loops.
class ARBO_SDK_API InnerSolver : public Component {
 public:
  ~InnerSolver() override;
  virtual Proposal maximize(const SolveRequest& request) = 0;
};

}  // namespace arbo::sdk
