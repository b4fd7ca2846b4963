// SPDX-License-Identifier: MIT
/// @file
/// @brief The input encoding of surrogate/relu_net: the network's input vector, which is also
/// the decision vector of its formulation (NN+MILP, Papalexopoulos et al. 2022, Sec. 3).
#pragma once

#include <cstddef>
#include <vector>

#include <Eigen/Core>

#include <arbo/sdk/space.hpp>

namespace arbo::plugins::relu_net {

/// How one coordinate of the space enters the network.
enum class InputKind {
  OneHot,  ///< one 0/1 input per value (categoricals; integers with few values)
  Binary,  ///< the 0/1 coordinate itself
  Scaled,  ///< (x - lower) / (upper - lower), in [0, 1] (reals; integers with many values)
};

/// Encoding of one coordinate: `width` inputs starting at `offset`.
struct CoordinateEncoding {
  InputKind kind = InputKind::Scaled;
  std::size_t offset = 0;
  std::size_t width = 1;
  /// OneHot: the encoded coordinate value of each input (category index, integer value, or
  /// ln(value) for a log-scaled integer), in order.
  std::vector<double> values;
  /// Scaled: encoded lower bound and range (upper - lower, > 0; 1 for a fixed coordinate).
  double lower = 0.0;
  double range = 1.0;
};

/// Limits of the encoding, from the plugin's parameters.
struct EncodingLimits {
  /// Integers with at most this many values are one-hot encoded; wider ones are scaled.
  std::size_t max_onehot_values = 32;
  /// Largest input width accepted.
  std::size_t max_inputs = 4096;
};

/// Input encoding of a space. One input per one-hot value or binary, one per scaled coordinate,
/// in the order of the coordinates. Construction is O(total width).
class Encoding {
 public:
  Encoding() = default;
  /// @throws sdk::Error naming the parameter that cannot be encoded: a real (or wide integer)
  ///         whose encoded range is not finite, or the parameter at which the width exceeds
  ///         `limits.max_inputs`. The message starts with "surrogate/relu_net".
  Encoding(const sdk::Space& space, const EncodingLimits& limits);

  std::size_t width() const noexcept { return width_; }
  std::size_t dim() const noexcept { return coords_.size(); }
  const CoordinateEncoding& operator[](std::size_t i) const { return coords_[i]; }
  /// Most nonzero inputs of one encoded point: one per coordinate.
  std::size_t max_nonzeros() const noexcept { return coords_.size(); }

  /// Index of the one-hot input of coordinate i whose value is nearest to `v`. O(width of i).
  std::size_t onehot_index(std::size_t i, double v) const;

  /// Sparse form of the encoding of point `x` (length dim()): writes at most `max_nonzeros()`
  /// (input index, value) pairs into `index` / `value` (both pre-sized by the caller) and
  /// returns their number. Zero inputs are left out. No allocation.
  std::size_t encode_sparse(const Eigen::Ref<const Eigen::VectorXd>& x, int* index,
                            double* value) const;
  /// Dense form: `out` (resized to width()). Allocates only when `out` has another size.
  void encode_dense(const Eigen::Ref<const Eigen::VectorXd>& x, Eigen::VectorXd& out) const;

 private:
  std::vector<CoordinateEncoding> coords_;
  std::size_t width_ = 0;
};

}  // namespace arbo::plugins::relu_net
