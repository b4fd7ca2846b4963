// SPDX-License-Identifier: MIT
/// @file
/// @brief Parameter specifications of components, and the validated parameter set they receive.
///
/// A component declares its parameters once, as a `ParamSpecList` returned by its static
/// `params()` function. That list is the single source of truth: `arbo plugins --params`
/// prints it, the kernel validates TOML against it, and the component reads the validated
/// `ParamSet`. Do not document parameters anywhere else.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "arbo/sdk/export.hpp"

namespace arbo::sdk {

/// Type of a component parameter.
enum class ParamKind { Bool, Int, Real, String, Choice, RealList };
/// "bool", "int", "real", "string", "choice", "real list".
ARBO_SDK_API const char* to_string(ParamKind kind) noexcept;

/// A parameter value. Choice values are strings.
using ParamValue = std::variant<bool, std::int64_t, double, std::string, std::vector<double>>;
/// TOML-like rendering: true, 3, 0.5, "text", [1.0, 2.0].
ARBO_SDK_API std::string to_string(const ParamValue& value);

/// Declaration of one parameter.
struct ARBO_SDK_API ParamSpec {
  std::string name;         ///< key in TOML, snake_case
  std::string description;  ///< one or two sentences, with units
  ParamKind kind = ParamKind::Real;
  ParamValue default_value;
  double min = -std::numeric_limits<double>::infinity();  ///< Int/Real: inclusive minimum
  double max = std::numeric_limits<double>::infinity();   ///< Int/Real: inclusive maximum
  std::vector<std::string> choices;                       ///< Choice: allowed values
  bool advanced = false;  ///< hidden from `arbo plugins --params` unless `--all`

  static ParamSpec boolean(std::string name, std::string description, bool default_value);
  static ParamSpec integer(std::string name, std::string description, std::int64_t default_value,
                           double min = -std::numeric_limits<double>::infinity(),
                           double max = std::numeric_limits<double>::infinity());
  static ParamSpec real(std::string name, std::string description, double default_value,
                        double min = -std::numeric_limits<double>::infinity(),
                        double max = std::numeric_limits<double>::infinity());
  static ParamSpec string(std::string name, std::string description, std::string default_value);
  static ParamSpec choice(std::string name, std::string description, std::string default_value,
                          std::vector<std::string> choices);
  static ParamSpec real_list(std::string name, std::string description,
                             std::vector<double> default_value);
  /// Returns a copy marked advanced.
  ParamSpec as_advanced() const;
  /// "real in [0, inf)", "choice of {a, b}", ...: used in docs and error messages.
  std::string domain() const;
};

using ParamSpecList = std::vector<ParamSpec>;

/// Validated parameters of one component: every spec has a value of the spec's kind.
/// Cheap to copy (a small map). Getters throw `ParamError` for an unknown name or a wrong kind,
/// which is a bug in the component, not a user error.
class ARBO_SDK_API ParamSet {
 public:
  ParamSet() = default;
  bool has(std::string_view name) const;
  bool get_bool(std::string_view name) const;
  std::int64_t get_int(std::string_view name) const;
  /// Also returns Int values, converted.
  double get_real(std::string_view name) const;
  /// String and Choice values.
  const std::string& get_string(std::string_view name) const;
  const std::vector<double>& get_real_list(std::string_view name) const;
  const ParamValue& get(std::string_view name) const;
  /// Sets a value without validation (the kernel uses `validate_params`).
  void set(std::string name, ParamValue value);
  const std::map<std::string, ParamValue, std::less<>>& values() const noexcept { return values_; }

 private:
  std::map<std::string, ParamValue, std::less<>> values_;
};

/// Checks `raw` against `specs` and fills defaults. Int is accepted for Real (converted);
/// a single number for RealList. `component_id` ("inner_solver/random") prefixes messages.
/// @throws ParamError with the offending key: unknown key (with the nearest valid name),
///         wrong type, out of range, not one of the choices.
ARBO_SDK_API ParamSet validate_params(const ParamSpecList& specs,
                                      const std::map<std::string, ParamValue>& raw,
                                      std::string_view component_id);

/// The candidate closest to `key` by edit distance, if it is close enough to be a plausible
/// typo (distance <= max(2, |key| / 3)); empty otherwise. Used for "did you mean" hints.
ARBO_SDK_API std::string nearest_name(std::string_view key,
                                      const std::vector<std::string>& candidates);

}  // namespace arbo::sdk
