// SPDX-License-Identifier: MIT
// The conformance kit. Everything a plugin does is called through `guarded`, so a throwing
// plugin becomes a test failure naming the call instead of terminating the test binary.
#include "arbo/sdk/testing/conformance.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <optional>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <boost/dll/shared_library.hpp>

#include "arbo/sdk/capabilities/acquisition.hpp"
#include "arbo/sdk/capabilities/constraint.hpp"
#include "arbo/sdk/capabilities/surrogate.hpp"
#include "arbo/sdk/dataset.hpp"
#include "arbo/sdk/error.hpp"

namespace arbo::sdk::testing {

Eigen::MatrixXd random_points(const Space& space, std::size_t n, std::mt19937_64& rng) {
  const auto d = static_cast<Eigen::Index>(space.size());
  Eigen::MatrixXd X(static_cast<Eigen::Index>(n), d);
  Eigen::VectorXd u(d), x(d);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    for (Eigen::Index j = 0; j < d; ++j) u[j] = unit(rng);
    space.from_unit(u, x);
    X.row(i) = x.transpose();
  }
  return X;
}

namespace {

const char* level_name(LogLevel level) {
  switch (level) {
    case LogLevel::Trace: return "trace";
    case LogLevel::Debug: return "debug";
    case LogLevel::Info: return "info";
    case LogLevel::Warn: return "warn";
    case LogLevel::Error: return "error";
  }
  return "unknown";
}

// Runs one call into a plugin; reports an escaping exception as a failure and returns false.
template <class F>
bool guarded(const std::string& what, F&& call) {
  try {
    std::forward<F>(call)();
    return true;
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << " threw: " << e.what();
  } catch (...) {
    ADD_FAILURE() << what << " threw an exception not derived from std::exception";
  }
  return false;
}

bool is_snake_case(std::string_view s) {
  if (s.empty() || s.front() < 'a' || s.front() > 'z' || s.back() == '_') return false;
  char prev = ' ';
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok || (c == '_' && prev == '_')) return false;
    prev = c;
  }
  return true;
}

double mid0(const Space& space) { return 0.5 * (space.lower()[0] + space.upper()[0]); }

// A smooth, bumpy objective of the encoded point, so that fitted models have something to fit.
double kit_objective(const Eigen::VectorXd& x) {
  double f = 0.0;
  for (Eigen::Index j = 0; j < x.size(); ++j) {
    f += std::sin(1.3 * x[j] + 0.7 * static_cast<double>(j)) + 0.1 * x[j] * x[j];
  }
  return f;
}

// Random dataset with one black-box constraint "c0" = x0 - mid(x0) (about half feasible), or,
// with `all_infeasible`, c0 > 0 everywhere (no incumbent: the first iterations of a study).
Dataset make_dataset(const Space& space, std::size_t n, std::uint64_t seed,
                     bool all_infeasible = false) {
  std::mt19937_64 rng(seed);
  const Eigen::MatrixXd X = random_points(space, n, rng);
  Dataset data;
  data.reset(space.size(), {"c0"});
  Eigen::VectorXd c(1);
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    const Eigen::VectorXd x = X.row(i).transpose();
    c[0] = all_infeasible ? std::abs(x[0] - mid0(space)) + 1.0 : x[0] - mid0(space);
    data.append(x, kit_objective(x), c);
  }
  return data;
}

// Affine "model" mean = w'x + b with unit variance: what acquisitions are bound to.
class KitSurrogate final : public Surrogate {
 public:
  KitSurrogate(Eigen::VectorXd w, double b) : w_(std::move(w)), b_(b) {}
  void fit(const Dataset&, const Metric&) override {}
  void predict(const Eigen::MatrixXd& X, Eigen::VectorXd& mean,
               Eigen::VectorXd& variance) const override {
    mean = (X * w_).array() + b_;
    variance.setOnes(X.rows());
  }

 private:
  Eigen::VectorXd w_;
  double b_;
};

