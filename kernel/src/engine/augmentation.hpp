// SPDX-License-Identifier: MIT
/// @file
/// @brief Knowledge augmentation ([augmentation], c-TPE): the cheap black-box constraints'
/// values at extra points, which their surrogates learn from (engine-internal).
#pragma once

#include <cstddef>

#include <Eigen/Core>

#include "arbo/kernel/pipeline.hpp"
#include "arbo/kernel/study_store.hpp"
#include "arbo/sdk/dataset.hpp"
#include "engine/components.hpp"

namespace spdlog {
class logger;
}

namespace arbo::kernel {

class KnowledgeAugmentation {
 public:
  /// `components.cheap` names the cheap constraints (empty: augmentation is off). All
  /// references must outlive the object.
  KnowledgeAugmentation(const Pipeline& pipeline, Components& components, StudyStore& store,
                        spdlog::logger& logger);

  bool enabled() const noexcept { return !components_.cheap.empty(); }

  /// Makes the points available, once: a resumed study reads them from the store; a new one
  /// evaluates them (uniform draws that satisfy the known constraints, from the study seed)
  /// and stores the cheap constraints' values. They are neither observations nor part of the
  /// budget. Evaluator ids are negative (-1, -2, ...) so that they never collide with
  /// observation ids (and a noisy problem draws from its own stream). No-op when off.
  void ensure(bool quiet = false);

  /// Column of metric `m` (1-based constraint metric; 0 = objective) among the cheap
  /// constraints, or -1 when it is not cheap.
  int column(std::size_t m) const;

  /// Fits surrogate `m` (a cheap constraint, `column(m) >= 0`) on `data` plus the partial
  /// rows, through `sdk::FitsPartialObservations`: partial rows reach only this surrogate.
  void fit_partial(std::size_t m, const sdk::Dataset& data, const sdk::Metric& metric) const;

  const Eigen::MatrixXd& points() const noexcept { return X_; }
  /// Raw values (user units), column k for cheap constraint k.
  const Eigen::MatrixXd& values() const noexcept { return C_; }

 private:
  const Pipeline& pipeline_;
  Components& components_;
  StudyStore& store_;
  spdlog::logger& logger_;
  Eigen::MatrixXd X_, C_;
  bool ready_ = false;
};

}  // namespace arbo::kernel
