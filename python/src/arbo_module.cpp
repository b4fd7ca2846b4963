// SPDX-License-Identifier: MIT
// The `arbo._arbo` extension module: a thin pybind11 binding of the kernel's C++ API (Study,
// the pipeline loader, the plugin registry, the observation export). Everything a study does
// is the kernel's; this file converts values between Python and the kernel, releases the GIL
// while the kernel works, and maps kernel errors onto Python exception classes.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "arbo/kernel/errors.hpp"
#include "arbo/kernel/guarded_call.hpp"
#include "arbo/kernel/pipeline.hpp"
#include "arbo/kernel/plugin_registry.hpp"
#include "arbo/kernel/study.hpp"
#include "arbo/kernel/study_store.hpp"
#include "arbo/sdk/component.hpp"
#include "arbo/sdk/params.hpp"
#include "arbo/sdk/space.hpp"

namespace py = pybind11;
namespace fs = std::filesystem;

namespace arbo::python {

namespace {

// The Python exception classes, one per kernel exit-code kind, created at import. Module
// lifetime: a leaked reference each, as extension modules are never unloaded.
struct ErrorClasses {
  PyObject* base = nullptr;
  PyObject* config = nullptr;
  PyObject* plugin = nullptr;
  PyObject* study = nullptr;
  PyObject* infeasible = nullptr;
  PyObject* output = nullptr;
  PyObject* interrupted = nullptr;
};
ErrorClasses g_errors;

PyObject* error_class_for(int exit_code) {
  switch (exit_code) {
    case kernel::kExitConfig: return g_errors.config;
    case kernel::kExitPlugin: return g_errors.plugin;
    case kernel::kExitStudy: return g_errors.study;
    case kernel::kExitInfeasible: return g_errors.infeasible;
    case kernel::kExitOutput: return g_errors.output;
    case kernel::kExitInterrupted: return g_errors.interrupted;
    default: return g_errors.base;
  }
}

// A new exception class `arbo.<name>` deriving from `bases` (a class or a tuple), with the
// exit code of `arbo` the CLI returns for it as the class attribute `exit_code`.
PyObject* new_error_class(py::module_& m, const char* name, const char* doc, PyObject* bases,
                          int exit_code) {
  const std::string qualified = std::string("arbo.") + name;
  py::dict attrs;
  attrs["exit_code"] = exit_code;
  PyObject* cls = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases, attrs.ptr());
  if (cls == nullptr) throw py::error_already_set();
  m.add_object(name, py::handle(cls));
  return cls;
}

// The process's plugins, loaded on first use from the kernel's search path (ARBO_PLUGIN_PATH,
// then the directory beside libarbo_kernel.so: docs/decisions.md). Libraries are never
// unloaded, and studies keep pointers into the registry: it lives as long as the process.
const kernel::PluginRegistry& registry() {
  static kernel::PluginRegistry* reg = [] {
    auto* r = new kernel::PluginRegistry();
    std::vector<std::string> ignored;
    r->load_search_path(kernel::plugin_search_path({}, &ignored));
    py::module_ warnings = py::module_::import("warnings");
    for (const auto& w : ignored) warnings.attr("warn")(fmt::format("arbo: {}", w));
    for (const auto& f : r->failures()) warnings.attr("warn")(fmt::format("arbo: {}", f.message));
    return r;
  }();
  return *reg;
}

py::object json_loads(const std::string& text) {
  return py::module_::import("json").attr("loads")(text);
}

std::string json_dumps(const py::handle& value) {
  return py::module_::import("json").attr("dumps")(value).cast<std::string>();
}

// The last line of the traceback Python would print for the exception being handled:
// "ValueError: x is too large".
std::string exception_line(const py::error_already_set& e) {
  py::list lines =
      py::module_::import("traceback").attr("format_exception_only")(e.type(), e.value());
  std::string last = lines.empty() ? std::string() : lines[lines.size() - 1].cast<std::string>();
  while (!last.empty() && (last.back() == '\n' || last.back() == ' ')) last.pop_back();
  return last.empty() ? std::string("the function raised an exception") : last;
}

// One study, driven from Python. Its methods may be called from several Python threads: the
// kernel's Study is not thread-safe, so each call holds `mutex_`, taken after the GIL is
// released (never the other way round, which could deadlock with a thread waiting for the
// GIL while holding the mutex).
class PyStudy {
 public:
  explicit PyStudy(std::unique_ptr<kernel::Study> study) : study_(std::move(study)) {}

