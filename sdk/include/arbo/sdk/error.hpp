// SPDX-License-Identifier: MIT
/// @file
/// @brief Exception types shared by the kernel and plugins.
///
/// Their typeinfo lives in libarbo_sdk.so (out-of-line destructors), so a plugin may throw
/// `arbo::sdk::Error` and the kernel catches it by type. The kernel never lets a plugin's
/// exception object escape the guard around the call: it copies the message and rethrows a
/// kernel error shaped `<kind>/<name>: <method>(): <what>`, the project's one message shape,
/// naming the component that threw even when another plugin (the inner solver) called it.
/// Thrown from a study, that error stops it with exit code 4 (plugin error); the observations
/// recorded so far stay in the study's store. A problem's `evaluate` that throws makes a
/// failed observation instead, and the study goes on (decision 6 of docs/decisions.md).
///
/// Plugins throw for programming and input errors. Expected numerical outcomes (an inner
/// solver that finds nothing feasible, a model solve that hits its limit) are return values
/// (`Proposal::found`, `SolveResult::status`). Write messages that say what was wrong and
/// which value caused it, without a prefix: the kernel adds the component and the method.
///
/// All four types are cheap to copy and carry only a message (and a key); none of them is
/// thrown by the SDK for anything but the documented preconditions.
#pragma once

#include <stdexcept>
#include <string>

#include "arbo/sdk/export.hpp"

namespace arbo::sdk {

/// Base of every arbo exception. Catch this to handle any SDK error; `what()` is the message.
class ARBO_SDK_API Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message);
  ~Error() override;
};

/// A parameter value or configuration entry is invalid. `key()` names the offending key
/// (empty when the error is not about one key), so the kernel can point at its TOML line.
/// Thrown by `validate_params` and by `ParamSet` getters; a component may throw it from its
/// constructor for a combination of values the specs cannot express (two bounds given in the wrong
/// order).
class ARBO_SDK_API ParamError : public Error {
 public:
  /// `key` as written in the configuration (e.g. "beta"); `message` the full sentence.
  ParamError(std::string key, const std::string& message);
  ~ParamError() override;
  /// Name of the offending parameter, as written in the configuration.
  const std::string& key() const noexcept { return key_; }

 private:
  std::string key_;
};

/// A point, vector or model does not match the space or has invalid values: a wrong length,
/// a NaN, a bound that crosses, a term naming an unknown variable. Thrown by `Space`,
/// `Dataset` and `Model` members and by model solvers for a model they cannot take.
class ARBO_SDK_API InvalidArgument : public Error {
 public:
  explicit InvalidArgument(const std::string& message);
  ~InvalidArgument() override;
};

/// The operation was cancelled through `Context::cancelled()` or its time budget ran out
/// before it had any result to return. A component that has a result returns it instead.
class ARBO_SDK_API Cancelled : public Error {
 public:
  explicit Cancelled(const std::string& message);
  ~Cancelled() override;
};

}  // namespace arbo::sdk
