// SPDX-License-Identifier: MIT
/// @file
/// @brief Optional capabilities of an inner solver: it needs no observations without a model;
/// it can exclude evaluated points.
#pragma once

#include "arbo/sdk/export.hpp"

namespace arbo::sdk {

/// Inner solver whose `maximize` reads nothing of `SolveRequest::data` when
/// `SolveRequest::acquisition` is nullptr (random search, design slots the initial design
/// could not fill): its model-free proposal depends only on the space, the known constraints
/// and `Context::rng()`.
///
/// For such a call the kernel hands it an empty dataset (no rows; the study's dimension,
/// constraint names and direction) instead of bringing the study's dataset up to date.
/// `Dataset` keeps column-major matrices of exactly n rows, so updating it costs O(n d) per
/// proposal; without this capability a model-free study of 10^5 evaluations spends most of
/// its time copying observations that the solver never looks at. A solver that does read
/// the data without a model (to start from an observed point, or to skip observed points)
/// must not derive from it. A marker: no functions.
class ARBO_SDK_API IgnoresDataWithoutModel {
 public:
  virtual ~IgnoresDataWithoutModel();
};

/// Inner solver that honours `SolveRequest::exclude_evaluated`: its answer is never an
/// evaluated point (model-based solvers add no-good cuts, `add_exclusion_cuts`; black-box ones
/// skip the points of an `EvaluatedPoints` set, exclusion.hpp). The kernel refuses a pipeline
/// with `[proposal] exclude_evaluated = true` whose solver lacks it (`arbo check` and
/// `arbo run`, exit code 3, naming this capability), and treats an evaluated point returned by
/// one that has it as the solver's error. A marker: no functions.
class ARBO_SDK_API ExcludesEvaluated {
 public:
  virtual ~ExcludesEvaluated();
};

}  // namespace arbo::sdk