// The known constraint of the inner-solver checks: x0 <= mid(x0).
class KitConstraint final : public Constraint, public FormulatesConstraint {
 public:
  explicit KitConstraint(const Space& space) : mid_(mid0(space)) {}
  double violation(const Eigen::VectorXd& x) const override { return std::max(0.0, x[0] - mid_); }
  std::string describe() const override { return fmt::format("x0 <= {}", mid_); }
  void formulate(Model& model, const PointVariables& point) const override {
    model.add_linear_row(
        LinearRow{"kit_x0_upper", {{point.x_vars.at(0), 1.0}}, RowSense::LessEqual, mid_});
  }

 private:
  double mid_;
};

// Linear acquisition over the unit-scaled coordinates with alternating signs, so its maximum
// sits in a corner that the known constraint cuts off for x0.
class KitAcquisition final : public Acquisition, public FormulatesAcquisition {
 public:
  explicit KitAcquisition(const Space& space) {
    const auto d = static_cast<Eigen::Index>(space.size());
    w_.resize(d);
    for (Eigen::Index j = 0; j < d; ++j) {
      const double range = space.upper()[j] - space.lower()[j];
      const double sign = (j % 2 == 0) ? 1.0 : -1.0;
      w_[j] = range > 0 ? sign / range : 0.0;
      b_ -= w_[j] * space.lower()[j];
    }
  }
  void bind(const AcquisitionInputs&) override {}
  double value(const Eigen::VectorXd& x) const override { return w_.dot(x) + b_; }
  void formulate(Model& model, const PointVariables& point) const override {
    Objective obj;
    obj.sense = ObjectiveSense::Maximize;
    for (Eigen::Index j = 0; j < w_.size(); ++j) {
      obj.linear.push_back({point.x_vars.at(static_cast<std::size_t>(j)), w_[j]});
    }
    obj.constant = b_;
    model.set_objective(std::move(obj));
  }

 private:
  Eigen::VectorXd w_;
  double b_ = 0.0;
};

// --- checks shared by every kind --------------------------------------------------------------

// Returns the validated parameters (defaults + overrides), or nullopt after reporting why not.
std::optional<ParamSet> check_params(const ComponentInfo& info, const std::string& id,
                                     const ConformanceOptions& options) {
  EXPECT_NE(info.params, nullptr) << "component has no params() function";
  EXPECT_NE(info.create, nullptr) << "component has no factory";
  if (info.params == nullptr || info.create == nullptr) return std::nullopt;
  const ParamSpecList* specs = nullptr;
  if (!guarded("params()", [&] { specs = &info.params(); })) return std::nullopt;

  std::set<std::string> names;
  std::map<std::string, ParamValue> explicit_defaults;
  for (const ParamSpec& spec : *specs) {
    SCOPED_TRACE("parameter '" + spec.name + "'");
    EXPECT_TRUE(is_snake_case(spec.name)) << "parameter names must be snake_case";
    EXPECT_TRUE(names.insert(spec.name).second) << "parameter declared twice";
    EXPECT_FALSE(spec.description.empty())
        << "every parameter needs a description: it is the only documentation";
    EXPECT_LE(spec.min, spec.max) << "min is above max";
    if (spec.kind == ParamKind::Choice) {
      EXPECT_FALSE(spec.choices.empty()) << "a choice parameter needs choices";
      const auto* s = std::get_if<std::string>(&spec.default_value);
      EXPECT_TRUE(s != nullptr &&
                  std::find(spec.choices.begin(), spec.choices.end(), *s) != spec.choices.end())
          << "default " << to_string(spec.default_value) << " is not one of the choices";
    }
    if (spec.kind == ParamKind::Int || spec.kind == ParamKind::Real) {
      double v = std::numeric_limits<double>::quiet_NaN();
      if (const auto* i = std::get_if<std::int64_t>(&spec.default_value))
        v = static_cast<double>(*i);
      if (const auto* r = std::get_if<double>(&spec.default_value)) v = *r;
      EXPECT_TRUE(v >= spec.min && v <= spec.max)
          << "default " << to_string(spec.default_value) << " is outside " << spec.domain();
    }
    explicit_defaults.emplace(spec.name, spec.default_value);
  }
  // validate_params fills omitted keys with defaults unchecked, so the defaults are also passed
  // explicitly: that runs every type, range and choice check on them.
  try {
    validate_params(*specs, explicit_defaults, id);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "a default does not pass validate_params: " << e.what();
  }
  try {
    validate_params(*specs, {}, id);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "validate_params(specs, {}) failed: " << e.what();
    return std::nullopt;
  }
  static const std::map<std::string, ParamValue> kNoOverrides;
  const auto it = options.param_overrides.find(id);
  try {
    return validate_params(*specs, it == options.param_overrides.end() ? kNoOverrides : it->second,
                           id);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "the overrides in ConformanceOptions::param_overrides are rejected: "
                  << e.what();
    return std::nullopt;
  }
}

