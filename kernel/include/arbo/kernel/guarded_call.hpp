// SPDX-License-Identifier: MIT
/// @file
/// @brief Every call into plugin code goes through `guarded_call`.
///
/// The plugin's exception object is caught and destroyed inside the guard, while the plugin is
/// certainly loaded (Boost.DLL missuse #2); only a copied message leaves, in a kernel-owned
/// `PluginError` naming the component and the method in the shape of `component_error`
/// (`<kind>/<name>: <method>(): <what>`).
#pragma once

#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "arbo/kernel/errors.hpp"
#include "arbo/sdk/error.hpp"

namespace arbo::kernel {

/// Calls `f()`; an exception becomes a PluginError of message
/// `component_error(component_id, method, what)`. `reattribute(const std::exception*,
/// std::string_view what) -> std::optional<std::string>` may return the full message of
/// another culprit instead (`exception` is null for a non-std exception).
template <class F, class Reattribute>
decltype(auto) guarded_call(std::string_view component_id, std::string_view method, F&& f,
                            Reattribute&& reattribute) {
  std::string message;
  try {
    return std::forward<F>(f)();
  } catch (const KernelError&) {
    throw;  // already translated (nested kernel call, e.g. a Context service)
  } catch (const std::exception& e) {
    message = e.what();  // sdk::Error derives from std::exception
    if (auto other = reattribute(&e, message)) throw PluginError(*other);
  } catch (...) {
    message = "unknown exception (not derived from std::exception)";
    if (auto other = reattribute(nullptr, message)) throw PluginError(*other);
  }
  throw PluginError(component_error(component_id, method, message));
}

template <class F>
decltype(auto) guarded_call(std::string_view component_id, std::string_view method, F&& f) {
  return guarded_call(component_id, method, std::forward<F>(f),
                      [](const std::exception*, std::string_view) -> std::optional<std::string> {
                        return std::nullopt;
                      });
}

}  // namespace arbo::kernel
