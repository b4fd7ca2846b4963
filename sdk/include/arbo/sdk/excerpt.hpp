// SPDX-License-Identifier: MIT
/// @file
/// @brief `excerpt`: how a message quotes a value that came from outside.
///
/// Messages name the value that was wrong (sdk/error.hpp). A value from a file, an argument or
/// a program's output may be a megabyte long; quoting it through `excerpt` keeps the message
/// short. The kernel quotes every such value through it, and plugins should too.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "arbo/sdk/export.hpp"

namespace arbo::sdk {

/// Longest value, in bytes, that a message quotes whole.
inline constexpr std::size_t kExcerptBytes = 200;

/// `text` as a message quotes it: whole when at most `max_bytes` long, else its first
/// `max_bytes` bytes (never cutting a UTF-8 character in two) and "... (N bytes)".
ARBO_SDK_API std::string excerpt(std::string_view text, std::size_t max_bytes = kExcerptBytes);

/// `text` with each of its lines cut by `excerpt` to `max_line_bytes`: for a message built by
/// someone else (a library's error with a copy of the source line, a plugin's message) that may
/// quote a long value whole.
ARBO_SDK_API std::string excerpt_lines(std::string_view text,
                                       std::size_t max_line_bytes = 2 * kExcerptBytes);

}  // namespace arbo::sdk