  static std::unique_ptr<PyStudy> create(const std::string& directory,
                                         const std::optional<std::string>& file,
                                         const std::optional<std::string>& toml,
                                         const std::vector<std::string>& overrides) {
    if (file.has_value() == toml.has_value()) {
      throw kernel::ConfigError("create_study: give exactly one of a pipeline file or toml=TEXT");
    }
    const kernel::PluginRegistry& reg = registry();
    std::unique_ptr<kernel::Study> study;
    {
      py::gil_scoped_release release;
      // As `arbo run FILE`: the text as written is stored with the study.
      const std::string text = file ? kernel::read_pipeline_file(*file) : *toml;
      kernel::Pipeline p = kernel::parse_pipeline(text, file ? *file : "<toml>", overrides,
                                                  kernel::lookup_from(reg));
      study = kernel::Study::create(directory, std::move(p), text, reg);
    }
    return std::make_unique<PyStudy>(std::move(study));
  }

  static std::unique_ptr<PyStudy> open(const std::string& directory, bool read_only) {
    const kernel::PluginRegistry& reg = registry();
    std::unique_ptr<kernel::Study> study;
    {
      py::gil_scoped_release release;
      if (!kernel::StudyStore::exists(directory)) {
        throw kernel::StudyError(fmt::format("{} holds no study", directory));
      }
      study = read_only ? kernel::Study::open_read_only(directory, reg)
                        : kernel::Study::open(directory, reg);
    }
    return std::make_unique<PyStudy>(std::move(study));
  }

  std::pair<std::int64_t, py::dict> ask() {
    kernel::Observation o;
    {
      py::gil_scoped_release release;
      std::lock_guard lock(mutex_);
      o = live().ask();
    }
    return {o.id, json_loads(o.params_json).cast<py::dict>()};
  }

  void tell(std::int64_t id, double objective, const std::optional<py::dict>& constraints) {
    const kernel::EvalOutcome out =
        outcome_of(objective, constraints, fmt::format("observation {}", id));
    py::gil_scoped_release release;
    std::lock_guard lock(mutex_);
    live().tell(id, out);
  }

  // A result as the kernel's result reader takes it. A typo must not consume an evaluation:
  // unknown constraint names are refused before anything is recorded, as `arbo tell
  // --constraint` does; missing or non-finite values are refused by the reader. `what` names
  // what would have been recorded.
  kernel::EvalOutcome outcome_of(double objective, const std::optional<py::dict>& constraints,
                                 const std::string& what) {
    py::dict result;
    result["objective"] = objective;
    py::dict given = constraints.value_or(py::dict());
    for (const auto& item : given) {
      const std::string name = py::str(item.first);
      bool known = false;
      for (const auto& c : live().constraints()) known = known || c.name == name;
      if (!known) {
        throw kernel::ConfigError(fmt::format(
            "constraint '{}': the study has no such constraint; nothing was recorded for {}", name,
            what));
      }
    }
    result["constraints"] = given;
    const std::string text = json_dumps(result);
    py::gil_scoped_release release;
    std::lock_guard lock(mutex_);
    kernel::EvalOutcome out = live().outcome_from_json(text);
    if (!out.ok) {
      throw kernel::ConfigError(fmt::format("{}; nothing was recorded for {}", out.reason, what));
    }
    return out;
  }