// Creates the component; null after reporting a failure. `params` and `space` must outlive it.
template <class Interface>
std::unique_ptr<Component> create(const ComponentInfo& info, Context& ctx, const ParamSet& params,
                                  const Space& space, Interface** typed) {
  std::unique_ptr<Component> comp;
  const CreateArgs args{ctx, params, space};
  if (!guarded("the factory", [&] { comp.reset(info.create(args)); })) return nullptr;
  EXPECT_NE(comp, nullptr) << "the factory returned null";
  if (!comp) return nullptr;
  *typed = dynamic_cast<Interface*>(comp.get());
  EXPECT_NE(*typed, nullptr)
      << "the object does not dynamic_cast to arbo::sdk::" << to_string(info.kind)
      << "'s interface: the class derives from another interface, or its typeinfo is not the "
         "one exported by libarbo_sdk.so (link the SDK shared library, never copy its sources)";
  if (*typed == nullptr) return nullptr;
  return comp;
}

bool all_finite(const Eigen::VectorXd& v) { return v.allFinite(); }

// --- per-kind checks -------------------------------------------------------------------------

// A surrogate with `SavesState`: instance A fits the first half of the data, then all of it;
// instance B, fresh, restores what A saved after its first fit and fits all of it with the
// same random stream. What a resumed study does; the two must predict the same. A state that
// is not one the plugin wrote is refused with an `Error`, never accepted or crashed on.
void check_saved_state(const ComponentInfo& info, const ParamSet& params,
                       const ConformanceOptions& options, const Dataset& data,
                       const Eigen::MatrixXd& X) {
  const Space& space = options.space;
  Dataset half;
  half.reset(space.size(), data.constraint_names);
  for (std::size_t i = 0; i < data.size() / 2; ++i) {
    const auto r = static_cast<Eigen::Index>(i);
    half.append(data.X.row(r).transpose(), data.y[r], data.C.row(r).transpose());
  }
  const Metric metric{Metric::kObjective, "objective"};
  TestContext ctx_a(options.seed);
  Surrogate* a = nullptr;
  auto comp_a = create(info, ctx_a, params, space, &a);
  if (!comp_a) return;
  const auto* saver_a = dynamic_cast<const SavesState*>(a);
  if (saver_a == nullptr) return;
  std::string state;
  if (!guarded("fit() (first half)", [&] { a->fit(half, metric); })) return;
  if (!guarded("save_state()", [&] { state = saver_a->save_state(); })) return;
  std::string again;
  if (!guarded("save_state() (second call)", [&] { again = saver_a->save_state(); })) return;
  EXPECT_EQ(state, again) << "save_state() is not a pure function of the fitted model";
  ctx_a.reseed(options.seed + 1);
  Eigen::VectorXd mean_a, var_a, mean_b, var_b;
  if (!guarded("fit()", [&] { a->fit(data, metric); })) return;
  if (!guarded("predict()", [&] { a->predict(X, mean_a, var_a); })) return;

  TestContext ctx_b(options.seed + 1);
  Surrogate* b = nullptr;
  auto comp_b = create(info, ctx_b, params, space, &b);
  if (!comp_b) return;
  auto* saver_b = dynamic_cast<SavesState*>(b);
  ASSERT_NE(saver_b, nullptr);
  if (!guarded("restore_state()", [&] { saver_b->restore_state(state); })) return;
  if (!guarded("fit() (after restore_state)", [&] { b->fit(data, metric); })) return;
  if (!guarded("predict() (after restore_state)", [&] { b->predict(X, mean_b, var_b); })) return;
  EXPECT_TRUE(mean_a == mean_b && var_a == var_b)
      << "a fresh instance that restored the saved state and fitted the same data with the same "
         "random stream predicts differently from the instance that saved it: a resumed study "
         "would not propose what an uninterrupted one does";

  TestContext ctx_c(options.seed);
  Surrogate* c = nullptr;
  auto comp_c = create(info, ctx_c, params, space, &c);
  if (!comp_c) return;
  auto* saver_c = dynamic_cast<SavesState*>(c);
  ASSERT_NE(saver_c, nullptr);
  // Only what any format can tell on its own: an empty state and bytes no plugin writes as
  // one (the store never truncates a state: it is written in one transaction).
  for (const std::string& bad : {std::string(), std::string("\x01not a state\xff", 14)}) {
    if (bad == state) continue;
    try {
      saver_c->restore_state(bad);
      ADD_FAILURE() << "restore_state() accepted a damaged state (" << bad.size()
                    << " bytes): it must throw arbo::sdk::Error";
    } catch (const Error&) {
    } catch (const std::exception& e) {
      ADD_FAILURE() << "restore_state() of a damaged state threw a non-SDK exception: " << e.what();
    }
  }
}

