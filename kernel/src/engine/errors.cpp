// SPDX-License-Identifier: MIT
#include "arbo/kernel/errors.hpp"

#include "arbo/sdk/excerpt.hpp"

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
  // A plugin's message may quote a value whole (an expression's line with a caret under it):
  // each line is cut to an excerpt, so a megabyte-long value gives a short message.
  const std::string clipped = sdk::excerpt_lines(what, 10 * sdk::kExcerptBytes);
  std::string out;
  out.reserve(id.size() + call.size() + clipped.size() + 2);
  out.append(id).append(": ").append(call).append(clipped);
  return out;
}

}  // namespace arbo::kernel
