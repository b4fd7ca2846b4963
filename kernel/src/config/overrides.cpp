// SPDX-License-Identifier: MIT
/// @file
/// @brief `--set key.path=value`: edits the parsed TOML tree before validation.
#include <algorithm>
#include <cctype>
#include <optional>

#include <fmt/format.h>

#include "arbo/kernel/errors.hpp"
#include "arbo/sdk/excerpt.hpp"
#include "config/toml_util.hpp"

namespace arbo::kernel::config {

namespace {

std::string trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t");
  return std::string(s.substr(first, last - first + 1));
}

[[noreturn]] void bad_override(std::string_view text, std::string_view why) {
  throw ConfigError(fmt::format("[error] --set {}: {}", sdk::excerpt(text), why));
}

// The override as a one-line TOML document "a.b.c = value", so that the new value carries a
// source location ("--set", line 1) for later errors. Returns nullopt if `line` is not a
// document holding exactly that one dotted key (e.g. the value was `adam` or had a newline).
std::optional<TomlValue> parse_single_key(const std::string& line,
                                          const std::vector<std::string>& path) {
  // Only a syntax error lets the caller try the value as a string: a value nested too deep
  // or a number beyond its type is an error of its own, named as such.
  std::optional<TomlValue> parsed = try_parse_document(line, kOverrideSource);
  if (!parsed) return std::nullopt;
  TomlValue doc = std::move(*parsed);
  const TomlValue* node = &doc;
  for (const auto& key : path) {
    if (!node->is_table() || node->as_table().size() != 1 || node->as_table().count(key) == 0) {
      return std::nullopt;
    }
    node = &node->as_table().at(key);
  }
  return doc;
}

struct Override {
  std::string text;               // as given, for messages
  std::vector<std::string> path;  // key components
  TomlValue doc;                  // {path[0]: {path[1]: ... value}}
};

Override parse_override(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos) {
    bad_override(text, "expected key.path=value, e.g. --set study.budget=20");
  }
  const std::string key = trim(std::string_view(text).substr(0, eq));
  const std::string value = trim(std::string_view(text).substr(eq + 1));
  if (key.empty()) bad_override(text, "the key before '=' is empty; expected key.path=value");
  Override o{text, {}, {}};
  std::size_t start = 0;
  while (true) {
    const auto dot = key.find('.', start);
    o.path.push_back(trim(std::string_view(key).substr(start, dot - start)));
    if (o.path.back().empty()) {
      bad_override(text, fmt::format("key '{}' has an empty component", sdk::excerpt(key)));
    }
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  std::string dotted;
  for (const auto& p : o.path) dotted += (dotted.empty() ? "" : ".") + format_key(p);
  if (auto doc = parse_single_key(fmt::format("{} = {}", dotted, value), o.path)) {
    o.doc = std::move(*doc);
  } else if (auto str =
                 parse_single_key(fmt::format("{} = {}", dotted, quote_string(value)), o.path)) {
    o.doc = std::move(*str);
  } else {
    bad_override(text, "cannot be read as a TOML key and value");
  }
  return o;
}

std::optional<std::size_t> parse_index(const std::string& s) {
  if (s.empty() || s.size() > 9 ||
      !std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; })) {
    return std::nullopt;
  }
  return static_cast<std::size_t>(std::stoul(s));
}

void apply_override(TomlValue& root, const Override& o) {
  TomlValue* node = &root;
  const TomlValue* src = &o.doc;
  std::string walked;
  for (std::size_t i = 0; i < o.path.size(); ++i) {
    const std::string& key = o.path[i];
    const bool last = i + 1 == o.path.size();
    src = &src->as_table().at(key);
    if (node->is_table()) {
      auto& table = node->as_table();
      auto it = table.find(key);
      if (it == table.end() || last) {
        // A missing key is created with the rest of the override's tree; validation then
        // treats it like any other key (so a typo gets the usual did-you-mean error).
        table.insert_or_assign(key, *src);
        return;
      }
      node = &it->second;
    } else if (node->is_array()) {
      auto& array = node->as_array();
      const auto index = parse_index(key);
      if (!index) {
        bad_override(o.text, fmt::format("'{}' is an array; select an element by its index "
                                         "(0 is the first), e.g. {}.0",
                                         sdk::excerpt(walked), sdk::excerpt(walked)));
      }
      if (*index >= array.size()) {
        bad_override(o.text,
                     fmt::format("index {} is out of range: '{}' has {} element{}", *index,
                                 sdk::excerpt(walked), array.size(), array.size() == 1 ? "" : "s"));
      }
      if (last) {
        array[*index] = *src;
        return;
      }
      node = &array[*index];
    } else {
      bad_override(o.text, fmt::format("'{}' is {}, not a table; it has no key '{}'",
                                       sdk::excerpt(walked), type_name(*node), sdk::excerpt(key)));
    }
    walked = join_path(walked, key);
  }
}

}  // namespace

void apply_overrides(TomlValue& root, const std::vector<std::string>& overrides) {
  for (const auto& text : overrides) apply_override(root, parse_override(text));
}

}  // namespace arbo::kernel::config