void check_surrogate(const ComponentInfo& info, const ParamSet& params,
                     const ConformanceOptions& options) {
  const Space& space = options.space;
  const Dataset data = make_dataset(space, options.num_train, options.seed);
  std::mt19937_64 point_rng(options.seed + 1);
  const Eigen::MatrixXd X = random_points(space, options.num_points, point_rng);
  const auto m = X.rows();

  for (const Metric& metric : {Metric{Metric::kObjective, "objective"}, Metric{0, "c0"}}) {
    SCOPED_TRACE("metric '" + metric.name + "'");
    // Two independent instances, each with a fresh context of the same seed: what a resumed
    // study does. Their predictions must agree.
    Eigen::VectorXd mean[2], var[2];
    for (int run = 0; run < 2; ++run) {
      TestContext ctx(options.seed);
      Surrogate* s = nullptr;
      auto comp = create(info, ctx, params, space, &s);
      if (!comp) return;
      if (!guarded("fit()", [&] { s->fit(data, metric); })) return;
      if (!guarded("predict()", [&] { s->predict(X, mean[run], var[run]); })) return;
      ASSERT_EQ(mean[run].size(), m) << "predict() must resize mean to the number of rows";
      ASSERT_EQ(var[run].size(), m) << "predict() must resize variance to the number of rows";
      EXPECT_TRUE(all_finite(mean[run])) << "non-finite mean: " << mean[run].transpose();
      EXPECT_TRUE(all_finite(var[run])) << "non-finite variance: " << var[run].transpose();
      EXPECT_TRUE((var[run].array() >= 0.0).all()) << "negative variance: " << var[run].transpose();
      if (run == 0) {
        Eigen::VectorXd mean2, var2;
        if (!guarded("predict() (second call)", [&] { s->predict(X, mean2, var2); })) return;
        EXPECT_TRUE(mean2 == mean[0] && var2 == var[0])
            << "predict() is not a pure function of the fitted model: two calls differ";
      }
    }
    const double tol_m = 1e-12 * (1.0 + mean[0].cwiseAbs().maxCoeff());
    const double tol_v = 1e-12 * (1.0 + var[0].cwiseAbs().maxCoeff());
    EXPECT_LE((mean[0] - mean[1]).cwiseAbs().maxCoeff(), tol_m)
        << "fitting the same data with the same seed gives different means: the model uses "
           "randomness not drawn from Context::rng(), or state shared between instances";
    EXPECT_LE((var[0] - var[1]).cwiseAbs().maxCoeff(), tol_v)
        << "fitting the same data with the same seed gives different variances";
  }
  check_saved_state(info, params, options, data, X);
}

