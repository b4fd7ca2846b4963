// SPDX-License-Identifier: MIT
#include "config/toml_util.hpp"

#include <cmath>
#include <sstream>

#include <fmt/format.h>

#include "arbo/kernel/errors.hpp"

namespace arbo::kernel::config {

std::string join_path(std::string_view parent, std::string_view key) {
  if (parent.empty()) return std::string(key);
  return fmt::format("{}.{}", parent, key);
}

std::string type_name(const TomlValue& v) {
  switch (v.type()) {
    case toml::value_t::boolean: return "a boolean";
    case toml::value_t::integer: return "an integer";
    case toml::value_t::floating: return "a float";
    case toml::value_t::string: return "a string";
    case toml::value_t::offset_datetime:
    case toml::value_t::local_datetime:
    case toml::value_t::local_date:
    case toml::value_t::local_time: return "a date/time";
    case toml::value_t::array: return "an array";
    case toml::value_t::table: return "a table";
    case toml::value_t::empty: return "nothing";
  }
  return "an unknown type";
}

namespace {

// A value written by --set points at the override, not at the pipeline file; say so in the
// message, because the user may not remember passing it.
std::string origin_note(const TomlValue& v) {
  return v.location().file_name() == kOverrideSource ? " (from --set)" : "";
}

}  // namespace

void fail(const TomlValue& where, std::string_view key_path, std::string_view message,
          std::string_view comment, std::vector<std::string> hints) {
  const std::string head = fmt::format("[error] {}: {}{}", key_path, message, origin_note(where));
  throw ConfigError(toml::format_error(head, where, std::string(comment), std::move(hints)));
}

void fail(const TomlValue& first, std::string_view first_comment, const TomlValue& second,
          std::string_view second_comment, std::string_view key_path, std::string_view message) {
  const std::string head = fmt::format("[error] {}: {}{}", key_path, message, origin_note(second));
  throw ConfigError(toml::format_error(head, first, std::string(first_comment), second,
                                       std::string(second_comment)));
}

TomlValue parse_document(const std::string& text, const std::string& path) {
  std::istringstream in(text);
  try {
    return toml::parse<toml::discard_comments, std::map, std::vector>(in, path);
  } catch (const toml::syntax_error& e) {
    throw ConfigError(e.what());
  }
}

std::string quote_string(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\f': out += "\\f"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          out += fmt::format("\\u{:04X}", static_cast<unsigned>(static_cast<unsigned char>(c)));
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

std::string format_key(std::string_view key) {
  const bool bare = !key.empty() && key.find_first_not_of(
                                        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                        "0123456789_-") == std::string_view::npos;
  return bare ? std::string(key) : quote_string(key);
}

std::string format_double(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  // fmt's default format is the shortest text that reads back to the same double, but it
  // drops ".0" from whole numbers, which TOML would read as an integer.
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

}  // namespace arbo::kernel::config