  void tell_failed(std::int64_t id, const std::string& reason) {
    kernel::EvalOutcome out;
    out.reason = reason.empty() ? "reported failed by the user" : reason;
    py::gil_scoped_release release;
    std::lock_guard lock(mutex_);
    live().tell(id, out);
  }

  std::optional<py::dict> best() {
    std::optional<kernel::Observation> b;
    {
      py::gil_scoped_release release;
      std::lock_guard lock(mutex_);
      b = live().best();
    }
    if (!b) return std::nullopt;
    return observation_dict(*b);
  }

  // The observations as `arbo export --format json` writes them, parsed.
  std::vector<py::dict> observations() {
    std::string text;
    {
      py::gil_scoped_release release;
      std::lock_guard lock(mutex_);
      text = kernel::observations_json(live().store());
    }
    return json_loads(text).cast<std::vector<py::dict>>();
  }

  // Columns of the observations as NumPy arrays (see the stub for the layout).
  py::dict arrays() {
    std::vector<kernel::Observation> obs;
    std::vector<std::string> pnames, cnames;
    {
      py::gil_scoped_release release;
      std::lock_guard lock(mutex_);
      obs = live().store().observations();
      pnames = live().store().names("parameter_names");
      cnames = live().store().names("constraint_names");
    }
    const auto n = static_cast<py::ssize_t>(obs.size());
    const auto m = static_cast<py::ssize_t>(cnames.size());
    const double nan = std::numeric_limits<double>::quiet_NaN();
    py::array_t<std::int64_t> id(n);
    py::array_t<double> objective(n);
    py::array_t<bool> feasible(n);
    py::array_t<double> cons({n, m});
    py::list status;
    auto idv = id.mutable_unchecked<1>();
    auto ov = objective.mutable_unchecked<1>();
    auto fv = feasible.mutable_unchecked<1>();
    auto cv = cons.mutable_unchecked<2>();
    std::vector<py::object> params;
    params.reserve(obs.size());
    for (py::ssize_t i = 0; i < n; ++i) {
      const kernel::Observation& o = obs[static_cast<std::size_t>(i)];
      const bool done = o.status == kernel::ObsStatus::Complete;
      idv(i) = o.id;
      ov(i) = done ? o.objective : nan;
      fv(i) = done && o.feasible;
      for (py::ssize_t k = 0; k < m; ++k) cv(i, k) = done ? o.constraints[k] : nan;
      status.append(kernel::to_string(o.status));
      params.push_back(json_loads(o.params_json));
    }
    // One column per parameter: float64 (NaN where inactive) when every value is a number or a
    // bool, else an object array of the values (None where inactive).
    py::dict columns;
    py::module_ np = py::module_::import("numpy");
    for (const auto& name : pnames) {
      py::list values;
      bool numeric = true;
      for (const auto& p : params) {
        py::dict d = p.cast<py::dict>();
        if (d.contains(name.c_str())) {
          py::object v = d[name.c_str()];
          numeric = numeric && (py::isinstance<py::int_>(v) || py::isinstance<py::float_>(v) ||
                                py::isinstance<py::bool_>(v));
          values.append(v);
        } else {
          values.append(py::none());
        }
      }
      if (numeric) {
        py::array_t<double> col(n);
        auto c = col.mutable_unchecked<1>();
        for (py::ssize_t i = 0; i < n; ++i) {
          py::handle v = values[static_cast<std::size_t>(i)];
          c(i) = v.is_none() ? nan : v.cast<double>();
        }
        columns[name.c_str()] = col;
      } else {
        columns[name.c_str()] = np.attr("array")(values, py::arg("dtype") = "object");
      }
    }
    py::dict out;
    out["id"] = id;
    out["status"] = np.attr("array")(status, py::arg("dtype") = "str");
    out["objective"] = objective;
    out["feasible"] = feasible;
    out["constraints"] = cons;
    out["constraint_names"] = cnames;
    out["params"] = columns;
    return out;
  }