void check_acquisition(const ComponentInfo& info, const ParamSet& params,
                       const ConformanceOptions& options) {
  const Space& space = options.space;
  const auto d = static_cast<Eigen::Index>(space.size());
  TestContext ctx(options.seed);
  Acquisition* acq = nullptr;
  auto comp = create(info, ctx, params, space, &acq);
  if (!comp) return;

  const KitSurrogate objective(Eigen::VectorXd::Ones(d), 0.0);
  const KitSurrogate constraint(Eigen::VectorXd::Unit(d, 0), -mid0(space));
  std::mt19937_64 point_rng(options.seed + 2);
  const Eigen::MatrixXd X = random_points(space, options.num_points, point_rng);

  const Dataset with_feasible = make_dataset(space, options.num_train, options.seed);
  const Dataset none_feasible = make_dataset(space, options.num_train, options.seed, true);
  for (const Dataset* data : {&with_feasible, &none_feasible}) {
    SCOPED_TRACE(data->incumbent() ? "dataset with an incumbent" : "dataset without incumbent");
    const AcquisitionInputs inputs{*data, &objective, {&constraint}, data->incumbent()};
    if (!guarded("bind()", [&] { acq->bind(inputs); })) continue;
    Eigen::VectorXd per_row(X.rows());
    bool ok = true;
    for (Eigen::Index i = 0; i < X.rows() && ok; ++i) {
      const Eigen::VectorXd x = X.row(i).transpose();
      ok = guarded("value()", [&] { per_row[i] = acq->value(x); });
    }
    if (!ok) continue;
    EXPECT_TRUE(all_finite(per_row)) << "value() must be finite: " << per_row.transpose();
    Eigen::VectorXd batch;
    if (!guarded("values()", [&] { acq->values(X, batch); })) continue;
    ASSERT_EQ(batch.size(), X.rows()) << "values() must resize its output to the number of rows";
    for (Eigen::Index i = 0; i < X.rows(); ++i) {
      EXPECT_NEAR(batch[i], per_row[i], 1e-9 * (1.0 + std::abs(per_row[i])))
          << "values() row " << i << " differs from value()";
    }
  }
}

void check_proposal(const Proposal& p, const Space& space, const KitConstraint& constraint,
                    const Acquisition* acq) {
  EXPECT_TRUE(p.found) << "no point found although half the space is feasible; note: " << p.note;
  if (!p.found) return;
  ASSERT_EQ(p.x.size(), static_cast<Eigen::Index>(space.size())) << "proposal has the wrong length";
  ASSERT_TRUE(p.x.allFinite()) << "proposal has non-finite coordinates: " << p.x.transpose();
  const double tol = 1e-6;
  EXPECT_TRUE((p.x.array() >= space.lower().array() - tol).all() &&
              (p.x.array() <= space.upper().array() + tol).all())
      << "proposal lies outside the space's bounds: " << p.x.transpose();
  Eigen::VectorXd snapped = p.x;
  space.snap(snapped);
  EXPECT_TRUE(space.contains(snapped));
  EXPECT_LE(constraint.violation(snapped), 1e-9)
      << "the snapped proposal violates the known constraint " << constraint.describe()
      << ": x = " << snapped.transpose();
  if (acq != nullptr) {
    EXPECT_TRUE(std::isfinite(p.value)) << "Proposal::value must be finite";
    EXPECT_TRUE(std::isfinite(acq->value(snapped)));
  }
}

