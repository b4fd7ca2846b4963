// SPDX-License-Identifier: MIT
/// @file
/// @brief The conformance kit: GoogleTest checks that a plugin honours the SDK's contracts.
///
/// Plugin authors test their shared object exactly as the kernel will use it, without the
/// kernel. One line covers every component of a library:
/// @code
///   #include <arbo/sdk/testing/conformance.hpp>
///
///   TEST(my_plugin, conformance) {
///     arbo::sdk::testing::expect_plugin_conforms("/path/to/libmy_plugin.so");
///   }
/// @endcode
/// and `PluginUnderTest` + `TestContext` let method-specific tests create components from the
/// loaded library (see the templates in `sdk/templates/<kind>_xyz/`).
///
/// What "conforms" means is listed at `expect_component_conforms`. The checks are the
/// contract written in the interface headers, made executable: they cannot prove a method is
/// good, only that the kernel can drive it without surprises (wrong sizes, NaN, hidden
/// nondeterminism, parameters that the documentation generator or TOML validation would
/// reject).
///
/// Failures are non-fatal GoogleTest failures (`EXPECT_*`, `ADD_FAILURE`) carrying a
/// `SCOPED_TRACE` with the component id, so one run reports every broken contract of every
/// component. An exception escaping a plugin call is caught and reported as a failure naming
/// the call; it never aborts the test binary.
///
/// Link the CMake target `arbo::sdk_testing` (it brings GoogleTest, Boost.DLL's dependencies
/// and libdl). The kit is single-threaded, like the kernel's calls into plugins.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "arbo/sdk/context.hpp"
#include "arbo/sdk/params.hpp"
#include "arbo/sdk/plugin.hpp"
#include "arbo/sdk/space.hpp"

namespace arbo::sdk::testing {

/// A `Context` for tests: deterministic randomness, logs kept in memory, never cancelled,
/// unlimited time, and no model solver.
///
/// It behaves like the kernel's context for one iteration of a study with no time budget, so a
/// component that passes with it runs unchanged under the kernel. Components that need a
/// model solver (`model_solver()` returns nullptr here) must degrade gracefully, as the SDK
/// requires when a pipeline has no solver.
///
/// Not thread-safe except `cancelled()` and `seconds_left()`, matching `Context`.
class TestContext : public Context {
 public:
  /// Seeds the random engine with `seed`. Two contexts with the same seed hand out the same
  /// random stream, which is how the kit checks that components draw all their randomness
  /// from `rng()`.
  explicit TestContext(std::uint64_t seed = 0) : rng_(seed) {}

  /// Appends "<level>: <message>" to `logs()`; nothing is printed.
  void log(LogLevel level, std::string_view message) override;
  std::mt19937_64& rng() override { return rng_; }
  bool cancelled() const override { return false; }
  double seconds_left() const override { return std::numeric_limits<double>::infinity(); }
  ModelSolver* model_solver() override { return nullptr; }

  /// Restarts the random stream, as the kernel does at the start of every iteration.
  void reseed(std::uint64_t seed) { rng_.seed(seed); }
  /// Every message logged so far, oldest first, as "<level>: <message>" with level one of
  /// trace, debug, info, warn, error.
  const std::vector<std::string>& logs() const noexcept { return logs_; }
  void clear_logs() { logs_.clear(); }