  // Evaluates `func` on up to `n` points: the pending observations first (left by an
  // interrupted run), then new ones from `ask`, stopping early at the study's budget.
  std::int64_t optimize(const py::function& func, std::int64_t n) {
    std::vector<kernel::Observation> pending;
    {
      py::gil_scoped_release release;
      std::lock_guard lock(mutex_);
      pending = live().store().observations(kernel::ObsStatus::Pending);
    }
    std::size_t next_pending = 0;
    std::int64_t done = 0;
    while (done < n) {
      kernel::Observation o;
      if (next_pending < pending.size()) {
        o = pending[next_pending++];
      } else {
        py::gil_scoped_release release;
        std::lock_guard lock(mutex_);
        if (live().observation_count() >= live().pipeline().budget) break;
        o = live().ask();
      }
      // Ctrl-C while the kernel proposed (Python's handler only runs now): the point stays
      // pending, and is evaluated first when the study is continued.
      check_signals(o.id);
      std::string result;
      std::string failure;
      try {
        py::object value = func(json_loads(o.params_json));
        result =
            py::isinstance<py::dict>(value) ? json_dumps(value) : json_dumps(py::float_(value));
      } catch (py::error_already_set& e) {
        // KeyboardInterrupt, SystemExit and the like stop the loop; the observation stays
        // pending. Any Exception is the evaluation's failure, as a crashed command's is.
        if (!e.matches(PyExc_Exception)) {
          if (e.matches(PyExc_KeyboardInterrupt)) interrupted(o.id);
          throw;
        }
        failure = exception_line(e);
      }
      {
        py::gil_scoped_release release;
        std::lock_guard lock(mutex_);
        kernel::EvalOutcome out;
        if (failure.empty()) {
          // The kernel's reader of a command's result: a number, {"objective": ...,
          // "constraints": {...}} or {"error": ...}; anything else is a failure with its reason.
          out = live().outcome_from_json(result);
        } else {
          out.reason = failure;
        }
        live().tell(o.id, out);
      }
      ++done;
      check_signals(o.id + 1);
    }
    return done;
  }

  // The objective surrogate's mean and standard deviation at `points` (mappings of parameter
  // names to user values), in the objective's user units and direction.
  std::pair<py::array_t<double>, py::array_t<double>> predict(const py::iterable& points) {
    std::vector<std::vector<sdk::Value>> values;
    for (const py::handle& point : points) {
      values.push_back(point_values(point, fmt::format("predict: point {}", values.size() + 1)));
    }
    kernel::Prediction p;
    {
      py::gil_scoped_release release;
      std::lock_guard lock(mutex_);
      p = live().predict(values);
    }
    const auto n = static_cast<py::ssize_t>(p.mean.size());
    py::array_t<double> mean(n), stddev(n);
    std::copy(p.mean.begin(), p.mean.end(), mean.mutable_data());
    std::copy(p.stddev.begin(), p.stddev.end(), stddev.mutable_data());
    return {mean, stddev};
  }

  // A mapping of parameter names to user values as one value per parameter of the space, in
  // order (monostate for a parameter it leaves out). `where` starts the error messages.
  std::vector<sdk::Value> point_values(const py::handle& point, const std::string& where) {
    const sdk::Space& space = live().space();
    const py::object mapping = py::module_::import("collections.abc").attr("Mapping");
    if (!py::isinstance<py::dict>(point) && !py::isinstance(point, mapping)) {
      throw kernel::ConfigError(
          fmt::format("{} is a {}, not a mapping of parameter names to values", where,
                      py::str(py::type::of(point).attr("__name__")).cast<std::string>()));
    }
    std::vector<sdk::Value> row(space.size());
    for (const auto& item : py::reinterpret_borrow<py::object>(point).attr("items")()) {
      const auto pair = item.cast<py::tuple>();
      const std::string name = py::str(pair[0]);
      const auto i = space.index_of(name);
      if (!i) {
        throw kernel::ConfigError(fmt::format("{}: the study has no parameter '{}'", where, name));
      }
      row[*i] = to_value(pair[1], name, where);
    }
    return row;
  }

