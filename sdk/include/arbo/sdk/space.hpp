// SPDX-License-Identifier: MIT
/// @file
/// @brief The search space: typed parameters, conditions, and the numeric encoding plugins see.
///
/// Plugins never see user values. Every point is an `Eigen::VectorXd` with one coordinate per
/// parameter, in the *encoded* units below; `Space` converts both ways and snaps arbitrary
/// vectors onto valid points.
///
/// | type        | user value (`Value`) | encoded coordinate                      | bounds |
/// |-------------|----------------------|-----------------------------------------|-----------------|
/// | Real        | double               | the value, or ln(value) if `log_scale`  | [lo, hi] (ln) |
/// | Integer     | int64                | the value as double (ln if `log_scale`) | [lo, hi] (ln) |
/// | Categorical | string               | index of the choice, 0..k-1             | [0, k-1] | |
/// Binary      | bool                 | 0 or 1                                  | [0, 1]          |
///
/// Surrogates that need one-hot encodings (networks, GPs) build them from the index; tree
/// models split on it directly.
///
/// Conditions: a parameter with `condition` is *active* only when its parent is active and
/// takes one of the listed values (NAS-style hierarchies). Inactive coordinates hold the
/// parameter's default after `snap`, so that equal configurations have equal vectors.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <Eigen/Core>

#include "arbo/sdk/export.hpp"

namespace arbo::sdk {

/// Type of one search-space parameter.
enum class ParamType { Real, Integer, Categorical, Binary };

/// Lower-case name ("real", "integer", "categorical", "binary").
ARBO_SDK_API const char* to_string(ParamType type) noexcept;
/// Inverse of `to_string(ParamType)`; also accepts "int", "float", "bool", "cat".
ARBO_SDK_API std::optional<ParamType> param_type_from_string(std::string_view name) noexcept;

/// A user-facing value: monostate for an inactive parameter, double (Real), int64 (Integer),
/// string (Categorical), bool (Binary).
using Value = std::variant<std::monostate, double, std::int64_t, std::string, bool>;

/// Human-readable form of a value ("0.5", "3", "adam", "true", "-" for inactive).
ARBO_SDK_API std::string to_string(const Value& value);

/// Activation condition of a parameter: active iff `parent` is active and its value is one of
/// `values` (compared after conversion to the parent's type).
struct Condition {
  std::string parent;  ///< name of a Categorical, Integer or Binary parameter declared earlier
  std::vector<Value> values;  ///< values of the parent that activate the child
};

/// One parameter. Build with the static helpers; `Space` validates on construction.
struct ARBO_SDK_API Parameter {
  std::string name;
  ParamType type = ParamType::Real;
  double lower = 0.0;                  ///< Real/Integer: inclusive lower bound, user units
  double upper = 1.0;                  ///< Real/Integer: inclusive upper bound, user units
  bool log_scale = false;              ///< Real/Integer: encode as ln(value); needs lower > 0
  std::vector<std::string> choices;    ///< Categorical: the choices, in order
  Value default_value;                 ///< value used when inactive; monostate = automatic
  std::optional<Condition> condition;  ///< activation condition, none = always active

  static Parameter real(std::string name, double lower, double upper, bool log_scale = false);
  static Parameter integer(std::string name, std::int64_t lower, std::int64_t upper,
                           bool log_scale = false);
  static Parameter categorical(std::string name, std::vector<std::string> choices);
  static Parameter binary(std::string name);
};

/// An ordered list of parameters with encoding, decoding and snapping.
///
/// Thread safety: all const members may be called concurrently.
class ARBO_SDK_API Space {
 public:
  /// The empty space (dimension 0).
  Space() = default;
  /// Validates and stores the parameters.
  /// @throws InvalidArgument naming the parameter: empty or duplicate name, lower > upper,
  ///         non-finite bounds, log scale with lower <= 0, fewer than one choice, duplicate
  ///         choices, a condition on an unknown, later or Real parent, or a condition value the
  ///         parent cannot take, or a default outside the domain.
  explicit Space(std::vector<Parameter> parameters);

