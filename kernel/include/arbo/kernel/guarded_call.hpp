// SPDX-License-Identifier: MIT
/// @file
/// @brief Every call into plugin code goes through `guarded_call`.
///
/// The plugin's exception object is caught and destroyed inside the guard, while the plugin is
/// certainly loaded (Boost.DLL missuse #2); only a copied message leaves, in a kernel-owned
/// `PluginError` naming the component and the method.
#pragma once

#include <exception>
#include <string>
#include <string_view>
#include <utility>

#include "arbo/kernel/errors.hpp"
#include "arbo/sdk/error.hpp"

namespace arbo::kernel {

template <class F>
decltype(auto) guarded_call(std::string_view component_id, std::string_view method, F&& f) {
  std::string message;
  try {
    return std::forward<F>(f)();
  } catch (const KernelError&) {
    throw;  // already translated (nested kernel call, e.g. a Context service)
  } catch (const sdk::Error& e) {
    message = e.what();
  } catch (const std::exception& e) {
    message = e.what();
  } catch (...) {
    message = "unknown exception (not derived from std::exception)";
  }
  throw PluginError("[" + std::string(component_id) + "] " + std::string(method) +
                    "() failed: " + message);
}

}  // namespace arbo::kernel
