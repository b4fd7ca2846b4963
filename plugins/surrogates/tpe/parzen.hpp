// SPDX-License-Identifier: MIT
/// @file
/// @brief Parzen estimators of c-TPE on the SDK's encoded space (App. A.4; kernels, bandwidths
/// and priors from the authors' code, constrained-tpe `optimizer/parzen_estimator/`).
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include <Eigen/Core>
#include <arbo/sdk/space.hpp>

namespace arbo::plugins::tpe {

/// How one encoded coordinate is modelled.
struct DimModel {
  enum class Kind { Continuous, Integer, Categorical };
  Kind kind = Kind::Continuous;
  // Continuous: the encoded bounds. Integer: the bounds widened by half a step in user units,
  // then encoded (ln for log scale), so that every integer owns the cell [T(v-1/2), T(v+1/2)].
  double lb = 0.0, ub = 1.0;
  double center = 0.5, range = 1.0;  // of [lb, ub]; the prior is N(center, range) truncated
  bool log_scale = false;            // Integer: T = ln
  std::int64_t ilo = 0, ihi = 0;     // Integer: user bounds
  int choices = 1;                   // Categorical and Binary
  // Conditions: active iff `parent` is active and snapped x[parent] is one of `allowed`.
  int parent = -1;
  std::vector<double> allowed;
};

/// The encoding shared by every estimator of a study (one per space).
class Encoding {
 public:
  Encoding() = default;
  explicit Encoding(const sdk::Space& space);
  std::size_t dim() const { return dims_.size(); }
  const DimModel& operator[](std::size_t d) const { return dims_[d]; }
  bool has_conditions() const { return has_conditions_; }
  /// Activity of every coordinate at a snapped point (parents come first in a Space).
  void activity(const Eigen::VectorXd& x, std::vector<std::uint8_t>& active) const;
  /// Cell [a, b] of the integer at encoded value `x` in dimension `d`.
  void integer_cell(std::size_t d, double x, double& a, double& b) const;

 private:
  std::vector<DimModel> dims_;
  bool has_conditions_ = false;
};

/// Numerical constants of the reference implementation.
struct ParzenOptions {
  double eps_bandwidth = 1e-2;  ///< minimum bandwidth as a fraction of the range
  double max_bandwidth = 0.5;   ///< maximum bandwidth as a fraction of the range
  double top = 0.8;             ///< Aitchison-Aitken mass on the observed category
  bool prior = true;            ///< add the prior component (weight of one observation)
};

/// A product-kernel KDE: one kernel per observation plus one prior component, uniform weights,
/// evaluated jointly (log-sum-exp over components of the sum over dimensions of log kernels).
///
/// Per dimension: truncated Gaussians for reals, their interval masses for integers,
/// Aitchison-Aitken for categoricals. An observation at which a coordinate is inactive
/// contributes the prior's kernel there (it says nothing about that coordinate); a query at
/// which a coordinate is inactive skips that factor. Both keep the density normalized over the
/// tree-structured space.
class Parzen {
 public:
  /// Fits on the rows `rows` of `X` (snapped, encoded), with `active` the row-major activity
  /// mask of all of X (n x d, or empty when the space has no conditions).
  void fit(const Encoding& enc, const Eigen::MatrixXd& X, const std::vector<Eigen::Index>& rows,
           const std::vector<std::uint8_t>& active, const ParzenOptions& options);
  /// Number of components (observations + prior).
  Eigen::Index components() const { return weights_log_.size(); }
  /// Shared bandwidth of numerical dimension d (0 for categoricals).
  double bandwidth(std::size_t d) const { return bandwidth_[d]; }
  /// Log density at an encoded point with activity `active_x` (empty = all active).
  /// Density w.r.t. Lebesgue measure on real coordinates and counting measure on the others.
  double log_pdf(const Eigen::VectorXd& x, const std::vector<std::uint8_t>& active_x) const;
  /// Draws `n` points into rows [row0, row0 + n) of `out`: per dimension an independent
  /// component (product of marginals, the reference code) or one component per point (`joint`).
  void sample(std::size_t n, std::mt19937_64& rng, bool joint, Eigen::MatrixXd& out,
              Eigen::Index row0) const;

 private:
  double sample_dim(std::size_t d, Eigen::Index b, std::mt19937_64& rng) const;

  const Encoding* enc_ = nullptr;
  ParzenOptions opt_;
  Eigen::ArrayXd weights_log_;        // B, uniform
  std::vector<double> bandwidth_;     // per dimension
  Eigen::ArrayXXd mu_;                // B x d: centre (numeric) or category index (-1 = uniform)
  Eigen::ArrayXXd sigma_;             // B x d
  Eigen::ArrayXXd inv_sigma_;         // B x d
  Eigen::ArrayXXd log_const_;         // B x d: continuous: -log(sigma sqrt(2 pi) Z); integer:
                                      // -log Z; categorical: log mass on the own category
  Eigen::ArrayXXd log_other_;         // B x d: categorical: log mass on any other category
  mutable Eigen::ArrayXd acc_, tmp_;  // work arrays of log_pdf (one thread at a time)
};

/// log(Phi(b) - Phi(a)) for a <= b, accurate in both tails; >= log(1e-300).
double log_normal_mass(double a, double b);

}  // namespace arbo::plugins::tpe
