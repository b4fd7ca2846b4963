// SPDX-License-Identifier: MIT
#include "config/toml_util.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "arbo/kernel/errors.hpp"
#include "arbo/sdk/excerpt.hpp"

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

// An error at a place of the text toml11 has not parsed, in toml11's layout: the file, the
// line (an excerpt) and a mark under the column.
[[noreturn]] void fail_at(const std::string& path, std::size_t line_no, std::string_view line,
                          std::size_t column, std::string_view head, std::string_view comment) {
  const std::string number = std::to_string(line_no);
  const std::string pad(number.size(), ' ');
  const std::string shown = sdk::excerpt(line, 2 * sdk::kExcerptBytes);
  const std::size_t mark = std::min(column, std::min(shown.size(), 2 * sdk::kExcerptBytes));
  throw ConfigError(fmt::format("[error] {}\n --> {}\n {} |\n {} | {}\n {} | {}^--- {}", head, path,
                                pad, number, shown, pad, std::string(mark, ' '), comment));
}

// The length of the UTF-8 sequence that starts at text[i] (a byte >= 0x80), or 0 if it is not
// one (RFC 3629: no overlong form, no surrogate, nothing above U+10FFFF). toml11 3.7 reads past
// the end of its buffer on such a byte inside a literal string (found by bench/fuzz), and TOML
// documents must be UTF-8: the scan below refuses them first. Written here because the scan
// walks the text anyway and no library at hand reports where the first bad byte is.
std::size_t utf8_sequence(const std::string& text, std::size_t i) {
  const auto byte = [&](std::size_t k) {
    return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0u;
  };
  const unsigned lead = byte(0);
  std::size_t n = 0;
  unsigned low = 0x80, high = 0xBF;  // the range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    n = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    n = 3;
    if (lead == 0xE0) low = 0xA0;   // overlong
    if (lead == 0xED) high = 0x9F;  // surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    n = 4;
    if (lead == 0xF0) low = 0x90;   // overlong
    if (lead == 0xF4) high = 0x8F;  // above U+10FFFF
  } else {
    return 0;
  }
  if (byte(1) < low || byte(1) > high) return 0;
  for (std::size_t k = 2; k < n; ++k) {
    if (byte(k) < 0x80 || byte(k) > 0xBF) return 0;
  }
  return n;
}