  /// Number of parameters, which is also the length of an encoded vector.
  std::size_t size() const noexcept { return params_.size(); }
  /// True for the space of dimension 0 (what a Problem receives in `CreateArgs`).
  bool empty() const noexcept { return params_.empty(); }
  /// Parameter `i`, in declaration order. Precondition: i < size() (not checked).
  const Parameter& operator[](std::size_t i) const { return params_[i]; }
  /// All parameters, in declaration order (the order of the encoded coordinates).
  const std::vector<Parameter>& parameters() const noexcept { return params_; }
  /// Index of the parameter called `name`, if any. O(d).
  std::optional<std::size_t> index_of(std::string_view name) const;
  /// True when any parameter carries a condition.
  bool has_conditions() const noexcept { return has_conditions_; }

  /// Encoded lower bounds (see the table above). Length `size()`.
  const Eigen::VectorXd& lower() const noexcept { return lower_; }
  /// Encoded upper bounds (see the table above). Length `size()`; upper >= lower everywhere.
  const Eigen::VectorXd& upper() const noexcept { return upper_; }
  /// True for Integer, Categorical and Binary coordinates.
  bool is_discrete(std::size_t i) const { return params_[i].type != ParamType::Real; }

  /// Encodes user values (one per parameter, in order). Inactive parameters may be monostate.
  /// Integers are accepted for Real parameters; the result is snapped.
  /// @throws InvalidArgument on a wrong count, a wrong type, an unknown choice or a value out
  ///         of bounds, naming the parameter.
  Eigen::VectorXd encode(const std::vector<Value>& values) const;
  /// Decodes a vector (snapped first, on a copy). Inactive parameters decode to monostate.
  /// @throws InvalidArgument if `x.size() != size()` or x has a NaN.
  std::vector<Value> decode(const Eigen::VectorXd& x) const;
  /// Snaps `x` in place onto the space: clamps to bounds, rounds discrete coordinates to the
  /// nearest valid value (in user units for log-scaled integers), and sets inactive parameters
  /// to their default. NaN coordinates become the default. O(d).
  /// @throws InvalidArgument if `x.size() != size()`.
  void snap(Eigen::Ref<Eigen::VectorXd> x) const;
  /// True when `x` equals its snapped form within `tol` on every coordinate (so inactive
  /// coordinates must hold their default). False for a wrong length. O(d).
  bool contains(const Eigen::VectorXd& x, double tol = 1e-9) const;
  /// True when parameter `i` is active at `x` (conditions evaluated on the snapped values).
  bool is_active(const Eigen::VectorXd& x, std::size_t i) const;
  /// Maps a point of the unit cube [0,1]^d to the space: reals linearly (in encoded units),
  /// discrete coordinates to equal-width cells so that every value has equal mass; then snaps.
  /// Used by random sampling and the initial designs.
  Eigen::VectorXd from_unit(const Eigen::VectorXd& u) const;
  /// In-place form of `from_unit` for sampling loops: writes into `out`, which is resized only
  /// when its length differs from `size()`, so a reused vector costs no allocation.
  void from_unit(const Eigen::VectorXd& u, Eigen::VectorXd& out) const;
  /// Encoded default of parameter `i` (explicit default, else: midpoint for Real, rounded
  /// midpoint for Integer, first choice, false).
  double default_encoded(std::size_t i) const { return defaults_[i]; }
  /// "name=value, name=value" of a point, for logs and error messages.
  std::string describe(const Eigen::VectorXd& x) const;

 private:
  double snap_coordinate(std::size_t i, double v) const;
  bool condition_holds(const Eigen::VectorXd& snapped, std::size_t i) const;
  double encode_value(std::size_t i, const Value& value) const;

  std::vector<Parameter> params_;
  Eigen::VectorXd lower_, upper_;
  Eigen::VectorXd defaults_;
  std::vector<int> parent_;                   // index of the condition parent, -1 if none
  std::vector<std::vector<double>> allowed_;  // encoded parent values that activate the child
  bool has_conditions_ = false;
};

}  // namespace arbo::sdk
