// SPDX-License-Identifier: MIT
#include "arbo/kernel/errors.hpp"

namespace arbo::kernel {

namespace {

// Removes `prefix` from the front of `s`; true when it was there.
bool strip(std::string_view& s, std::string_view prefix) {
  if (s.substr(0, prefix.size()) != prefix) return false;
  s.remove_prefix(prefix.size());
  return true;
}

}  // namespace

std::string component_error(std::string_view component_id, std::string_view method,
                            std::string_view what) {
  // A plugin that already names itself ("[surrogate/x] fit(): ..." in the SDK templates'
  // style, or "surrogate/x: fit(): ...") keeps its text once, in the common shape.
  const std::string id(component_id);
  const std::string call = std::string(method) + "(): ";
  if (strip(what, "[" + id + "] ") || strip(what, id + ": ")) strip(what, call);
  std::string out;
  out.reserve(id.size() + call.size() + what.size() + 2);
  out.append(id).append(": ").append(call).append(what);
  return out;
}

}  // namespace arbo::kernel
