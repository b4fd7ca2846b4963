// SPDX-License-Identifier: MIT
// Reading evaluation results: a command's stdout and `arbo tell --json` (one reader for both).
#include "engine/evaluation_output.hpp"

#include <cctype>
#include <cmath>

#include <fmt/format.h>

#include "arbo/sdk/excerpt.hpp"

namespace arbo::kernel {

namespace {

// Longest text of a program's own error that a failure reason keeps (as the stderr tail).
constexpr std::size_t kReasonBytes = 2000;
// Bytes of the end of an unreadable output that its failure reason quotes.
constexpr std::size_t kTailBytes = 200;

struct Parsed {
  std::optional<nlohmann::json> value;
  std::string error;
  bool over_limit = false;  // refused for its size or depth rather than its syntax
};

// Thrown from the parser's callback to stop at the first level too deep.
struct TooDeep {};

Parsed parse_limited(std::string_view text) {
  Parsed p;
  if (text.size() > kMaxJsonBytes) {
    p.over_limit = true;
    p.error =
        fmt::format("is {} bytes, more than the limit of {} MiB", text.size(), kMaxJsonBytes >> 20);
    return p;
  }
  // The callback sees each array and object start with the number of levels around it; it
  // stops the parse before the value exists, so nothing recursive ever runs on a deep one.
  const auto limit_depth = [](int depth, nlohmann::json::parse_event_t event, nlohmann::json&) {
    if ((event == nlohmann::json::parse_event_t::object_start ||
         event == nlohmann::json::parse_event_t::array_start) &&
        static_cast<std::size_t>(depth) >= kMaxJsonDepth) {
      throw TooDeep{};
    }
    return true;
  };
  try {
    p.value = nlohmann::json::parse(text.begin(), text.end(), limit_depth);
  } catch (const TooDeep&) {
    p.over_limit = true;
    p.error = fmt::format("nests arrays and objects deeper than {} levels", kMaxJsonDepth);
  } catch (const nlohmann::json::exception& e) {
    // "[json.exception.parse_error.101] parse error at ...": the bracketed id says nothing.
    std::string_view what = e.what();
    if (const auto close = what.find("] "); close != std::string_view::npos) {
      what.remove_prefix(close + 2);
    }
    p.error = fmt::format("is not valid JSON ({})", sdk::excerpt(what));
  }
  return p;
}

std::string trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

bool continues_word(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.';
}

std::optional<double> finite_number(const nlohmann::json& v) {
  if (!v.is_number()) return std::nullopt;
  const double d = v.get<double>();
  if (!std::isfinite(d)) return std::nullopt;
  return d;
}

EvaluationResult invalid(std::string reason) {
  EvaluationResult r;
  r.outcome.reason = std::move(reason);
  return r;
}

EvaluationResult interpret(const nlohmann::json& j, const std::vector<BlackBoxConstraint>& cons) {
  EvaluationResult r;
  EvalOutcome& out = r.outcome;
  out.constraints = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(cons.size()));
  if (j.is_number() || j.is_null()) {
    if (!cons.empty()) {
      out.reason =
          "output is a bare number but the study declares black-box constraints; "
          "print {\"objective\": ..., \"constraints\": {...}}";
      return r;
    }
    auto v = finite_number(j);
    if (!v) {
      out.reason = "objective is NaN or infinite";
      return r;
    }
    r.kind = ResultKind::Complete;
    out.ok = true;
    out.objective = *v;
    return r;
  }
  if (!j.is_object()) {
    out.reason = "output JSON is neither a number nor an object";
    return r;
  }
  if (auto e = j.find("error"); e != j.end()) {
    r.kind = ResultKind::Reported;
    out.reason = "command reported an error: " +
                 sdk::excerpt(e->is_string() ? e->get<std::string>() : e->dump(), kReasonBytes);
    return r;
  }
  auto o = j.find("objective");
  if (o == j.end()) {
    out.reason = "output object has no \"objective\"";
    return r;
  }
  auto v = finite_number(*o);
  if (!v) {
    out.reason = o->is_number() || o->is_null()
                     ? "objective is NaN or infinite"
                     : "objective is not a number: " + sdk::excerpt(o->dump());
    return r;
  }
  if (!cons.empty()) {
    auto c = j.find("constraints");
    if (c == j.end()) {
      out.reason =
          "output has no \"constraints\" but the study declares " + std::to_string(cons.size());
      return r;
    }
    for (std::size_t k = 0; k < cons.size(); ++k) {
      const nlohmann::json* cv = nullptr;
      if (c->is_object()) {
        auto it = c->find(cons[k].name);
        if (it == c->end()) {
          out.reason = fmt::format("constraint '{}' is missing from the output", cons[k].name);
          return r;
        }
        cv = &*it;
      } else if (c->is_array() && c->size() == cons.size()) {
        cv = &(*c)[k];
      } else {
        out.reason =
            fmt::format("\"constraints\" must be an object by name or an array of {}", cons.size());
        return r;
      }
      auto value = finite_number(*cv);
      if (!value) {
        out.reason = fmt::format("constraint '{}' is not a finite number", cons[k].name);
        return r;
      }
      out.constraints[static_cast<Eigen::Index>(k)] = *value;
    }
  }
  r.kind = ResultKind::Complete;
  out.ok = true;
  out.objective = *v;
  return r;
}

}  // namespace

