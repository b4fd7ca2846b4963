// SPDX-License-Identifier: MIT
/// @file
/// @brief Exception types shared by the kernel and plugins.
///
/// Their typeinfo lives in libarbo_sdk.so (out-of-line destructors), so a plugin may throw
/// `arbo::sdk::Error` and the kernel catches it by type. The kernel never lets a plugin's
/// exception object escape the guard around the call: it copies the message and rethrows a
/// kernel-owned error naming the plugin and method.
///
/// Plugins throw for programming and input errors. Expected numerical outcomes (an inner
/// solver that finds nothing feasible, a fit that needs more data) are return values.
#pragma once

#include <stdexcept>
#include <string>

#include "arbo/sdk/export.hpp"

namespace arbo::sdk {

/// Base of every arbo exception.
class ARBO_SDK_API Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message);
  ~Error() override;
};

/// A parameter value or configuration entry is invalid. `key()` names the offending key
/// (empty when the error is not about one key), so the kernel can point at its TOML line.
class ARBO_SDK_API ParamError : public Error {
 public:
  ParamError(std::string key, const std::string& message);
  ~ParamError() override;
  /// Name of the offending parameter, as written in the configuration.
  const std::string& key() const noexcept { return key_; }

 private:
  std::string key_;
};

/// A point, vector or model does not match the space or has invalid values.
class ARBO_SDK_API InvalidArgument : public Error {
 public:
  explicit InvalidArgument(const std::string& message);
  ~InvalidArgument() override;
};

/// The operation was cancelled through `Context::cancelled()` or its time budget ran out.
class ARBO_SDK_API Cancelled : public Error {
 public:
  explicit Cancelled(const std::string& message);
  ~Cancelled() override;
};

}  // namespace arbo::sdk