 private:
  std::mt19937_64 rng_;
  std::vector<std::string> logs_;
};

/// A plugin library loaded by full path, with its phase-1 header checked.
///
/// This is the kit's own small loader, so a third party can test a `.so` without the kernel.
/// It follows the kernel's rules: Boost.DLL `shared_library` with `rtld_now | rtld_local`
/// (every symbol resolved at load time, nothing leaked into the global namespace), the entry
/// found through the sectioned alias `arbo_plugin_entry_v1`, and `check_plugin_header()` run
/// before the component table is touched.
///
/// The library is never unloaded, not even when this object is destroyed: components created
/// from it (and their vtables, exception types and static data) may outlive the loader, and
/// unloading a library with thread-local state is unsafe (pitfalls P1, P3, P4). Loading the
/// same path twice returns the same mapping (the dynamic linker reference-counts it).
///
/// Construct on the main thread (pitfall P11).
class PluginUnderTest {
 public:
  /// Loads `so_path` and reads its header.
  /// @throws std::runtime_error naming the path when the file cannot be loaded (missing file,
  ///         unresolved symbol: the dynamic linker's message is included) or has no
  ///         `arbo_plugin_entry_v1` alias. An incompatible header does not throw: it is
  ///         reported by `header_error()`, so tests can assert on the message.
  explicit PluginUnderTest(std::string so_path);

  /// The path given to the constructor.
  const std::string& path() const noexcept { return path_; }
  /// The plugin's phase-1 header, as returned by its entry. Never null after construction.
  const arbo_plugin_header_v1& header() const noexcept { return *header_; }
  /// Empty when the header is compatible with this SDK build; otherwise the message of
  /// `check_plugin_header()` naming the mismatching field.
  const std::string& header_error() const noexcept { return header_error_; }
  bool compatible() const noexcept { return header_error_.empty(); }
  /// The phase-2 component table, copied out of the library. Empty when `!compatible()`,
  /// because reading C++ data from an incompatible build is exactly what the header check
  /// exists to prevent.
  const std::vector<ComponentInfo>& components() const noexcept { return components_; }
  /// The component of `kind` called `name` ("random", not "inner_solver/random"), or nullptr.
  const ComponentInfo* find(Kind kind, std::string_view name) const;

