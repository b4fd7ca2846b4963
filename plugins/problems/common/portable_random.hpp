// SPDX-License-Identifier: MIT
/// @file
/// @brief A random stream whose values are the same on every machine, for generated instances.
///
/// std::mt19937_64's output sequence is fixed by the C++ standard, but the std::*_distribution
/// transforms are implementation-defined, so two standard libraries build different instances
/// from the same seed. These transforms are written out here instead. The only library calls
/// are std::log, std::cos, std::sqrt and std::pow, which glibc rounds identically on every
/// x86-64 and AArch64 machine.
#pragma once

#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>

namespace arbo::plugins::problems_common {

class PortableRng {
 public:
  explicit PortableRng(std::uint64_t seed) : engine_(seed) {}

  /// Uniform on [0, 1): the top 53 bits of one engine output.
  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  /// Uniform on (0, 1].
  double uniform_open_zero() { return static_cast<double>((engine_() >> 11) + 1) * 0x1.0p-53; }
  /// Uniform index in {0, ..., n-1} (floor of uniform() * n; the bias is below 2^-40).
  std::uint64_t index(std::uint64_t n) {
    return static_cast<std::uint64_t>(uniform() * static_cast<double>(n));
  }
  /// Standard normal by Box-Muller (cosine branch only: two uniforms per value).
  double normal() {
    const double u1 = uniform_open_zero();
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
  }
  /// Beta(1, b) by inversion: 1 - (1 - u)^(1/b).
  double beta_one(double b) { return beta_one_from(uniform(), b); }
  static double beta_one_from(double u, double b) { return 1.0 - std::pow(1.0 - u, 1.0 / b); }

 private:
  std::mt19937_64 engine_;
};

}  // namespace arbo::plugins::problems_common
