// SPDX-License-Identifier: MIT
/// @file
/// @brief The salts and seed offsets that keep the study's random streams apart.
///
/// Every component's Context is reseeded before each call from (study seed, stream, salt)
/// (`KernelContext::reseed`), and the kernel's own draws (augmentation points, design top-up
/// candidates, fallback points) use the study seed xor a constant. Changing any value changes
/// the proposals of every seeded study, so they are fixed; each is used from here only.
#pragma once

#include <cstdint>

namespace arbo::kernel {

/// Salts of `KernelContext::reseed(seed, stream, salt)`; the stream is the observation number
/// (or id) of the call.
enum Salt : std::uint64_t {
  kSaltSolver = 1,
  kSaltAcquisition = 2,
  kSaltConstraint = 3,
  kSaltSurrogate = 100,       ///< + metric index (0 = objective, k = constraint k-1)
  kSaltProblem = 0x70726f62,  ///< "prob": a problem's noise; `arbo problem eval` reuses it
};

/// Seed of the knowledge-augmentation points: study seed xor this ("augment!").
inline constexpr std::uint64_t kAugmentationSeedXor = 0x6175676d656e7421ull;
/// Seed of the candidates projected to top up a short initial design ("project!").
inline constexpr std::uint64_t kProjectionSeedXor = 0x70726f6a65637421ull;
/// Seed of the fallback draws of proposal k: study seed xor (this + k) ("fallback").
inline constexpr std::uint64_t kFallbackSeedBase = 0x66616c6c6261636bull;
/// Seed of the draws that replace proposal k when it repeats a pending point: study seed xor
/// (this + k) ("pending!").
inline constexpr std::uint64_t kPendingSeedBase = 0x70656e64696e6721ull;

}  // namespace arbo::kernel
