// SPDX-License-Identifier: MIT
/// @file
/// @brief The build fingerprint compared between kernel and plugins at load time.
///
/// Two modules can share C++ objects (std::string, Eigen matrices, vtables) only when they were
/// built by the same compiler major version, with the same standard-library ABI, the same Boost
/// and Eigen versions and the same Eigen alignment (P8, P9). The fingerprint encodes exactly
/// those; it deliberately leaves out the C++ standard (the SDK headers need C++20, and a
/// plugin compiled as C++23 may load into a C++20 kernel: the standard library ABI is what
/// must agree, and that is in the fingerprint).
///
/// The fingerprint is a string literal computed by the preprocessor in every translation unit
/// that includes this header: the plugin's copy travels in its phase-1 header
/// (plugin_abi.h), the host's is compiled into libarbo_sdk.so (`sdk_build_fingerprint()`),
/// and `check_plugin_header` compares them byte for byte. A mismatch refuses the plugin with
/// both strings in the message, which says what to rebuild. `ArboSDKConfig.cmake` checks the
/// compiler family and major version earlier, at configure time, with a clearer message.
#pragma once

#include <Eigen/Core>
#include <boost/version.hpp>

#include "arbo/sdk/version.hpp"

// Compiler family and major version: the C++ ABI (name mangling, vtable layout, exception
// tables) is only promised within one.
#if defined(__clang__)
#define ARBO_DETAIL_COMPILER "clang-" ARBO_DETAIL_STR(__clang_major__)
#elif defined(__GNUC__)
#define ARBO_DETAIL_COMPILER "gcc-" ARBO_DETAIL_STR(__GNUC__)
#else
#define ARBO_DETAIL_COMPILER "unknown-compiler"
#endif

// Standard library and its ABI switch: std::string and std::list change layout with
// _GLIBCXX_USE_CXX11_ABI, and libc++ is not libstdc++.
#if defined(_GLIBCXX_USE_CXX11_ABI)
#define ARBO_DETAIL_STDLIB "libstdc++-cxx11abi" ARBO_DETAIL_STR(_GLIBCXX_USE_CXX11_ABI)
#elif defined(_LIBCPP_VERSION)
#define ARBO_DETAIL_STDLIB "libc++-" ARBO_DETAIL_STR(_LIBCPP_VERSION)
#else
#define ARBO_DETAIL_STDLIB "unknown-stdlib"
#endif

// Checked standard-library builds: _GLIBCXX_DEBUG changes container layouts; assertions are
// included too, since mixing them hides the checks the developer asked for.
#if defined(_GLIBCXX_DEBUG) || defined(_GLIBCXX_ASSERTIONS)
#define ARBO_DETAIL_STDLIB_CHECKS "+checks"
#else
#define ARBO_DETAIL_STDLIB_CHECKS ""
#endif

/// The fingerprint as a string literal, e.g.
/// "gcc-12;libstdc++-cxx11abi1;boost-107400;eigen-3.4.0;eigen-align-16;sdk-0".
/// Fields: compiler, standard library (+checks), Boost version (BOOST_VERSION), Eigen version,
/// Eigen's maximum alignment in bytes (set by SIMD flags such as -mavx: a mismatch makes
/// fixed-size Eigen objects misaligned across modules, P9), and the SDK major version.
#define ARBO_BUILD_FINGERPRINT \
  ARBO_DETAIL_COMPILER ";" ARBO_DETAIL_STDLIB ARBO_DETAIL_STDLIB_CHECKS                         \
                       ";boost-" ARBO_DETAIL_STR(BOOST_VERSION) ";eigen-" ARBO_DETAIL_STR(     \
                           EIGEN_WORLD_VERSION) "." ARBO_DETAIL_STR(EIGEN_MAJOR_VERSION) "."   \
                           ARBO_DETAIL_STR(EIGEN_MINOR_VERSION) ";eigen-align-"                \
                           ARBO_DETAIL_STR(EIGEN_MAX_ALIGN_BYTES) ";sdk-"                      \
                           ARBO_DETAIL_STR(ARBO_SDK_VERSION_MAJOR)

namespace arbo::sdk {
/// The fingerprint of the translation unit that includes this header (null-terminated, static
/// storage, usable in constant expressions).
inline constexpr const char kBuildFingerprint[] = ARBO_BUILD_FINGERPRINT;
}  // namespace arbo::sdk
