// SPDX-License-Identifier: MIT
/// @file
/// @brief Optional capability of an inner solver: it needs no observations without a model.
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

}  // namespace arbo::sdk
