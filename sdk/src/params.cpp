// SPDX-License-Identifier: MIT
#include "arbo/sdk/params.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "arbo/sdk/error.hpp"
#include "arbo/sdk/excerpt.hpp"

namespace arbo::sdk {

const char* to_string(ParamKind kind) noexcept {
  switch (kind) {
    case ParamKind::Bool: return "bool";
    case ParamKind::Int: return "int";
    case ParamKind::Real: return "real";
    case ParamKind::String: return "string";
    case ParamKind::Choice: return "choice";
    case ParamKind::RealList: return "real list";
  }
  return "unknown";
}

std::string to_string(const ParamValue& value) {
  struct Visitor {
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(std::int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const {
      // Keep doubles recognizable as such ("100.0", not "100"), as TOML writes them.
      std::string t = fmt::format("{}", d);
      if (t.find_first_of(".eEn") == std::string::npos) t += ".0";
      return t;
    }
    std::string operator()(const std::string& s) const { return fmt::format("\"{}\"", s); }
    std::string operator()(const std::vector<double>& v) const {
      return fmt::format("[{}]", fmt::join(v, ", "));
    }
  };
  return std::visit(Visitor{}, value);
}

namespace {

ParamSpec make_spec(std::string name, std::string description, ParamKind kind, ParamValue value,
                    double min = -std::numeric_limits<double>::infinity(),
                    double max = std::numeric_limits<double>::infinity()) {
  ParamSpec s;
  s.name = std::move(name);
  s.description = std::move(description);
  s.kind = kind;
  s.default_value = std::move(value);
  s.min = min;
  s.max = max;
  return s;
}

}  // namespace

ParamSpec ParamSpec::boolean(std::string name, std::string description, bool value) {
  return make_spec(std::move(name), std::move(description), ParamKind::Bool, value);
}
ParamSpec ParamSpec::integer(std::string name, std::string description, std::int64_t value,
                             double min, double max) {
  return make_spec(std::move(name), std::move(description), ParamKind::Int, value, min, max);
}
ParamSpec ParamSpec::real(std::string name, std::string description, double value, double min,
                          double max) {
  return make_spec(std::move(name), std::move(description), ParamKind::Real, value, min, max);
}
ParamSpec ParamSpec::string(std::string name, std::string description, std::string value) {
  return make_spec(std::move(name), std::move(description), ParamKind::String, std::move(value));
}
ParamSpec ParamSpec::choice(std::string name, std::string description, std::string value,
                            std::vector<std::string> choices) {
  ParamSpec s =
      make_spec(std::move(name), std::move(description), ParamKind::Choice, std::move(value));
  s.choices = std::move(choices);
  return s;
}
ParamSpec ParamSpec::real_list(std::string name, std::string description,
                               std::vector<double> value) {
  return make_spec(std::move(name), std::move(description), ParamKind::RealList, std::move(value));
}

ParamSpec ParamSpec::as_advanced() const {
  ParamSpec copy = *this;
  copy.advanced = true;
  return copy;
}

namespace {

std::string bound_text(double v) {
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  return fmt::format("{}", v);
}

}  // namespace

std::string ParamSpec::domain() const {
  switch (kind) {
    case ParamKind::Int:
    case ParamKind::Real:
      if (std::isinf(min) && std::isinf(max)) return to_string(kind);
      return fmt::format("{} in {}{}, {}{}", to_string(kind), std::isinf(min) ? "(" : "[",
                         bound_text(min), bound_text(max), std::isinf(max) ? ")" : "]");
    case ParamKind::Choice: return fmt::format("one of {{{}}}", fmt::join(choices, ", "));
    default: return to_string(kind);
  }
}

bool ParamSet::has(std::string_view name) const { return values_.find(name) != values_.end(); }

const ParamValue& ParamSet::get(std::string_view name) const {
  auto it = values_.find(name);
  if (it == values_.end()) {
    throw ParamError(std::string(name), fmt::format("no parameter '{}' in this set", name));
  }
  return it->second;
}

namespace {

template <class T>
const T& get_as(const ParamSet& set, std::string_view name, const char* kind) {
  const auto* v = std::get_if<T>(&set.get(name));
  if (v == nullptr) {
    throw ParamError(std::string(name), fmt::format("parameter '{}' is not a {}", name, kind));
  }
  return *v;
}

}  // namespace

bool ParamSet::get_bool(std::string_view name) const { return get_as<bool>(*this, name, "bool"); }
std::int64_t ParamSet::get_int(std::string_view name) const {
  return get_as<std::int64_t>(*this, name, "int");
}
double ParamSet::get_real(std::string_view name) const {
  const ParamValue& v = get(name);
  if (const auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
  return get_as<double>(*this, name, "real");
}
const std::string& ParamSet::get_string(std::string_view name) const {
  return get_as<std::string>(*this, name, "string");
}
const std::vector<double>& ParamSet::get_real_list(std::string_view name) const {
  return get_as<std::vector<double>>(*this, name, "real list");
}
void ParamSet::set(std::string name, ParamValue value) {
  values_.insert_or_assign(std::move(name), std::move(value));
}

namespace {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

// Validates and converts one value to the spec's kind.
ParamValue coerce(const ParamSpec& spec, const ParamValue& raw, std::string_view id) {
  const auto wrong = [&](const std::string& what) {
    return ParamError(spec.name, fmt::format("{}: parameter '{}' {}", id, spec.name, what));
  };
  const auto check_range = [&](double v) {
    if (v < spec.min || v > spec.max) {
      throw wrong(fmt::format("= {} is out of range; expected {}", bound_text(v), spec.domain()));
    }
  };
  switch (spec.kind) {
    case ParamKind::Bool:
      if (std::holds_alternative<bool>(raw)) return raw;
      throw wrong(fmt::format("expects a bool (true/false), got {}", excerpt(to_string(raw))));
    case ParamKind::Int:
      if (const auto* i = std::get_if<std::int64_t>(&raw)) {
        check_range(static_cast<double>(*i));
        return raw;
      }
      throw wrong(fmt::format("expects an integer, got {}", excerpt(to_string(raw))));
    case ParamKind::Real: {
      double v;
      if (const auto* d = std::get_if<double>(&raw)) {
        v = *d;
      } else if (const auto* i = std::get_if<std::int64_t>(&raw)) {
        v = static_cast<double>(*i);
      } else {
        throw wrong(fmt::format("expects a number, got {}", excerpt(to_string(raw))));
      }
      if (std::isnan(v)) throw wrong("is NaN");
      check_range(v);
      return v;
    }
    case ParamKind::String:
      if (std::holds_alternative<std::string>(raw)) return raw;
      throw wrong(fmt::format("expects a string, got {}", excerpt(to_string(raw))));
    case ParamKind::Choice: {
      const auto* s = std::get_if<std::string>(&raw);
      if (s == nullptr)
        throw wrong(fmt::format("expects a string, got {}", excerpt(to_string(raw))));
      if (std::find(spec.choices.begin(), spec.choices.end(), *s) == spec.choices.end()) {
        const std::string hint = nearest_name(*s, spec.choices);
        throw wrong(fmt::format("= \"{}\" is not {}{}", excerpt(*s), spec.domain(),
                                hint.empty() ? "" : fmt::format("; did you mean \"{}\"?", hint)));
      }
      return raw;
    }
    case ParamKind::RealList:
      if (std::holds_alternative<std::vector<double>>(raw)) return raw;
      if (const auto* d = std::get_if<double>(&raw)) return std::vector<double>{*d};
      if (const auto* i = std::get_if<std::int64_t>(&raw)) {
        return std::vector<double>{static_cast<double>(*i)};
      }
      throw wrong(fmt::format("expects a list of numbers, got {}", excerpt(to_string(raw))));
  }
  throw wrong("has an unknown kind");
}

}  // namespace

std::string nearest_name(std::string_view key, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_d = static_cast<std::size_t>(-1);
  const std::size_t limit = std::max<std::size_t>(2, key.size() / 3);
  for (const auto& c : candidates) {
    // The distance is at least the difference of the lengths: a name far longer or shorter
    // than the key is skipped without the O(|key| |name|) computation.
    const std::size_t gap = key.size() > c.size() ? key.size() - c.size() : c.size() - key.size();
    if (gap > limit || gap >= best_d) continue;
    const std::size_t d = edit_distance(key, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  if (best.empty() || best_d > limit) return {};
  return best;
}

ParamSet validate_params(const ParamSpecList& specs, const std::map<std::string, ParamValue>& raw,
                         std::string_view component_id) {
  std::vector<std::string> names;
  names.reserve(specs.size());
  for (const auto& s : specs) names.push_back(s.name);
  for (const auto& [key, value] : raw) {
    if (std::find(names.begin(), names.end(), key) == names.end()) {
      const std::string hint = nearest_name(key, names);
      std::string msg = fmt::format("{}: unknown parameter '{}'", component_id, excerpt(key));
      if (!hint.empty()) {
        msg += fmt::format("; did you mean '{}'?", hint);
      } else if (names.empty()) {
        msg += " (this component takes no parameters)";
      } else {
        msg += fmt::format(" (valid: {})", fmt::join(names, ", "));
      }
      throw ParamError(key, msg);
    }
  }
  ParamSet set;
  for (const auto& spec : specs) {
    auto it = raw.find(spec.name);
    set.set(spec.name,
            it == raw.end() ? spec.default_value : coerce(spec, it->second, component_id));
  }
  return set;
}

}  // namespace arbo::sdk