void check_inner_solver(const ComponentInfo& info, const ParamSet& params,
                        const ConformanceOptions& options) {
  const Space& space = options.space;
  ASSERT_TRUE(space[0].type == ParamType::Real || space[0].type == ParamType::Integer)
      << "ConformanceOptions::space: coordinate 0 must be real or integer for the kit's "
         "known constraint";
  TestContext ctx(options.seed);
  InnerSolver* solver = nullptr;
  auto comp = create(info, ctx, params, space, &solver);
  if (!comp) return;
  const KitConstraint constraint(space);
  const Dataset data = make_dataset(space, options.num_train, options.seed);
  {
    SCOPED_TRACE("maximize() without an acquisition");
    const SolveRequest request{nullptr, space, {&constraint}, data};
    Proposal p;
    if (guarded("maximize()", [&] { p = solver->maximize(request); })) {
      check_proposal(p, space, constraint, nullptr);
    }
  }
  {
    SCOPED_TRACE("maximize() of the kit's linear acquisition");
    KitAcquisition acq(space);
    const SolveRequest request{&acq, space, {&constraint}, data};
    Proposal p;
    if (guarded("maximize()", [&] { p = solver->maximize(request); })) {
      check_proposal(p, space, constraint, &acq);
    }
  }
}

void check_constraint(const ComponentInfo& info, const ParamSet& params,
                      const ConformanceOptions& options) {
  const Space& space = options.space;
  TestContext ctx(options.seed);
  Constraint* con = nullptr;
  auto comp = create(info, ctx, params, space, &con);
  if (!comp) return;
  std::string text;
  if (guarded("describe()", [&] { text = con->describe(); })) {
    EXPECT_FALSE(text.empty()) << "describe() must return one line for logs";
  }
  std::mt19937_64 point_rng(options.seed + 3);
  const Eigen::MatrixXd X = random_points(space, options.num_points, point_rng);
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    const Eigen::VectorXd x = X.row(i).transpose();
    double v = 0.0;
    if (!guarded("violation()", [&] { v = con->violation(x); })) return;
    EXPECT_TRUE(std::isfinite(v) && v >= 0.0)
        << "violation must be finite and >= 0, got " << v << " at " << x.transpose();
  }
}

void expect_same_evaluation(const Evaluation& a, const Evaluation& b, const Eigen::VectorXd& x) {
  const bool same_objective =
      (std::isnan(a.objective) && std::isnan(b.objective)) || a.objective == b.objective;
  EXPECT_TRUE(same_objective && a.constraints.size() == b.constraints.size() &&
              a.constraints == b.constraints)
      << "evaluating the same point twice gives different values (objective " << a.objective
      << " vs " << b.objective << ") at " << x.transpose()
      << "; problems must be deterministic when their noise parameters are at their defaults";
}

