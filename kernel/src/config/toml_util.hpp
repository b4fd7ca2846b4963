// SPDX-License-Identifier: MIT
/// @file
/// @brief Private helpers of the pipeline loader: the toml11 value type, located errors,
///        `--set` overrides and TOML literal formatting. toml11 is included only here.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <toml.hpp>

namespace arbo::kernel::config {

/// Tables keep their keys sorted, so that errors about several keys come in a stable order.
using TomlValue = toml::basic_value<toml::discard_comments, std::map, std::vector>;

/// Deepest nesting accepted in a TOML document: arrays and inline tables inside each other, or
/// the parts of one dotted key or table name.
inline constexpr std::size_t kMaxTomlDepth = 64;
/// Largest TOML document accepted (a pipeline file, a `--set` value), in bytes.
inline constexpr std::size_t kMaxTomlBytes = std::size_t{8} << 20;

/// Source name of values that came from `--set`; errors about them say so.
inline constexpr const char* kOverrideSource = "--set";

/// "parent.key", or "key" at the root.
std::string join_path(std::string_view parent, std::string_view key);

/// "an integer", "a string", ...: the TOML type of `v`, for messages.
std::string type_name(const TomlValue& v);

/// Throws a ConfigError "[error] <key_path>: <message>" with the source line of `where`
/// underlined and `comment` under it (toml11 format, which names the file and line).
[[noreturn]] void fail(const TomlValue& where, std::string_view key_path, std::string_view message,
                       std::string_view comment, std::vector<std::string> hints = {});

/// As `fail`, showing two locations (e.g. both declarations of a duplicate name).
[[noreturn]] void fail(const TomlValue& first, std::string_view first_comment,
                       const TomlValue& second, std::string_view second_comment,
                       std::string_view key_path, std::string_view message);

/// Where `v` was written, for a message: "file:line", or "--set" for an override.
std::string where(const TomlValue& v);

/// Parses a document; a syntax error becomes a ConfigError with toml11's message. A document
/// larger than kMaxTomlBytes, nested deeper than kMaxTomlDepth, or with a number beyond the
/// range of its type is refused with a ConfigError naming the file, line and key.
TomlValue parse_document(const std::string& text, const std::string& path);
/// As `parse_document`, but a syntax error returns nullopt (with toml11's message in
/// `syntax_error` when not null); the limits and ranges still throw.
std::optional<TomlValue> try_parse_document(const std::string& text, const std::string& path,
                                            std::string* syntax_error = nullptr);

/// Applies "key.path=value" overrides to `root` in order (see configs/README.md).
/// @throws ConfigError naming the override if it is malformed or its path cannot be followed.
void apply_overrides(TomlValue& root, const std::vector<std::string>& overrides);

/// A TOML basic string literal, with escapes.
std::string quote_string(std::string_view s);
/// A bare key when possible, otherwise a quoted one.
std::string format_key(std::string_view key);
/// Shortest round-trip text of `v` that TOML reads back as a float (always has '.' or 'e').
std::string format_double(double v);

}  // namespace arbo::kernel::config
