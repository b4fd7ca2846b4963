// SPDX-License-Identifier: MIT
/// @file
/// @brief Parameter specifications of components, and the validated parameter set they receive.
///
/// A component declares its parameters once, as a `ParamSpecList` returned by its static
/// `params()` function. That list is the single source of truth: `arbo plugins --params`
/// prints it, the kernel validates TOML against it, and the component reads the validated
/// `ParamSet`. Do not document parameters anywhere else.
///
/// Example, in a component class:
/// @code
///   static const ParamSpecList& params() {
///     static const ParamSpecList specs{
///         ParamSpec::integer("k", "Number of nearest observations averaged.", 5, 1, 1000),
///         ParamSpec::choice("metric", "Distance between points.", "euclidean",
///                           {"euclidean", "manhattan"}),
///         ParamSpec::real("jitter", "Added to variances, in target units squared.", 1e-9, 0)
///             .as_advanced()};
///     return specs;
///   }
///   explicit MyModel(const CreateArgs& args) : k_(args.params.get_int("k")) {}
/// @endcode
/// Read every parameter once, in the constructor: the `ParamSet` is only guaranteed to live
/// as long as the component, and a getter is a map lookup.
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

/// Type of a component parameter, with the TOML it accepts.
enum class ParamKind {
  Bool,     ///< true / false
  Int,      ///< an integer (int64)
  Real,     ///< a number; an integer is accepted and converted; NaN is refused
  String,   ///< any string
  Choice,   ///< a string from a fixed list
  RealList  ///< an array of numbers; a single number is accepted as a one-element list
};
/// "bool", "int", "real", "string", "choice", "real list" (static storage): the names used in
/// `arbo plugins --params` and in error messages.
ARBO_SDK_API const char* to_string(ParamKind kind) noexcept;

/// A parameter value: bool (Bool), int64 (Int), double (Real), string (String and Choice),
/// vector of doubles (RealList).
using ParamValue = std::variant<bool, std::int64_t, double, std::string, std::vector<double>>;
/// TOML-like rendering: true, 3, 0.5, "text", [1.0, 2.0]. Doubles keep a decimal point or an
/// exponent ("100.0", not "100"), so the text reads back as the same kind.
ARBO_SDK_API std::string to_string(const ParamValue& value);

/// Declaration of one parameter. Build it with the static helpers below, which fill the
/// fields consistently; `default_value` must have the alternative of `kind` and lie in the
/// domain (it is used as is, without validation, when the configuration omits the key).
struct ARBO_SDK_API ParamSpec {
  std::string name;         ///< key in TOML, snake_case
  std::string description;  ///< one or two sentences, with units
  ParamKind kind = ParamKind::Real;
  ParamValue default_value;
  double min = -std::numeric_limits<double>::infinity();  ///< Int/Real: inclusive minimum
  double max = std::numeric_limits<double>::infinity();   ///< Int/Real: inclusive maximum
  std::vector<std::string> choices;                       ///< Choice: allowed values
  bool advanced = false;  ///< hidden from `arbo plugins --params` unless `--all`

  /// Helpers, one per kind. `min`/`max` bound Int and Real values inclusively (infinite by
  /// default); `choices` lists the values a Choice accepts, in the order docs show them.
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
  /// "real in [0, inf)", "int in [1, 1000]", "one of {a, b}", or the kind's name when it is
  /// unbounded: used in docs and error messages.
  std::string domain() const;
};

/// A component's parameters, in the order `arbo plugins --params` lists them. Names are
/// must be unique within a list (the conformance kit checks it).
using ParamSpecList = std::vector<ParamSpec>;

/// Validated parameters of one component: every spec has a value of the spec's kind.
/// Cheap to copy (a small map). Getters throw `ParamError` for an unknown name or a wrong kind,
/// which is a bug in the component, not a user error. Getters are O(log p) map lookups and
/// return references into the set, valid while it lives. Const members are thread-safe.
class ARBO_SDK_API ParamSet {
 public:
  /// An empty set (a component without parameters receives one).
  ParamSet() = default;
  /// True when the set has a value called `name`.
  bool has(std::string_view name) const;
  /// Value of a Bool parameter.
  bool get_bool(std::string_view name) const;
  /// Value of an Int parameter.
  std::int64_t get_int(std::string_view name) const;
  /// Value of a Real parameter; also returns Int values, converted.
  double get_real(std::string_view name) const;
  /// String and Choice values.
  const std::string& get_string(std::string_view name) const;
  /// Value of a RealList parameter (possibly empty).
  const std::vector<double>& get_real_list(std::string_view name) const;
  /// The value whatever its kind.
  const ParamValue& get(std::string_view name) const;
  /// Sets a value without validation (the kernel uses `validate_params`; tests build sets by
  /// hand with it). Replaces an existing value.
  void set(std::string name, ParamValue value);
  /// Every value, sorted by name.
  const std::map<std::string, ParamValue, std::less<>>& values() const noexcept { return values_; }

 private:
  std::map<std::string, ParamValue, std::less<>> values_;
};

/// Checks `raw` against `specs` and fills defaults. Int is accepted for Real (converted);
/// a single number for RealList. `component_id` ("inner_solver/random") prefixes messages,
/// e.g. "surrogate/xyz: parameter 'k' = 0 is out of range; expected int in [1, 1000]".
/// Range checks apply to Int and Real, not to the elements of a RealList. O(|raw| |specs|).
/// @throws ParamError with the offending key: unknown key (with the nearest valid name),
///         wrong type, out of range, NaN for a Real, not one of the choices (with the
///         nearest choice).
ARBO_SDK_API ParamSet validate_params(const ParamSpecList& specs,
                                      const std::map<std::string, ParamValue>& raw,
                                      std::string_view component_id);

/// The candidate closest to `key` by edit distance, if it is close enough to be a plausible
/// typo (distance <= max(2, |key| / 3)); empty otherwise. Used for "did you mean" hints.
ARBO_SDK_API std::string nearest_name(std::string_view key,
                                      const std::vector<std::string>& candidates);

}  // namespace arbo::sdk