// toml11 parses arrays, inline tables and dotted keys recursively, so a value nested 10,000
// deep overflows the stack inside it. This linear scan of the text, which follows strings and
// comments as TOML does, refuses any nesting deeper than kMaxTomlDepth before toml11 runs.
// It returns the places where a newline may stand, for `parse_long_lines`: just after each
// comma between the values of an array (not inside an inline table, where TOML forbids
// newlines).
std::vector<std::size_t> scan_document(const std::string& text, const std::string& path) {
  enum class In { Plain, Comment, Basic, Literal, MultiBasic, MultiLiteral };
  In in = In::Plain;
  std::vector<std::size_t> blanks;
  std::size_t depth = 0;   // open '[' and '{' outside strings and comments
  std::size_t tables = 0;  // of which '{'
  std::size_t dots = 0;    // '.' since the last separator: the parts of a dotted key, minus 1
  std::size_t line_no = 1, line_start = 0;
  std::string_view key;  // the key whose value is being read (the text before its '=')
  const auto line_at = [&] {
    const auto end = text.find('\n', line_start);
    return std::string_view(text).substr(line_start,
                                         end == std::string::npos ? end : end - line_start);
  };
  const auto fail_here = [&](std::size_t i, std::string_view what, std::string_view comment) {
    // The key being read, else the line so far (a dotted key with too many parts).
    std::string_view name =
        key.empty() ? std::string_view(text).substr(line_start, i - line_start) : key;
    const auto first = name.find_first_not_of(" \t");
    name = first == std::string_view::npos
               ? std::string_view()
               : name.substr(first, name.find_last_not_of(" \t") + 1 - first);
    fail_at(
        path, line_no, line_at(), i - line_start,
        fmt::format("{}: {}", name.empty() ? std::string("this line") : sdk::excerpt(name), what),
        comment);
  };
  // The length of the run of `q` at `i`: a run of 3 to 5 closes a multi-line string (up to
  // two quotes of content may precede the closing three).
  const auto run = [&](std::size_t i, char q) {
    std::size_t n = 0;
    while (i + n < text.size() && text[i + n] == q) ++n;
    return n;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (static_cast<unsigned char>(c) >= 0x80) {
      const std::size_t n = utf8_sequence(text, i);
      if (n == 0) {
        // The line is shown up to the byte, so that the message itself is UTF-8.
        fail_at(path, line_no, line_at().substr(0, i - line_start), i - line_start,
                fmt::format("byte {:#04x} at column {} is not UTF-8, which TOML requires",
                            static_cast<unsigned char>(c), i - line_start + 1),
                "not UTF-8");
      }
      i += n - 1;  // no byte of a sequence is ASCII: nothing else to see in it
      continue;
    }
    if (c == '\n') {
      ++line_no;
      line_start = i + 1;
      dots = 0;
      if (depth == 0) key = {};
      if (in == In::Comment || in == In::Basic || in == In::Literal) in = In::Plain;
      continue;
    }
    switch (in) {
      case In::Comment: continue;
      case In::Basic:
        if (c == '\\' && i + 1 < text.size() && text[i + 1] != '\n') {
          ++i;
        } else if (c == '"') {
          in = In::Plain;
        }
        continue;
      case In::Literal:
        if (c == '\'') in = In::Plain;
        continue;
      case In::MultiBasic:
        if (c == '\\' && i + 1 < text.size() && text[i + 1] != '\n') {
          ++i;
        } else if (const std::size_t n = run(i, '"'); n >= 3) {
          i += std::min<std::size_t>(n, 5) - 1;
          in = In::Plain;
        }
        continue;
      case In::MultiLiteral:
        if (const std::size_t n = run(i, '\''); n >= 3) {
          i += std::min<std::size_t>(n, 5) - 1;
          in = In::Plain;
        }
        continue;
      case In::Plain: break;
    }
    switch (c) {
      case '#': in = In::Comment; break;
      case '"':
      case '\'': {
        const bool multi = run(i, c) >= 3;
        in = c == '"' ? (multi ? In::MultiBasic : In::Basic)
                      : (multi ? In::MultiLiteral : In::Literal);
        if (multi) i += 2;
        break;
      }
      case '.':
        if (++dots >= kMaxTomlDepth) {
          fail_here(
              i, fmt::format("a dotted key or table name with more than {} parts", kMaxTomlDepth),
              "too many parts");
        }
        break;
      case '[':
      case '{':
        dots = 0;
        if (c == '{') ++tables;
        if (++depth > kMaxTomlDepth) {
          fail_here(
              i,
              fmt::format("arrays and inline tables nested deeper than {} levels", kMaxTomlDepth),
              "too deep");
        }
        break;
      case '=':
        if (depth == 0 && key.empty())
          key = std::string_view(text).substr(line_start, i - line_start);
        dots = 0;
        break;
      case ']':
      case '}':
        if (depth > 0) --depth;
        if (c == '}' && tables > 0) --tables;
        dots = 0;
        break;
      case ',':
        dots = 0;
        if (depth > 0 && tables == 0 && i + 1 < text.size() && text[i + 1] != '\n' &&
            text[i + 1] != '\r') {
          blanks.push_back(i + 1);
        }
        break;
      default: break;
    }
  }
  return blanks;
}

// Lines longer than this are broken for toml11 (`parse_long_lines`).
constexpr std::size_t kLongLineBytes = 4096;
// Bytes of a long line between two breaks, at least.
constexpr std::size_t kLinePieceBytes = 256;

