// SPDX-License-Identifier: MIT
#include "arbo/sdk/space.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "arbo/sdk/error.hpp"

namespace arbo::sdk {

const char* to_string(ParamType type) noexcept {
  switch (type) {
    case ParamType::Real: return "real";
    case ParamType::Integer: return "integer";
    case ParamType::Categorical: return "categorical";
    case ParamType::Binary: return "binary";
  }
  return "unknown";
}

std::optional<ParamType> param_type_from_string(std::string_view n) noexcept {
  if (n == "real" || n == "float") return ParamType::Real;
  if (n == "integer" || n == "int") return ParamType::Integer;
  if (n == "categorical" || n == "cat") return ParamType::Categorical;
  if (n == "binary" || n == "bool") return ParamType::Binary;
  return std::nullopt;
}

std::string to_string(const Value& v) {
  struct Visitor {
    std::string operator()(std::monostate) const { return "-"; }
    std::string operator()(double d) const { return fmt::format("{}", d); }
    std::string operator()(std::int64_t i) const { return std::to_string(i); }
    std::string operator()(const std::string& s) const { return s; }
    std::string operator()(bool b) const { return b ? "true" : "false"; }
  };
  return std::visit(Visitor{}, v);
}

Parameter Parameter::real(std::string name, double lower, double upper, bool log_scale) {
  Parameter p;
  p.name = std::move(name);
  p.type = ParamType::Real;
  p.lower = lower;
  p.upper = upper;
  p.log_scale = log_scale;
  return p;
}

Parameter Parameter::integer(std::string name, std::int64_t lower, std::int64_t upper,
                             bool log_scale) {
  Parameter p =
      real(std::move(name), static_cast<double>(lower), static_cast<double>(upper), log_scale);
  p.type = ParamType::Integer;
  return p;
}

Parameter Parameter::categorical(std::string name, std::vector<std::string> choices) {
  Parameter p;
  p.name = std::move(name);
  p.type = ParamType::Categorical;
  p.choices = std::move(choices);
  return p;
}

Parameter Parameter::binary(std::string name) {
  Parameter p;
  p.name = std::move(name);
  p.type = ParamType::Binary;
  return p;
}

namespace {

[[noreturn]] void fail(const Parameter& p, const std::string& what) {
  throw InvalidArgument(fmt::format("parameter '{}': {}", p.name, what));
}

}  // namespace

Space::Space(std::vector<Parameter> parameters) : params_(std::move(parameters)) {
  const auto d = static_cast<Eigen::Index>(params_.size());
  lower_.resize(d);
  upper_.resize(d);
  defaults_.resize(d);
  parent_.assign(params_.size(), -1);
  allowed_.assign(params_.size(), {});
  std::set<std::string, std::less<>> names;
  for (std::size_t i = 0; i < params_.size(); ++i) {
    const Parameter& p = params_[i];
    const auto ii = static_cast<Eigen::Index>(i);
    if (p.name.empty()) throw InvalidArgument(fmt::format("parameter #{} has no name", i + 1));
    if (!names.insert(p.name).second) fail(p, "declared twice");
    switch (p.type) {
      case ParamType::Real:
      case ParamType::Integer:
        if (!std::isfinite(p.lower) || !std::isfinite(p.upper)) fail(p, "bounds must be finite");
        if (p.lower > p.upper) {
          fail(p, fmt::format("lower bound {} is above upper bound {}", p.lower, p.upper));
        }
        if (p.type == ParamType::Integer &&
            (p.lower != std::floor(p.lower) || p.upper != std::floor(p.upper))) {
          fail(p, "integer bounds must be whole numbers");
        }
        if (p.log_scale && p.lower <= 0) fail(p, "log scale needs a lower bound above 0");
        lower_[ii] = p.log_scale ? std::log(p.lower) : p.lower;
        upper_[ii] = p.log_scale ? std::log(p.upper) : p.upper;
        break;
      case ParamType::Categorical: {
        if (p.choices.empty()) fail(p, "needs at least one choice");
        std::set<std::string> seen(p.choices.begin(), p.choices.end());
        if (seen.size() != p.choices.size()) fail(p, "has duplicate choices");
        lower_[ii] = 0;
        upper_[ii] = static_cast<double>(p.choices.size() - 1);
        break;
      }
      case ParamType::Binary:
        lower_[ii] = 0;
        upper_[ii] = 1;
        break;
    }
    if (std::holds_alternative<std::monostate>(p.default_value)) {
      if (p.type == ParamType::Real) {
        defaults_[ii] = 0.5 * (lower_[ii] + upper_[ii]);
      } else if (p.type == ParamType::Integer) {
        defaults_[ii] = snap_coordinate(i, 0.5 * (lower_[ii] + upper_[ii]));
      } else {
        defaults_[ii] = 0;
      }
    } else {
      try {
        defaults_[ii] = encode_value(i, p.default_value);
      } catch (const InvalidArgument& e) {
        fail(p, std::string("default: ") + e.what());
      }
    }
    if (p.condition) {
      has_conditions_ = true;
      std::optional<std::size_t> parent;
      for (std::size_t j = 0; j < i; ++j) {
        if (params_[j].name == p.condition->parent) parent = j;
      }
      if (!parent) {
        fail(p, fmt::format("condition names '{}', which is not a parameter declared before it",
                            p.condition->parent));
      }
      if (params_[*parent].type == ParamType::Real) {
        fail(p, fmt::format("condition parent '{}' is real-valued; it must be categorical, "
                            "integer or binary",
                            p.condition->parent));
      }
      if (p.condition->values.empty()) fail(p, "condition lists no values");
      parent_[i] = static_cast<int>(*parent);
      for (const Value& v : p.condition->values) {
        try {
          allowed_[i].push_back(encode_value(*parent, v));
        } catch (const InvalidArgument& e) {
          fail(p, std::string("condition value: ") + e.what());
        }
      }
    }
  }
}

std::optional<std::size_t> Space::index_of(std::string_view name) const {
  for (std::size_t i = 0; i < params_.size(); ++i) {
    if (params_[i].name == name) return i;
  }
  return std::nullopt;
}

double Space::snap_coordinate(std::size_t i, double v) const {
  const auto ii = static_cast<Eigen::Index>(i);
  const Parameter& p = params_[i];
  v = std::clamp(v, lower_[ii], upper_[ii]);
  if (p.type == ParamType::Real) return v;
  if (p.type == ParamType::Integer && p.log_scale) {
    // Round in user units so that every integer is reachable, then map back.
    const double u = std::clamp(std::round(std::exp(v)), p.lower, p.upper);
    return std::log(u);
  }
  return std::round(v);
}

double Space::encode_value(std::size_t i, const Value& value) const {
  const Parameter& p = params_[i];
  const auto bad = [&](const std::string& what) {
    return InvalidArgument(fmt::format("parameter '{}': {}", p.name, what));
  };
  switch (p.type) {
    case ParamType::Real:
    case ParamType::Integer: {
      double v;
      if (const auto* d = std::get_if<double>(&value)) {
        v = *d;
      } else if (const auto* n = std::get_if<std::int64_t>(&value)) {
        v = static_cast<double>(*n);
      } else {
        throw bad(fmt::format("expected a number, got '{}'", to_string(value)));
      }
      if (!std::isfinite(v)) throw bad("value is not finite");
      if (p.type == ParamType::Integer && v != std::floor(v)) {
        throw bad(fmt::format("expected an integer, got {}", v));
      }
      // A relative tolerance absorbs the round trip through ln/exp and decimal printing.
      const double tol = 1e-9 * std::max(1.0, std::abs(p.upper - p.lower));
      if (v < p.lower - tol || v > p.upper + tol) {
        throw bad(fmt::format("{} is outside [{}, {}]", v, p.lower, p.upper));
      }
      v = std::clamp(v, p.lower, p.upper);
      return p.log_scale ? std::log(v) : v;
    }
    case ParamType::Categorical: {
      const auto* s = std::get_if<std::string>(&value);
      if (s == nullptr)
        throw bad(fmt::format("expected one of the choices, got '{}'", to_string(value)));
      auto it = std::find(p.choices.begin(), p.choices.end(), *s);
      if (it == p.choices.end()) throw bad(fmt::format("'{}' is not one of the choices", *s));
      return static_cast<double>(it - p.choices.begin());
    }
    case ParamType::Binary:
      if (const auto* b = std::get_if<bool>(&value)) return *b ? 1.0 : 0.0;
      if (const auto* n = std::get_if<std::int64_t>(&value); n && (*n == 0 || *n == 1)) {
        return static_cast<double>(*n);
      }
      throw bad(fmt::format("expected true or false, got '{}'", to_string(value)));
  }
  throw bad("unknown type");
}

bool Space::condition_holds(const Eigen::VectorXd& snapped, std::size_t i) const {
  const int parent = parent_[i];
  if (parent < 0) return true;
  // Parents precede children, so the parent's activity is already final in `snapped` order;
  // an inactive parent holds its default, which must not activate the child.
  if (!condition_holds(snapped, static_cast<std::size_t>(parent))) return false;
  const double v = snapped[parent];
  return std::any_of(allowed_[i].begin(), allowed_[i].end(),
                     [&](double a) { return std::abs(a - v) < 1e-9; });
}

void Space::snap(Eigen::Ref<Eigen::VectorXd> x) const {
  if (static_cast<std::size_t>(x.size()) != params_.size()) {
    throw InvalidArgument(fmt::format(
        "Space::snap(): vector has length {}, space has {} parameters", x.size(), params_.size()));
  }
  for (std::size_t i = 0; i < params_.size(); ++i) {
    const auto ii = static_cast<Eigen::Index>(i);
    x[ii] = std::isnan(x[ii]) ? defaults_[ii] : snap_coordinate(i, x[ii]);
  }
  if (!has_conditions_) return;
  for (std::size_t i = 0; i < params_.size(); ++i) {
    if (!condition_holds(x, i))
      x[static_cast<Eigen::Index>(i)] = defaults_[static_cast<Eigen::Index>(i)];
  }
}

bool Space::is_active(const Eigen::VectorXd& x, std::size_t i) const {
  if (!has_conditions_) return true;
  Eigen::VectorXd s = x;
  snap(s);
  return condition_holds(s, i);
}

bool Space::contains(const Eigen::VectorXd& x, double tol) const {
  if (static_cast<std::size_t>(x.size()) != params_.size()) return false;
  if (!x.allFinite()) return false;
  Eigen::VectorXd s = x;
  snap(s);
  return ((s - x).array().abs() <= tol).all();
}

Eigen::VectorXd Space::encode(const std::vector<Value>& values) const {
  if (values.size() != params_.size()) {
    throw InvalidArgument(fmt::format("Space::encode(): got {} values for {} parameters",
                                      values.size(), params_.size()));
  }
  Eigen::VectorXd x(static_cast<Eigen::Index>(params_.size()));
  for (std::size_t i = 0; i < params_.size(); ++i) {
    x[static_cast<Eigen::Index>(i)] = std::holds_alternative<std::monostate>(values[i])
                                          ? defaults_[static_cast<Eigen::Index>(i)]
                                          : encode_value(i, values[i]);
  }
  snap(x);
  return x;
}

std::vector<Value> Space::decode(const Eigen::VectorXd& x) const {
  if (static_cast<std::size_t>(x.size()) != params_.size()) {
    throw InvalidArgument(
        fmt::format("Space::decode(): vector has length {}, space has {} parameters", x.size(),
                    params_.size()));
  }
  if (x.hasNaN()) throw InvalidArgument("Space::decode(): vector has a NaN coordinate");
  Eigen::VectorXd s = x;
  snap(s);
  std::vector<Value> out(params_.size());
  for (std::size_t i = 0; i < params_.size(); ++i) {
    if (has_conditions_ && !condition_holds(s, i)) continue;
    const double v = s[static_cast<Eigen::Index>(i)];
    const Parameter& p = params_[i];
    switch (p.type) {
      case ParamType::Real: out[i] = p.log_scale ? std::exp(v) : v; break;
      case ParamType::Integer:
        out[i] = static_cast<std::int64_t>(std::llround(p.log_scale ? std::exp(v) : v));
        break;
      case ParamType::Categorical: out[i] = p.choices[static_cast<std::size_t>(v)]; break;
      case ParamType::Binary: out[i] = v > 0.5; break;
    }
  }
  return out;
}

Eigen::VectorXd Space::from_unit(const Eigen::VectorXd& u) const {
  Eigen::VectorXd x;
  from_unit(u, x);
  return x;
}

void Space::from_unit(const Eigen::VectorXd& u, Eigen::VectorXd& x) const {
  if (static_cast<std::size_t>(u.size()) != params_.size()) {
    throw InvalidArgument("Space::from_unit(): vector has the wrong length");
  }
  x.resize(u.size());
  for (std::size_t i = 0; i < params_.size(); ++i) {
    const auto ii = static_cast<Eigen::Index>(i);
    const double t = std::clamp(u[ii], 0.0, 1.0);
    const Parameter& p = params_[i];
    if (p.type == ParamType::Real || (p.type == ParamType::Integer && p.log_scale)) {
      x[ii] = lower_[ii] + t * (upper_[ii] - lower_[ii]);
    } else {
      // k equal cells for k values; t == 1 belongs to the last cell.
      const double k = upper_[ii] - lower_[ii] + 1.0;
      x[ii] = lower_[ii] + std::min(std::floor(t * k), k - 1.0);
    }
  }
  snap(x);
}

std::string Space::describe(const Eigen::VectorXd& x) const {
  const auto values = decode(x);
  std::string out;
  for (std::size_t i = 0; i < params_.size(); ++i) {
    if (std::holds_alternative<std::monostate>(values[i])) continue;
    if (!out.empty()) out += ", ";
    out += params_[i].name + "=" + to_string(values[i]);
  }
  return out;
}

}  // namespace arbo::sdk