  // A point the study did not propose, with its result (Study::tell_point).
  py::dict tell_point(const py::object& params, double objective,
                      const std::optional<py::dict>& constraints) {
    const std::vector<sdk::Value> values = point_values(params, "tell_point: params");
    const kernel::EvalOutcome out = outcome_of(objective, constraints, "the point");
    kernel::Observation o;
    {
      py::gil_scoped_release release;
      std::lock_guard lock(mutex_);
      o = live().tell_point(values, out);
    }
    return observation_dict(o);
  }

  py::dict tell_point_failed(const py::object& params, const std::string& reason) {
    const std::vector<sdk::Value> values = point_values(params, "tell_point_failed: params");
    kernel::EvalOutcome out;
    out.reason = reason.empty() ? "reported failed by the user" : reason;
    kernel::Observation o;
    {
      py::gil_scoped_release release;
      std::lock_guard lock(mutex_);
      o = live().tell_point(values, out);
    }
    return observation_dict(o);
  }

  // The search space, one dict per parameter in order (see the binding's docstring).
  std::vector<py::dict> parameters() {
    std::vector<py::dict> out;
    for (const sdk::Parameter& p : live().space().parameters()) {
      py::dict d;
      d["name"] = p.name;
      d["type"] = sdk::to_string(p.type);
      const bool numeric = p.type == sdk::ParamType::Real || p.type == sdk::ParamType::Integer;
      if (p.type == sdk::ParamType::Integer) {
        d["low"] = static_cast<std::int64_t>(p.lower);
        d["high"] = static_cast<std::int64_t>(p.upper);
      } else if (numeric) {
        d["low"] = p.lower;
        d["high"] = p.upper;
      }
      if (numeric) d["log"] = p.log_scale;
      if (p.type == sdk::ParamType::Categorical) d["choices"] = p.choices;
      if (p.condition) {
        py::dict c;
        c["parent"] = p.condition->parent;
        py::list v;
        for (const auto& value : p.condition->values) v.append(from_value(value));
        c["values"] = v;
        d["condition"] = c;
      }
      out.push_back(d);
    }
    return out;
  }

  void close() {
    py::gil_scoped_release release;
    std::lock_guard lock(mutex_);
    study_.reset();
  }

  std::string directory() { return live().store().directory().string(); }
  std::string name() { return live().pipeline().name; }
  std::int64_t budget() { return live().pipeline().budget; }
  bool maximize() { return live().pipeline().maximize; }
  std::int64_t size() { return live().observation_count(); }
  std::vector<std::string> parameter_names() { return live().store().names("parameter_names"); }
  std::vector<std::string> constraint_names() {
    std::vector<std::string> names;
    for (const auto& c : live().constraints()) names.push_back(c.name);
    return names;
  }
  std::string pipeline_toml() { return kernel::to_toml(live().pipeline()); }
  void set_budget(std::int64_t budget) {
    py::gil_scoped_release release;
    std::lock_guard lock(mutex_);
    live().set_limits(budget, live().pipeline().time_limit_seconds);
  }

 private:
  kernel::Study& live() {
    if (!study_) throw kernel::StudyError("the study is closed");
    return *study_;
  }

  py::dict observation_dict(const kernel::Observation& o) {
    py::dict d;
    d["id"] = o.id;
    d["status"] = kernel::to_string(o.status);
    d["origin"] = o.origin;
    d["params"] = json_loads(o.params_json);
    if (o.status == kernel::ObsStatus::Complete) {
      d["objective"] = o.objective;
      d["feasible"] = o.feasible;
      py::dict c;
      const auto names = constraint_names();
      for (std::size_t k = 0; k < names.size(); ++k) {
        c[names[k].c_str()] = o.constraints[static_cast<Eigen::Index>(k)];
      }
      d["constraints"] = c;
    }
    if (o.status == kernel::ObsStatus::Failed) d["reason"] = o.reason;
    return d;
  }