void check_problem(const ComponentInfo& info, const ParamSet& params,
                   const ConformanceOptions& options) {
  TestContext ctx(options.seed);
  const Space no_space;  // problems receive an empty space: they define their own
  Problem* problem = nullptr;
  auto comp = create(info, ctx, params, no_space, &problem);
  if (!comp) return;

  const Space* space = nullptr;
  if (!guarded("space()", [&] { space = &problem->space(); })) return;
  ASSERT_FALSE(space->empty()) << "a problem's space must have at least one parameter";
  std::vector<std::string> names;
  if (!guarded("constraint_names()", [&] { names = problem->constraint_names(); })) return;
  std::set<std::string> unique;
  for (const auto& n : names) {
    EXPECT_FALSE(n.empty()) << "constraint names must be non-empty";
    EXPECT_TRUE(unique.insert(n).second) << "constraint name '" << n << "' appears twice";
  }
  ProblemInfo pinfo;
  if (!guarded("info()", [&] { pinfo = problem->info(); })) return;
  EXPECT_FALSE(pinfo.source.empty()) << "info().source should say where the problem comes from";

  const auto evaluate = [&](const Eigen::VectorXd& x, Evaluation& out) {
    return guarded("evaluate()", [&] { problem->evaluate(x, out); });
  };
  std::mt19937_64 point_rng(options.seed + 4);
  const Eigen::MatrixXd X = random_points(*space, options.num_problem_points, point_rng);
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    const Eigen::VectorXd x = X.row(i).transpose();
    Evaluation first, second;
    if (!evaluate(x, first) || !evaluate(x, second)) return;
    if (options.allow_nan_objective) {
      EXPECT_FALSE(std::isinf(first.objective)) << "infinite objective at " << x.transpose();
    } else {
      EXPECT_TRUE(std::isfinite(first.objective))
          << "non-finite objective " << first.objective << " at " << x.transpose();
    }
    ASSERT_EQ(first.constraints.size(), static_cast<Eigen::Index>(names.size()))
        << "evaluate() must give one constraint value per constraint_names() entry";
    EXPECT_TRUE(first.constraints.allFinite())
        << "non-finite constraint values " << first.constraints.transpose() << " at "
        << x.transpose();
    expect_same_evaluation(first, second, x);
  }

  for (std::size_t k = 0; k < pinfo.optimizers.size(); ++k) {
    const Eigen::VectorXd& xs = pinfo.optimizers[k];
    SCOPED_TRACE(fmt::format("declared optimizer #{}", k + 1));
    ASSERT_EQ(xs.size(), static_cast<Eigen::Index>(space->size()));
    EXPECT_TRUE(space->contains(xs, 1e-9))
        << "optimizer is not a snapped point of the space: " << xs.transpose();
    if (!pinfo.optimum) continue;
    Evaluation at;
    if (!evaluate(xs, at)) continue;
    const double fstar = *pinfo.optimum;
    EXPECT_NEAR(at.objective, fstar, options.optimum_rel_tol * std::max(1.0, std::abs(fstar)))
        << "the objective at a declared optimizer differs from info().optimum";
    if (at.constraints.size() > 0) {
      EXPECT_LE(at.constraints.maxCoeff(), options.optimum_feas_tol)
          << "a declared optimizer violates a constraint: " << at.constraints.transpose();
    }
  }
}

}  // namespace

namespace {

/// Every library PluginUnderTest loaded. They are never unloaded (see the header); holding them
/// here keeps them reachable, so that a leak checker (ASan's, in the sanitizer build) does not
/// report them.
std::vector<boost::dll::shared_library*>& kept_libraries() {
  static auto* kept = new std::vector<boost::dll::shared_library*>;
  return *kept;
}

}  // namespace

void TestContext::log(LogLevel level, std::string_view message) {
  logs_.push_back(fmt::format("{}: {}", level_name(level), message));
}

