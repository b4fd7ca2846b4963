// SPDX-License-Identifier: MIT
/// @file
/// @brief The operators of regularized evolution as Papalexopoulos et al. (2022, "Constrained
/// Discrete Black-Box Optimization using Mixed-Integer Programming", App. C.2 and C.6) run it:
/// the alive population and its tournament, left-to-right crossover, token mutation, and
/// ConEvo's feasible mutation of subset-balance pairs. Free of plugin types other than the
/// space, so the tests check the operators' statistics directly.
///
/// Every draw comes from the `std::mt19937_64` the caller passes (the component's
/// `Context::rng()`); nothing here allocates once the buffers have their size.
#pragma once

#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include <arbo/sdk/balance.hpp>
#include <arbo/sdk/space.hpp>

namespace arbo::plugins::regevo {

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// The alive population: the `capacity` most recently added members (a ring buffer), each with
/// a score (larger is better) and a tier (a member of a higher tier beats any of a lower one:
/// feasible observations before those violating a black-box constraint).
class Population {
 public:
  /// Empties the population and sizes it for `capacity` members of dimension `d` (allocates only
  /// when either grows). Precondition: capacity >= 1.
  void reset(Eigen::Index capacity, Eigen::Index d);
  /// Adds a member, replacing the oldest one when full. `x` has d entries. A NaN score counts as
  /// -infinity. O(d).
  void push(const double* x, double score, int tier = 1);
  Eigen::Index size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  /// Member in slot `slot` (0 <= slot < size()); slots are not in age order.
  const double* row(Eigen::Index slot) const { return X_.row(slot).data(); }
  double score(Eigen::Index slot) const { return score_[slot]; }
  /// True when slot `a` beats slot `b`: higher tier, then higher score.
  bool better(Eigen::Index a, Eigen::Index b) const {
    return tier_[static_cast<std::size_t>(a)] != tier_[static_cast<std::size_t>(b)]
               ? tier_[static_cast<std::size_t>(a)] > tier_[static_cast<std::size_t>(b)]
               : score_[a] > score_[b];
  }
  /// Tournament selection (App. C.2): min(t, size()) distinct members drawn uniformly without
  /// replacement; returns the best and the second best (the same slot twice when size() is 1;
  /// among equals the one drawn first wins). Precondition: !empty(), t >= 1. O(t), by a partial
  /// Fisher-Yates shuffle of a permutation kept between calls.
  std::pair<Eigen::Index, Eigen::Index> tournament(Eigen::Index t, std::mt19937_64& rng);

 private:
  RowMatrix X_;
  Eigen::VectorXd score_;
  std::vector<int> tier_;
  std::vector<Eigen::Index> perm_;  // a permutation of 0 .. size_-1
  Eigen::Index head_ = 0;           // slot the next push writes
  Eigen::Index size_ = 0;
};

/// Crossover (App. C.2): copies positions left to right from one parent, switching to the other
/// parent with probability `p_c` after each copied position. The starting parent is drawn
/// uniformly (the paper does not say which starts). Returns the number of switches (d - 1
/// opportunities). O(d) draws.
int crossover(const double* a, const double* b, Eigen::Index d, double p_c,
              Eigen::Ref<Eigen::VectorXd> child, std::mt19937_64& rng);

/// How a Real coordinate mutates.
enum class RealMutation {
  Gaussian,  ///< x + N(0, (step * range)^2) in encoded units, reflected at the bounds
  Uniform,   ///< a uniform redraw over the encoded range
};

/// Token mutation (App. C.2): each coordinate becomes a different valid value with probability
/// p_m. Binary: flipped. Categorical and Integer: a uniform draw among the other values (user
/// units for log-scaled integers, encoded again). Real: see `RealMutation`. Coordinates with a
/// single value never change.
class TokenMutator {
 public:
  TokenMutator() = default;
  TokenMutator(const sdk::Space& space, RealMutation real, double real_step);
  Eigen::Index size() const noexcept { return static_cast<Eigen::Index>(kind_.size()); }
  /// Mutates every coordinate of `x` whose `skip` entry is 0 (all when `skip` is empty) with
  /// probability p; returns the number of coordinates changed. One uniform per coordinate,
  /// plus the draw of the new value. Precondition: x snapped.
  int mutate(Eigen::Ref<Eigen::VectorXd> x, double p, std::mt19937_64& rng,
             const std::vector<char>& skip = {}) const;
  /// Replaces coordinate i by a different valid value (no-op for a single-valued coordinate).
  void change(Eigen::Ref<Eigen::VectorXd> x, Eigen::Index i, std::mt19937_64& rng) const;

 private:
  enum class Kind : std::uint8_t { Fixed, Binary, Values, LogInteger, Real };
  std::vector<Kind> kind_;
  std::vector<double> lo_, hi_;  // Values, Real: encoded bounds; LogInteger: user bounds
  RealMutation real_ = RealMutation::Gaussian;
  double real_step_ = 0.1;
};

/// A subset-balance equality sum_{i in a} x_i = sum_{i in b} x_i over binary coordinates.
using BalancePair = sdk::BalancePair;

/// ConEvo's feasible mutation (App. C.6), pair by pair: one side drawn uniformly is I+, each of
/// its positions flipped with probability p_m; c = net number of 0 -> 1 flips; c positions of
/// the other side (I-) drawn uniformly among its zeros are set to 1 (c > 0), or -c among its ones
/// set to 0 (c < 0). With |a| = |b| and a balanced parent this is always possible; when the
/// sides differ in size and I- lacks positions, the pair's flips are undone (the pair stays
/// balanced). Pairs must be disjoint. Scratch buffers are kept, so no call allocates after the
/// first.
class BalanceMutator {
 public:
  /// Mutates `x` (binary on every pair coordinate) in place; returns the positions flipped.
  int mutate(Eigen::Ref<Eigen::VectorXd> x, const std::vector<BalancePair>& pairs, double p_m,
             std::mt19937_64& rng);

 private:
  std::vector<Eigen::Index> flipped_, pool_;
};

}  // namespace arbo::plugins::regevo