  // A Python value as the kernel's user value of parameter `name` of point `k` (None: inactive).
  // Its type is checked against the parameter's by the kernel (Space::encode).
  static sdk::Value to_value(const py::handle& v, const std::string& name,
                             const std::string& where) {
    if (v.is_none()) return std::monostate{};
    if (py::isinstance<py::str>(v)) return v.cast<std::string>();
    if (py::isinstance<py::bool_>(v)) return v.cast<bool>();
    if (py::isinstance<py::int_>(v)) return v.cast<std::int64_t>();
    if (py::isinstance<py::float_>(v)) return v.cast<double>();
    // NumPy's scalars and other numbers.
    const auto o = py::reinterpret_borrow<py::object>(v);
    if (py::isinstance(o, py::module_::import("numpy").attr("bool_"))) {
      return py::bool_(o).cast<bool>();
    }
    py::module_ numbers = py::module_::import("numbers");
    if (py::isinstance(o, numbers.attr("Integral"))) return py::int_(o).cast<std::int64_t>();
    if (py::isinstance(o, numbers.attr("Real"))) return py::float_(o).cast<double>();
    throw kernel::ConfigError(
        fmt::format("{}: parameter '{}': a {} is not a parameter value (a number, bool or str)",
                    where, name, py::str(py::type::of(v).attr("__name__")).cast<std::string>()));
  }

  static py::object from_value(const sdk::Value& v) {
    return std::visit(
        [](const auto& x) -> py::object {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, std::monostate>) {
            return py::none();
          } else {
            return py::cast(x);
          }
        },
        v);
  }

  // Raises arbo.InterruptedError if a signal handler raised KeyboardInterrupt.
  void check_signals(std::int64_t next_id) {
    if (PyErr_CheckSignals() == 0) return;
    py::error_already_set e;
    if (e.matches(PyExc_KeyboardInterrupt)) interrupted(next_id);
    throw e;
  }

  [[noreturn]] void interrupted(std::int64_t id) {
    PyErr_Clear();
    throw kernel::InterruptedError(fmt::format(
        "interrupted at observation {}; the study is intact, and optimize() evaluates a pending "
        "observation first when called again",
        id));
  }

  std::unique_ptr<kernel::Study> study_;
  std::mutex mutex_;
};

std::vector<py::dict> plugins() {
  std::vector<py::dict> out;
  for (const kernel::ComponentEntry* e : registry().components()) {
    py::dict c;
    c["id"] = e->id;
    c["kind"] = sdk::to_string(e->info.kind);
    c["name"] = e->info.name;
    c["summary"] = e->info.summary;
    c["plugin"] = e->plugin_name;
    c["version"] = e->plugin_version;
    c["library"] = e->library_path;
    const sdk::ParamSpecList& specs = kernel::guarded_call(
        e->id, "params", [&]() -> const sdk::ParamSpecList& { return e->info.params(); });
    py::list params;
    for (const auto& s : specs) {
      py::dict p;
      p["name"] = s.name;
      p["kind"] = sdk::to_string(s.kind);
      p["default"] = sdk::to_string(s.default_value);
      p["domain"] = s.domain();
      p["description"] = s.description;
      p["advanced"] = s.advanced;
      params.append(p);
    }
    c["params"] = params;
    // The text `arbo plugins --all` prints for the component.
    c["doc"] = std::string(e->info.summary) + "\n" + kernel::format_parameters(*e, true);
    out.push_back(c);
  }
  return out;
}

}  // namespace

}  // namespace arbo::python