PluginUnderTest::PluginUnderTest(std::string so_path) : path_(std::move(so_path)) {
  // Deliberately leaked: the mapping must outlive every object created from it (see header).
  auto* library = new boost::dll::shared_library();
  try {
    library->load(path_, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
  } catch (const std::exception& e) {
    delete library;  // nothing was mapped
    throw std::runtime_error(fmt::format("cannot load plugin '{}': {}", path_, e.what()));
  }
  kept_libraries().push_back(library);
  if (!library->has(ARBO_PLUGIN_ENTRY_NAME)) {
    throw std::runtime_error(
        fmt::format("'{}' is not an arbo plugin: it has no '{}' entry (a library built without "
                    "ARBO_PLUGIN_BEGIN/ARBO_PLUGIN_END, or stripped of its '{}' section)",
                    path_, ARBO_PLUGIN_ENTRY_NAME, ARBO_PLUGIN_SECTION_NAME));
  }
  using EntryFn = const arbo_plugin_header_v1*();
  EntryFn& entry = library->get_alias<EntryFn>(ARBO_PLUGIN_ENTRY_NAME);
  header_ = entry();
  if (header_ == nullptr) {
    throw std::runtime_error(fmt::format("plugin '{}': entry returned a null header", path_));
  }
  header_error_ = check_plugin_header(header_);
  if (!header_error_.empty()) return;
  const auto* table = static_cast<const PluginTable*>(header_->cpp_table);
  if (table->count > 0 && table->components != nullptr) {
    components_.assign(table->components, table->components + table->count);
  }
}

const ComponentInfo* PluginUnderTest::find(Kind kind, std::string_view name) const {
  for (const auto& c : components_) {
    if (c.kind == kind && c.name != nullptr && name == c.name) return &c;
  }
  return nullptr;
}

std::string component_id(const ComponentInfo& info) {
  return fmt::format("{}/{}", to_string(info.kind), info.name ? info.name : "(null)");
}

Space default_test_space() {
  std::vector<Parameter> p;
  p.push_back(Parameter::real("x_lin", -2.0, 3.0));
  p.push_back(Parameter::real("x_log", 1e-3, 10.0, true));
  p.push_back(Parameter::integer("n_int", 0, 8));
  p.push_back(Parameter::categorical("cat", {"a", "b", "c"}));
  p.push_back(Parameter::binary("flag"));
  Parameter cond = Parameter::real("x_cond", 0.0, 1.0);
  cond.condition = Condition{"cat", {Value{std::string("b")}, Value{std::string("c")}}};
  p.push_back(std::move(cond));
  return Space(std::move(p));
}

void expect_component_conforms(const ComponentInfo& info, const ConformanceOptions& options) {
  const std::string id = component_id(info);
  SCOPED_TRACE("component " + id);
  ASSERT_NE(info.name, nullptr) << "component has no name";
  EXPECT_TRUE(is_snake_case(info.name)) << "component names must be snake_case";
  EXPECT_TRUE(info.summary != nullptr && info.summary[0] != '\0')
      << "component needs a one-line summary";
  ASSERT_FALSE(options.space.empty()) << "ConformanceOptions::space must not be empty";
  const std::optional<ParamSet> params = check_params(info, id, options);
  if (!params) return;
  switch (info.kind) {
    case Kind::Surrogate: check_surrogate(info, *params, options); break;
    case Kind::Acquisition: check_acquisition(info, *params, options); break;
    case Kind::InnerSolver: check_inner_solver(info, *params, options); break;
    case Kind::Constraint: check_constraint(info, *params, options); break;
    case Kind::Problem: check_problem(info, *params, options); break;
    default: ADD_FAILURE() << "unknown component kind " << static_cast<std::uint32_t>(info.kind);
  }
}

void expect_plugin_conforms(const std::string& so_path, const ConformanceOptions& options) {
  SCOPED_TRACE("plugin " + so_path);
  std::unique_ptr<PluginUnderTest> plugin;
  try {
    plugin = std::make_unique<PluginUnderTest>(so_path);
  } catch (const std::exception& e) {
    FAIL() << e.what();
  }
  ASSERT_TRUE(plugin->compatible()) << "incompatible header: " << plugin->header_error();
  const arbo_plugin_header_v1& h = plugin->header();
  EXPECT_TRUE(h.plugin_name != nullptr && h.plugin_name[0] != '\0') << "header has no name";
  EXPECT_TRUE(h.plugin_version != nullptr && h.plugin_version[0] != '\0')
      << "header has no version";
  EXPECT_TRUE(h.description != nullptr && h.description[0] != '\0') << "header has no description";
  ASSERT_FALSE(plugin->components().empty()) << "the plugin registers no component";
  std::set<std::string> ids;
  for (const ComponentInfo& c : plugin->components()) {
    EXPECT_TRUE(ids.insert(component_id(c)).second)
        << "component id " << component_id(c) << " is registered twice";
  }
  for (const ComponentInfo& c : plugin->components()) expect_component_conforms(c, options);
}

}  // namespace arbo::sdk::testing