// toml11 3.7 spends time proportional to the length of a value's line on every value: it
// looks for comments around each one and formats an error message (with a copy of the line)
// for every basic string it reads. An array of 100,000 choices on one line took minutes (30,000
// took 20 s). A text with long lines is therefore parsed with a newline after some commas of
// its arrays (`blanks`, from `scan_document`), where TOML reads it the same: in place of the
// blank after the comma, or inserted where there is none. Once parsed, the text that toml11's
// values keep for their locations gets the original blank back, or a space for an inserted
// newline, so every value costs its piece of line and the line numbers of later messages are
// the file's own; a quoted line shows a space after such commas. This replaces
// `toml::parse(std::istream&)` (same steps: a final newline, the BOM) because only its
// `detail::location` gives access to that text.
std::optional<TomlValue> parse_long_lines(const std::string& text, const std::string& path,
                                          const std::vector<std::size_t>& blanks) {
  struct Break {
    std::size_t at;  // in `letters`
    char restore;    // the byte to put back once parsed
  };
  std::vector<char> letters;
  std::vector<Break> broken;
  std::size_t line_start = 0, line_end = 0, last_break = 0, copied = 0;
  for (const std::size_t at : blanks) {
    if (at >= line_end) {  // the line of `at`
      line_start = text.rfind('\n', at) == std::string::npos ? 0 : text.rfind('\n', at) + 1;
      line_end = std::min(text.find('\n', at), text.size());
      last_break = line_start;
    }
    if (line_end - line_start <= kLongLineBytes || at - last_break < kLinePieceBytes) continue;
    if (broken.empty()) letters.reserve(text.size() + text.size() / kLinePieceBytes + 2);
    letters.insert(letters.end(), text.begin() + static_cast<std::ptrdiff_t>(copied),
                   text.begin() + static_cast<std::ptrdiff_t>(at));
    copied = at;
    const bool blank = text[at] == ' ' || text[at] == '\t';
    broken.push_back({letters.size(), blank ? text[at] : ' '});
    letters.push_back('\n');
    if (blank) ++copied;
    last_break = at;
  }
  if (broken.empty()) return std::nullopt;
  letters.insert(letters.end(), text.begin() + static_cast<std::ptrdiff_t>(copied), text.end());
  if (letters.back() != '\n' && letters.back() != '\r') letters.push_back('\n');
  toml::detail::location loc(path, std::move(letters));
  if (loc.source()->size() >= 3 && std::memcmp(loc.source()->data(), "\xEF\xBB\xBF", 3) == 0) {
    loc.advance(3);
  }
  // A syntax error is reported by the caller, which parses the text as it is: its message
  // must show the file's own lines.
  try {
    auto parsed = toml::detail::parse_toml_file<TomlValue>(loc);
    if (!parsed) return std::nullopt;
    // The vector is toml11's own (created non-const), shared by every value's location.
    auto& source = const_cast<std::vector<char>&>(*loc.source());
    for (const Break& b : broken) source[b.at] = b.restore;
    return std::move(parsed.unwrap());
  } catch (const toml::exception&) {
    return std::nullopt;
  }
}

// toml11 reads numbers with an istream, which clamps one out of range to the largest value
// of the type without a word: seed = 18446744073709551616 became 9223372036854775807. A value
// at a limit is therefore read again from its literal, and refused if the literal is beyond.
bool beyond_range(const TomlValue& v) {
  const toml::source_location where = v.location();
  const std::string& line = where.line_str();
  if (where.column() == 0 || where.column() > line.size()) return false;
  std::string literal = line.substr(where.column() - 1, where.region());
  literal.erase(std::remove(literal.begin(), literal.end(), '_'), literal.end());
  if (v.is_floating()) {
    double d = 0.0;
    const auto r = std::from_chars(literal.data(), literal.data() + literal.size(), d);
    // The value is the largest double: an underflow never gives that.
    return r.ec == std::errc::result_out_of_range;
  }
  std::string_view digits = literal;
  bool negative = false;
  if (!digits.empty() && (digits.front() == '+' || digits.front() == '-')) {
    negative = digits.front() == '-';
    digits.remove_prefix(1);
  }
  int base = 10;
  if (digits.size() > 2 && digits[0] == '0' &&
      (digits[1] == 'x' || digits[1] == 'o' || digits[1] == 'b')) {
    base = digits[1] == 'x' ? 16 : digits[1] == 'o' ? 8 : 2;
    digits.remove_prefix(2);
  }
  std::string number = (negative ? "-" : "") + std::string(digits);
  std::int64_t i = 0;
  const auto r = std::from_chars(number.data(), number.data() + number.size(), i, base);
  return r.ec == std::errc::result_out_of_range;
}