 private:
  std::string path_;
  const arbo_plugin_header_v1* header_ = nullptr;
  std::string header_error_;
  std::vector<ComponentInfo> components_;
};

/// "kind/name" of a component, e.g. "inner_solver/random": the id used in TOML and messages.
std::string component_id(const ComponentInfo& info);

/// The kit's default search space: every parameter type, a log scale and a condition.
///
/// | name   | type                      | domain              | encoded     |
/// |--------|---------------------------|---------------------|-------------|
/// | x_lin  | real                      | [-2, 3]             | [-2, 3]     |
/// | x_log  | real, log scale           | [0.001, 10]         | [ln .001, ln 10] |
/// | n_int  | integer                   | {0, ..., 8}         | [0, 8]      |
/// | cat    | categorical               | {a, b, c}           | {0, 1, 2}   |
/// | flag   | binary                    | {false, true}       | {0, 1}      |
/// | x_cond | real, active iff cat in {b, c} | [0, 1]         | [0, 1]      |
///
/// Coordinate 0 (`x_lin`) is always active and real, so the kit's known constraint
/// `x_lin <= 0.5` (the middle of its range) keeps half of the space feasible.
Space default_test_space();

/// `n` points drawn uniformly from `space` (each coordinate's unit interval mapped by
/// `Space::from_unit`, so snapped and inside the space), one per row, from `rng` alone.
Eigen::MatrixXd random_points(const Space& space, std::size_t n, std::mt19937_64& rng);

/// Knobs of the conformance checks. The defaults suit components that accept any space.
struct ConformanceOptions {
  /// Space handed to surrogates, acquisitions, inner solvers and constraints (problems bring
  /// their own). A component restricted to some spaces (reals only, no conditions) passes a
  /// space it supports; the known constraint of the inner-solver checks always acts on
  /// coordinate 0, which must then be a Real or Integer parameter.
  Space space = default_test_space();
  /// Parameter values per component id ("constraint/linear" -> {"coefficients": ...}), merged
  /// over the defaults before validation. Needed when a default cannot fit the test space,
  /// e.g. coefficients whose length must equal the dimension.
  std::map<std::string, std::map<std::string, ParamValue>> param_overrides;
  /// Seed of every `TestContext` and of the random points and datasets the kit draws.
  std::uint64_t seed = 20240601;
  /// Random points at which surrogates predict and acquisitions and constraints are scored.
  std::size_t num_points = 15;
  /// Rows of the random dataset surrogates are fitted on and acquisitions are bound to.
  std::size_t num_train = 20;
  /// Random points of its own space at which each problem is evaluated.
  std::size_t num_problem_points = 20;
  /// Problems only: whether a NaN objective is allowed (a problem that documents failed
  /// evaluations). Infinite values are never allowed.
  bool allow_nan_objective = false;
  /// Relative tolerance of `f(x*) = f*` at a problem's declared optimizers, relative to
  /// max(1, |f*|).
  double optimum_rel_tol = 1e-4;
  /// Largest constraint value accepted at a problem's declared optimizers.
  double optimum_feas_tol = 1e-6;
};

/// Checks one component against the SDK contracts, with non-fatal GoogleTest failures.
///
/// Every kind:
/// - `name` and `summary` are non-empty and `name` is snake_case;
/// - `params()` has non-empty, unique, snake_case names and non-empty descriptions; `min <=
///   max`; each default has the spec's type, lies in [min, max] and, for a choice, is one of the
///   choices: `validate_params` accepts every default given explicitly, and `validate_params(
///   specs, {}, id)` succeeds;
/// - the factory, given the validated defaults merged with `options.param_overrides[id]`,
///   returns an object that `dynamic_cast`s to the kind's interface (this also proves the
///   interface typeinfo is shared with libarbo_sdk.so, pitfall P5).
///
/// Surrogate: fitted on a deterministic random dataset (`num_train` rows) for the objective
/// and for a black-box constraint column; `predict` at `num_points` rows returns vectors of
/// that length with finite means and finite variances >= 0; predicting twice gives identical
/// results; a fresh instance fitted on the same data with the same seed predicts the same.
/// With `SavesState`: `save_state` is deterministic; a fresh instance that restores the state
/// saved after a fit on half the data, then fits all of it, predicts exactly what the saving
/// instance predicts after the same fit with the same random stream; a damaged state (empty,
/// garbage) makes `restore_state` throw `Error`.
///
/// Acquisition: bound to kit surrogates (mean = sum of the encoded coordinates, variance 1)
/// for the objective and one constraint, with the dataset's incumbent, and again with no
/// incumbent (no feasible point yet); `value` is finite at `num_points` points and `values(X)`
/// equals `value` row by row.
///
/// InnerSolver: the kit's known constraint is `x0 <= mid(x0)` (violation max(0, x0 - mid),
/// written also as a linear row for model-based solvers). Without an acquisition, `maximize`
/// returns `found`, a point that `space.contains()` after `snap` and that satisfies the
/// constraint. With the kit's linear acquisition (which can also formulate itself) the same
/// holds and the acquisition's value at the point is finite.
///
/// Constraint: `violation` is finite and >= 0 at `num_points` random points; `describe()` is
/// non-empty.
///
/// Problem: its space is non-empty; `constraint_names()` are non-empty and unique; at
/// `num_problem_points` random points of its space the objective is finite (or NaN if
/// allowed) and the constraint vector has one finite entry per name; evaluating the same point
/// twice gives the same values (parameters at their defaults are assumed noise-free); when
/// `info()` declares `optimum` and `optimizers`, every optimizer lies in the space, evaluates
/// to the optimum within `optimum_rel_tol` and satisfies every constraint within
/// `optimum_feas_tol`.
///
/// The library that `info` comes from must stay loaded while this runs (it does when `info`
/// comes from `PluginUnderTest`).
void expect_component_conforms(const ComponentInfo& info, const ConformanceOptions& options = {});

/// Loads `so_path` with `PluginUnderTest`, asserts that it loads and that its header is
/// compatible (fatal for this function: nothing else can be checked otherwise), checks the
/// header's strings and that component ids are unique, then runs `expect_component_conforms`
/// on every component.
void expect_plugin_conforms(const std::string& so_path, const ConformanceOptions& options = {});

}  // namespace arbo::sdk::testing
