// SPDX-License-Identifier: MIT
/// @file
/// @brief Inner solvers: maximize an acquisition over the space subject to known constraints.
///
/// Every proposal after the initial design is one `InnerSolver::maximize` call: the kernel
/// fits the surrogates, binds the acquisition and hands both, with the known constraints and
/// the data, to the pipeline's inner solver. Two families exist: black-box solvers that only
/// evaluate `Acquisition::value` (random search, Nelder-Mead, candidate pools), and
/// model-based solvers that ask the acquisition and the constraints to formulate themselves
/// into a `Model` (capabilities/acquisition.hpp, capabilities/constraint.hpp) and solve it
/// (`glpk_bnb`). A model-based solver that also derives from `ModelSolver` (model.hpp)
/// serves the pipeline's auxiliary models through `Context::model_solver()`.
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

/// One maximization request. Everything it refers to stays valid during the `maximize` call
/// only.
struct SolveRequest {
  /// The bound acquisition, or nullptr when there is no model to maximize: in a pipeline
  /// without an acquisition (random search), before any observation is complete, and for
  /// design slots the initial design could not fill. Then any point satisfying the known
  /// constraints will do.
  const Acquisition* acquisition = nullptr;
  /// The study's space; the answer is an encoded point of it.
  const Space& space;
  /// The known constraints (the pipeline's, plus those of the problem); the answer must
  /// satisfy every one (`violation(x) <= 1e-6` after snapping, as the kernel checks).
  std::vector<const Constraint*> constraints;
  /// Observations so far, in the conventions of dataset.hpp; model-based solvers use the
  /// feasible ones as starting points. `X_pending` holds the points being evaluated
  /// (`[study] workers` > 1; empty otherwise); the kernel replaces an answer that repeats one.
  /// Empty (no rows) when `acquisition` is nullptr and the solver declares
  /// `IgnoresDataWithoutModel` (capabilities/inner_solver.hpp).
  const Dataset& data;
  /// The pipeline's `[proposal] exclude_evaluated`: the answer must differ from every
  /// evaluated point of `data` (rows of X, X_failed and X_pending; exclusion.hpp). Set only
  /// for solvers that declare `ExcludesEvaluated` (capabilities/inner_solver.hpp), on spaces
  /// without Real coordinates; `data` then always holds the study's rows, also without a model.
  bool exclude_evaluated = false;
};

/// The answer of `maximize`.
///
/// `found == false` means the solver found no point satisfying the known constraints. That is
/// an expected outcome, not an error (throw only for a misconfigured pipeline or a broken
/// model). The kernel then checks whether some completed observation satisfies the known
/// constraints: if one does, the set is not empty and the solver failed, so for this proposal
/// only the kernel takes the first of its own seeded uniform draws that satisfies them (else
/// one projected onto them by the model solver), logs a warning and records the failure in
/// the observation's statistics (`fallback`). Only when no observation satisfies them, or the
/// fallback finds no point either, does the study stop with exit code 6 ("the known
/// constraints admit no point that could be found"), leaving the study intact.
struct Proposal {
  bool found = false;  ///< true when `x` satisfies the known constraints
  /// Encoded point, length `space.size()`, no NaN. The kernel snaps it onto the space and
  /// rejects it (a `PluginError` naming the solver) when it then violates a known constraint
  /// by more than 1e-6.
  Eigen::VectorXd x;
  double value = 0.0;  ///< acquisition value at x (0 without acquisition); for logs only
  /// Model-based solvers: the solve's status, objective, bound, gap, nodes, LP iterations and
  /// seconds; the kernel stores them with the observation (`arbo export` shows them).
  std::optional<SolveResult> certificate;
  /// With `found == false` and `SolveRequest::exclude_evaluated`: the solver proved that no
  /// point satisfying the known constraints lies outside the evaluated points (a model-based
  /// solver whose model with the exclusion cuts is infeasible). The kernel then ends the study
  /// cleanly ("every point has been evaluated") when some evaluated point satisfies them.
  bool exhausted = false;
  std::string note;  ///< free text for the log and the fallback message, e.g. the solver status
  /// Model-based solvers: size of the model solved (the kernel records it per iteration).
  struct ModelSize {
    std::int64_t variables = 0;
    std::int64_t binaries = 0;  ///< binary variables
    std::int64_t integers = 0;  ///< general integer variables
    std::int64_t linear_rows = 0;
    std::int64_t quadratic_rows = 0;
  };
  std::optional<ModelSize> model_size;  ///< empty for black-box solvers
};

/// Maximizes `request.acquisition` over `request.space` subject to `request.constraints`.
///
/// Black-box solvers only call `Acquisition::value`/`values`; model-based solvers ask the
/// acquisition for its formulation (capabilities/acquisition.hpp) and may reject a pipeline
/// that lacks it by throwing `Error` from `maximize`, naming the missing capability.
///
/// Contract: draw all randomness from `Context::rng()` (reseeded before every call, so a
/// resumed study proposes what an uninterrupted one would); poll `Context::cancelled()` in
/// long loops and return the best point found so far when it fires, within the time
/// `Context::seconds_left()` reports (the rest of the study's `time_limit`, if one is set).
/// The kernel calls `maximize` once per proposal, from one thread.
class ARBO_SDK_API InnerSolver : public Component {
 public:
  ~InnerSolver() override;
  /// One proposal. Throws `Error` for a pipeline it cannot serve (a missing capability), never
  /// for "nothing feasible found" (return `found == false`). Complexity: the solver's.
  virtual Proposal maximize(const SolveRequest& request) = 0;
};

}  // namespace arbo::sdk