void check_ranges(const TomlValue& v, const std::string& key_path) {
  if (v.is_integer()) {
    const auto i = v.as_integer();
    if ((i == std::numeric_limits<std::int64_t>::max() ||
         i == std::numeric_limits<std::int64_t>::min()) &&
        beyond_range(v)) {
      fail(v, key_path,
           fmt::format("integer out of range: TOML integers lie between {} and {}",
                       std::numeric_limits<std::int64_t>::min(),
                       std::numeric_limits<std::int64_t>::max()),
           "out of range");
    }
  } else if (v.is_floating()) {
    if (std::abs(v.as_floating()) == std::numeric_limits<double>::max() && beyond_range(v)) {
      fail(v, key_path,
           fmt::format("number out of range: a float's magnitude is at most {}",
                       std::numeric_limits<double>::max()),
           "out of range");
    }
  } else if (v.is_array()) {
    const auto& array = v.as_array();
    for (std::size_t k = 0; k < array.size(); ++k) {
      check_ranges(array[k], join_path(key_path, std::to_string(k)));
    }
  } else if (v.is_table()) {
    for (const auto& [key, value] : v.as_table()) check_ranges(value, join_path(key_path, key));
  }
}

}  // namespace

// toml11 quotes the whole source line in its messages and underlines the whole value: each
// line of a message is cut to an excerpt, so that a megabyte-long value gives a short message.
void fail(const TomlValue& where, std::string_view key_path, std::string_view message,
          std::string_view comment, std::vector<std::string> hints) {
  const std::string head =
      fmt::format("[error] {}: {}{}", sdk::excerpt(key_path), message, origin_note(where));
  throw ConfigError(
      sdk::excerpt_lines(toml::format_error(head, where, std::string(comment), std::move(hints))));
}

void fail(const TomlValue& first, std::string_view first_comment, const TomlValue& second,
          std::string_view second_comment, std::string_view key_path, std::string_view message) {
  const std::string head =
      fmt::format("[error] {}: {}{}", sdk::excerpt(key_path), message, origin_note(second));
  throw ConfigError(sdk::excerpt_lines(toml::format_error(head, first, std::string(first_comment),
                                                          second, std::string(second_comment))));
}

std::string where(const TomlValue& v) {
  const toml::source_location loc = v.location();
  if (loc.file_name() == kOverrideSource) return kOverrideSource;
  return fmt::format("{}:{}", sdk::excerpt(loc.file_name()), loc.line());
}

std::optional<TomlValue> try_parse_document(const std::string& text, const std::string& path,
                                            std::string* syntax_error) {
  if (text.size() > kMaxTomlBytes) {
    throw ConfigError(fmt::format("[error] {} is {} bytes, more than the limit of {} MiB",
                                  sdk::excerpt(path), text.size(), kMaxTomlBytes >> 20));
  }
  const std::vector<std::size_t> blanks = scan_document(text, path);
  TomlValue root;
  try {
    if (std::optional<TomlValue> fast = parse_long_lines(text, path, blanks)) {
      root = std::move(*fast);
    } else {
      std::istringstream in(text);
      root = toml::parse<toml::discard_comments, std::map, std::vector>(in, path);
    }
  } catch (const toml::syntax_error& e) {
    if (syntax_error != nullptr) *syntax_error = sdk::excerpt_lines(e.what());
    return std::nullopt;
  }
  check_ranges(root, "");
  return root;
}

TomlValue parse_document(const std::string& text, const std::string& path) {
  std::string error;
  std::optional<TomlValue> root = try_parse_document(text, path, &error);
  if (!root) throw ConfigError(error);
  return std::move(*root);
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