std::optional<nlohmann::json> parse_bounded_json(std::string_view text, std::string& error) {
  Parsed p = parse_limited(text);
  error = std::move(p.error);
  return std::move(p.value);
}

std::string neutralize_non_finite(std::string_view s) {
  static constexpr std::string_view kTokens[] = {"-Infinity", "Infinity", "NaN"};
  std::string out;
  out.reserve(s.size());
  bool in_string = false;
  std::size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < s.size()) {
        out += s[i + 1];
        i += 2;
        continue;
      }
      in_string = c != '"';
      ++i;
      continue;
    }
    std::size_t matched = 0;
    if (i == 0 || !continues_word(s[i - 1])) {
      for (const std::string_view token : kTokens) {
        const std::size_t end = i + token.size();
        if (s.substr(i, token.size()) == token && (end == s.size() || !continues_word(s[end]))) {
          matched = token.size();
          break;
        }
      }
    }
    if (matched > 0) {
      out += "null";
      i += matched;
      continue;
    }
    in_string = c == '"';
    out += c;
    ++i;
  }
  return out;
}

EvaluationResult read_evaluation_result(std::string_view text,
                                        const std::vector<BlackBoxConstraint>& constraints,
                                        std::string_view source) {
  const std::string whole = trim(text);
  if (whole.empty()) return invalid(fmt::format("{} is empty", source));
  // Whole output first; else its last non-empty line (programs often log before the result).
  std::vector<std::string> candidates{whole};
  if (auto nl = whole.find_last_of('\n'); nl != std::string::npos) {
    candidates.push_back(trim(std::string_view(whole).substr(nl + 1)));
  }
  std::string limit_error;
  for (const auto& c : candidates) {
    Parsed p = parse_limited(c.size() > kMaxJsonBytes ? c : neutralize_non_finite(c));
    if (p.value) return interpret(*p.value, constraints);
    if (p.over_limit) limit_error = std::move(p.error);
  }
  if (!limit_error.empty()) return invalid(fmt::format("{} {}", source, limit_error));
  // The end of the output, where the result should have been, says most about what went wrong.
  std::size_t cut = whole.size() > kTailBytes ? whole.size() - kTailBytes : 0;
  while (cut > 0 && cut < whole.size() && (static_cast<unsigned char>(whole[cut]) & 0xC0) == 0x80) {
    ++cut;
  }
  return invalid(fmt::format("{} is not valid JSON: '{}{}'", source, cut > 0 ? "..." : "",
                             std::string_view(whole).substr(cut)));
}

EvalOutcome parse_command_output(const std::string& stdout_text,
                                 const std::vector<BlackBoxConstraint>& constraints) {
  return read_evaluation_result(stdout_text, constraints).outcome;
}

}  // namespace arbo::kernel