PYBIND11_MODULE(_arbo, m) {
  using namespace arbo;
  using namespace arbo::python;
  m.doc() = "arbo's kernel: studies, the plugin registry and the observation export.";

  g_errors.base = new_error_class(
      m, "Error", "Base of arbo's errors; `exit_code` is what the arbo CLI returns for it.",
      PyExc_Exception, kernel::kExitInternal);
  g_errors.config =
      new_error_class(m, "ConfigError",
                      "Invalid pipeline, unknown plugin or parameter, or invalid result (exit 3).",
                      g_errors.base, kernel::kExitConfig);
  g_errors.plugin = new_error_class(m, "PluginError",
                                    "A plugin failed to load or threw during the study (exit 4).",
                                    g_errors.base, kernel::kExitPlugin);
  g_errors.study = new_error_class(
      m, "StudyError", "Study missing, existing, locked, damaged, or an invalid id (exit 5).",
      g_errors.base, kernel::kExitStudy);
  g_errors.infeasible = new_error_class(
      m, "InfeasibleError", "The known constraints admit no point that could be found (exit 6).",
      g_errors.base, kernel::kExitInfeasible);
  g_errors.output = new_error_class(m, "OutputError", "An output could not be written (exit 7).",
                                    g_errors.base, kernel::kExitOutput);
  // Also a KeyboardInterrupt, so that code stopping on Ctrl-C sees it as one.
  py::tuple interrupted_bases =
      py::make_tuple(py::handle(g_errors.base), py::handle(PyExc_KeyboardInterrupt));
  g_errors.interrupted =
      new_error_class(m, "InterruptedError",
                      "Ctrl-C stopped the work; the study is intact and resumable (exit 130).",
                      interrupted_bases.ptr(), kernel::kExitInterrupted);

  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const kernel::KernelError& e) {
      PyErr_SetString(error_class_for(e.exit_code()), e.what());
    }
  });

  py::class_<PyStudy>(m, "Study", "A study: the BO loop over a pipeline, in a study directory.")
      .def("ask", &PyStudy::ask,
           "Proposes one point, records it as pending and returns (id, params): the parameter "
           "values in user units by name (inactive parameters absent). The GIL is released "
           "while arbo proposes. Raises StudyError once the budget is spent.")
      .def("tell", &PyStudy::tell, py::arg("id"), py::arg("objective"),
           py::arg("constraints") = py::none(),
           "Records the result of pending observation `id`: the objective (user units and "
           "direction) and one value per black-box constraint by name. Raises ConfigError "
           "(nothing recorded) for a non-finite value or a missing or unknown constraint, "
           "StudyError if `id` is not pending.")
      .def("tell_failed", &PyStudy::tell_failed, py::arg("id"), py::arg("reason"),
           "Records pending observation `id` as failed, with `reason`.")
      .def("tell_point", &PyStudy::tell_point, py::arg("params"), py::arg("objective"),
           py::arg("constraints") = py::none(),
           "Records a point the study did not propose (an earlier experiment, a warm start) with "
           "its result, as a finished observation with origin 'tell', and returns it as a dict. "
           "`params` maps parameter names to user values (inactive ones may be left out); the "
           "point is snapped to the space. It counts toward the budget. Raises ConfigError "
           "(nothing recorded) for an invalid value, a missing active parameter or a bad "
           "result, StudyError once the budget is spent.")
      .def("tell_point_failed", &PyStudy::tell_point_failed, py::arg("params"), py::arg("reason"),
           "Records a point the study did not propose as a failed observation, with `reason`; "
           "returns it as a dict.")
      .def_property_readonly("best", &PyStudy::best,
                             "The best feasible observation as a dict (id, status, params, "
                             "objective, feasible, constraints), or None.")
      .def("observations", &PyStudy::observations,
           "Every observation as a dict, in id order: what `arbo export --format json` writes.")
      .def("arrays", &PyStudy::arrays,
           "The observations as NumPy arrays: id (int64, n), status (str, n), objective "
           "(float64, n; NaN unless complete), feasible (bool, n), constraints (float64, n x m; "
           "NaN unless complete), constraint_names, and params: one array per parameter "
           "(float64 with NaN where inactive, or object for categorical values).")
      .def("optimize", &PyStudy::optimize, py::arg("func"), py::arg("n"),
           "Evaluates func(params) on up to n points (pending observations first, then new "
           "ones; stops at the budget) and returns how many it evaluated. func returns a "
           "number, or a dict {'objective': v, 'constraints': {...}} or {'error': reason}. An "
           "exception in func records the observation as failed, with the traceback's last "
           "line as reason. Ctrl-C raises arbo.InterruptedError and leaves the study intact.")
      .def("predict", &PyStudy::predict, py::arg("points"),
           "Fits the objective's surrogate to the completed observations and returns its "
           "predictive (mean, std) at `points`, a sequence of mappings {parameter name: value} "
           "in user units (a parameter inactive at a point may be left out), as two float64 "
           "arrays in the objective's user units and direction (a maximized study gets the "
           "objective, not its negation). The fit is the one the next proposal makes, on a "
           "separate copy of the surrogate: the study's proposals are unchanged. The GIL is "
           "released while it fits. Raises ConfigError if the pipeline has no surrogate (or a "
           "density model such as TPE, whose prediction is not the objective) or a point is "
           "invalid, StudyError if no observation is complete yet.")
      .def_property_readonly(
          "parameters", &PyStudy::parameters,
          "The search space, one dict per parameter in order: name, type ('real', 'integer', "
          "'categorical', 'binary'), low, high and log (real and integer), choices "
          "(categorical), and condition {'parent', 'values'} when it has one.")
      .def("close", &PyStudy::close, "Releases the study (and its lock); further calls raise.")
      .def("set_budget", &PyStudy::set_budget, py::arg("budget"),
           "Changes the study's budget (at least the observations it has).")
      .def_property_readonly("directory", &PyStudy::directory)
      .def_property_readonly("name", &PyStudy::name)
      .def_property_readonly("budget", &PyStudy::budget)
      .def_property_readonly("maximize", &PyStudy::maximize)
      .def_property_readonly("parameter_names", &PyStudy::parameter_names)
      .def_property_readonly("constraint_names", &PyStudy::constraint_names)
      .def_property_readonly("pipeline", &PyStudy::pipeline_toml,
                             "The resolved pipeline as TOML (what `arbo show --pipeline` prints).")
      .def("__len__", &PyStudy::size)
      .def(
          "__enter__", [](PyStudy& self) -> PyStudy& { return self; },
          py::return_value_policy::reference)
      .def("__exit__", [](PyStudy& s, py::args) { s.close(); });

  m.def("create_study", &PyStudy::create, py::arg("directory"), py::arg("file") = py::none(),
        py::kw_only(), py::arg("toml") = py::none(),
        py::arg("overrides") = std::vector<std::string>{},
        "Creates a study in `directory` from a pipeline file or a TOML string (`toml=`), with "
        "`overrides` as `arbo run --set` (\"study.budget=20\"). Raises ConfigError naming the "
        "line and key, StudyError if the directory already holds a study.");
  m.def("open_study", &PyStudy::open, py::arg("directory"), py::kw_only(),
        py::arg("read_only") = false,
        "Opens an existing study (made by Python or by the arbo CLI) and takes its lock. Raises "
        "StudyError if there is none or another process holds it. With `read_only=True` it takes "
        "no lock and writes nothing, so a study that `arbo run` is driving can be read, plotted "
        "and predicted from: the object sees the study as it was when opened, and ask, tell, "
        "tell_point and optimize raise StudyError.");
  m.def("plugins", &plugins,
        "The components of the loaded plugins, sorted by id: id, kind, name, summary, plugin, "
        "version, library, params (name, kind, default, domain, description, advanced), and "
        "doc: the summary and the parameters as `arbo plugins --all` prints them.");
}
