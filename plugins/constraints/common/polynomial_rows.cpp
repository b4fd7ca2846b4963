// SPDX-License-Identifier: MIT
#include "polynomial_rows.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <Eigen/Eigenvalues>

#include <arbo/sdk/context.hpp>
#include <arbo/sdk/error.hpp>

namespace arbo::plugins {

namespace {

constexpr std::size_t kMaxDescribe = 240;
// A projection is a helper step of an iteration, not worth more than this.
constexpr double kProjectionTimeLimit = 10.0;

using Interval = std::pair<double, double>;

// 0 * inf is 0 here: a coordinate fixed at 0 times an unbounded one is 0.
double mul(double a, double b) { return (a == 0.0 || b == 0.0) ? 0.0 : a * b; }

Interval interval_product(const Interval& p, const Interval& q) {
  const double c[] = {mul(p.first, q.first), mul(p.first, q.second), mul(p.second, q.first),
                      mul(p.second, q.second)};
  return {*std::min_element(std::begin(c), std::end(c)),
          *std::max_element(std::begin(c), std::end(c))};
}

// Exact range of v^e for v in [lo, hi].
Interval interval_power(double lo, double hi, int e) {
  const double pl = std::pow(lo, e);
  const double pu = std::pow(hi, e);
  if (e % 2 == 1 || lo >= 0.0) return {pl, pu};
  if (hi <= 0.0) return {pu, pl};
  return {0.0, std::max(pl, pu)};
}

// Exact range of the monomial `m` when coordinate i ranges over `range(i)`.
template <class Range>
Interval monomial_range(const Monomial& m, const Range& range) {
  Interval out{1.0, 1.0};
  for (std::size_t i = 0; i < m.size();) {
    std::size_t j = i;
    while (j < m.size() && m[j] == m[i]) ++j;
    const Interval r = range(m[i]);
    out = interval_product(out, interval_power(r.first, r.second, static_cast<int>(j - i)));
    i = j;
  }
  return out;
}

// The divisor of a row whose numbers reach `magnitude`: kScaleFraction of it, or 1 when that is
// smaller (or the magnitude is not finite).
double scale_of(double magnitude) {
  return std::isfinite(magnitude) ? std::max(1.0, kScaleFraction * magnitude) : 1.0;
}

// A row's divisor in the model and in violation(): scale_of its magnitude over the space's box
// (the constant plus every term's largest absolute value, user units).
double row_scale(const Polynomial& p, const sdk::Space& space) {
  double magnitude = 0.0;
  for (const auto& [m, c] : p.terms) {
    const Interval r = monomial_range(m, [&](int i) -> Interval {
      const sdk::Parameter& q = space[static_cast<std::size_t>(i)];
      if (q.type == sdk::ParamType::Binary) return {0.0, 1.0};
      return {q.lower, q.upper};
    });
    magnitude += std::abs(c) * std::max(std::abs(r.first), std::abs(r.second));
  }
  return scale_of(magnitude);
}

}  // namespace

MonomialLifter::MonomialLifter(sdk::Model& model, const std::vector<int>& x_vars,
                               std::string prefix)
    : model_(model), x_vars_(x_vars), prefix_(std::move(prefix)) {}

std::pair<int, int> MonomialLifter::factors(const Monomial& m) {
  // Halves rather than a chain, so that x^4 needs one auxiliary (w = x^2, then w*w).
  const auto half = static_cast<std::ptrdiff_t>(m.size() / 2);
  const int a = variable(Monomial(m.begin(), m.begin() + half));
  const int b = variable(Monomial(m.begin() + half, m.end()));
  return {std::min(a, b), std::max(a, b)};
}

int MonomialLifter::variable(const Monomial& m) {
  if (m.size() == 1) return x_vars_[static_cast<std::size_t>(m[0])];
  if (const auto it = lifted_.find(m); it != lifted_.end()) return it->second;
  const auto [a, b] = factors(m);
  auto [lo, hi] = bounds(m);
  // Widened by a few ulps: the implied value a*b is rounded once per lifting level.
  lo -= 1e-12 * std::abs(lo);
  hi += 1e-12 * std::abs(hi);
  const std::string name = fmt::format("{}{}", prefix_, model_.num_variables());
  const int w = model_.add_variable(name, sdk::VarType::Continuous, lo, hi);
  // Scaled like the rows that use w (see row_scale), so that the solver's absolute tolerance
  // is relative to a large product's size: a product of two coordinates of width 1e4 cannot
  // be met to 1e-6 absolute by the LP.
  const double s = 1.0 / scale_of(std::max(std::abs(lo), std::abs(hi)));
  sdk::QuadraticRow def;
  def.name = name + "_def";
  def.quad = {{a, b, s}};
  def.linear = {{w, -s}};
  def.sense = sdk::RowSense::Equal;
  def.rhs = 0.0;
  model_.add_quadratic_row(std::move(def));
  lifted_.emplace(m, w);
  return w;
}

std::pair<double, double> MonomialLifter::bounds(const Monomial& m) const {
  return monomial_range(m, [&](int i) -> Interval {
    const sdk::Variable& v =
        model_.variables()[static_cast<std::size_t>(x_vars_[static_cast<std::size_t>(i)])];
    return {v.lower, v.upper};
  });
}

bool is_positive_semidefinite(const std::vector<sdk::QuadTerm>& quad) {
  std::vector<int> vars;
  for (const auto& t : quad) {
    vars.push_back(t.var1);
    vars.push_back(t.var2);
  }
  std::sort(vars.begin(), vars.end());
  vars.erase(std::unique(vars.begin(), vars.end()), vars.end());
  const auto index = [&](int v) {
    return static_cast<Eigen::Index>(std::lower_bound(vars.begin(), vars.end(), v) - vars.begin());
  };
  const auto n = static_cast<Eigen::Index>(vars.size());
  Eigen::MatrixXd q = Eigen::MatrixXd::Zero(n, n);
  for (const auto& t : quad) {
    const Eigen::Index i = index(t.var1);
    const Eigen::Index j = index(t.var2);
    if (i == j) {
      q(i, i) += t.coef;
    } else {
      q(i, j) += 0.5 * t.coef;
      q(j, i) += 0.5 * t.coef;
    }
  }
  if (n == 0) return true;
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(q, Eigen::EigenvaluesOnly);
  const Eigen::VectorXd& ev = eig.eigenvalues();
  return ev.minCoeff() >= -1e-10 * ev.cwiseAbs().maxCoeff();
}

PolynomialRowsConstraint::PolynomialRowsConstraint(const sdk::CreateArgs& args,
                                                   std::string component_id, std::string key,
                                                   const ParseOptions& options,
                                                   std::string row_prefix)
    : context_(args.context),
      space_(args.space),
      id_(std::move(component_id)),
      row_prefix_(std::move(row_prefix)) {
  const std::string& text = args.params.get_string(key);
  try {
    rows_ = parse_constraints(text, space_, options);
  } catch (const ExpressionError& e) {
    throw sdk::ParamError(
        key, fmt::format("{}: invalid {}: {}", id_, key, format_expression_error(text, e)));
  }
  for (const auto& row : rows_) {
    const std::vector<int> c = row.polynomial().coordinates();
    coordinates_.insert(coordinates_.end(), c.begin(), c.end());
    scales_.push_back(row_scale(row.polynomial(), space_));
  }
  std::sort(coordinates_.begin(), coordinates_.end());
  coordinates_.erase(std::unique(coordinates_.begin(), coordinates_.end()), coordinates_.end());
}

void PolynomialRowsConstraint::check_point(const Eigen::VectorXd& x) const {
  if (x.size() != static_cast<Eigen::Index>(space_.size())) {
    throw sdk::InvalidArgument(fmt::format("{}: point has {} coordinates, the space has {}", id_,
                                           x.size(), space_.size()));
  }
}

template <class Fold>
double PolynomialRowsConstraint::fold_excesses(const Eigen::VectorXd& x, Fold fold) const {
  check_point(x);
  constexpr double kWorst = std::numeric_limits<double>::max();  // the contract wants finite
  double acc = 0.0;
  for (std::size_t k = 0; k < rows_.size(); ++k) {
    const ParsedConstraint& row = rows_[k];
    const double p = row.value(x);
    const double v = row.equality() ? std::abs(p) : p;
    if (std::isnan(v)) return kWorst;
    // An excess within the evaluation's rounding is no violation: Alkylation's rows add terms
    // near 3e12, where one ulp is 5e-4, and a point on such a row would otherwise count as
    // violating it.
    if (v <= 0.0 || v <= kRowRounding * row.magnitude(x)) continue;
    acc = fold(acc, v, k);
  }
  return std::min(acc, kWorst);
}

double PolynomialRowsConstraint::violation(const Eigen::VectorXd& x) const {
  return fold_excesses(
      x, [&](double worst, double v, std::size_t k) { return std::max(worst, v / scales_[k]); });
}

double PolynomialRowsConstraint::squared_excess(const Eigen::VectorXd& x) const {
  return fold_excesses(x, [](double sum, double v, std::size_t) { return sum + v * v; });
}

std::string PolynomialRowsConstraint::describe() const {
  std::string out;
  for (std::size_t k = 0; k < rows_.size(); ++k) {
    if (k > 0) out += "; ";
    out += rows_[k].normalized(space_);
    if (out.size() > kMaxDescribe) break;
  }
  if (out.size() > kMaxDescribe) out = out.substr(0, kMaxDescribe - 3) + "...";
  if (rows_.size() > 1) out += fmt::format(" ({} rows)", rows_.size());
  return out;
}

void PolynomialRowsConstraint::add_rows(sdk::Model& model, const std::vector<int>& x_vars) const {
  MonomialLifter lifter(model, x_vars, row_prefix_ + "_w");
  for (std::size_t k = 0; k < rows_.size(); ++k) {
    const ParsedConstraint& row = rows_[k];
    const Polynomial& p = row.polynomial();
    const sdk::RowSense sense = row.equality() ? sdk::RowSense::Equal : sdk::RowSense::LessEqual;
    // Divided by the row's scale, so that the solver's tolerance means what violation() does.
    const double s = 1.0 / scales_[k];
    const double rhs = -p.constant_term() * s;
    const std::string name = fmt::format(
        "{}{}", row_prefix_, model.linear_rows().size() + model.quadratic_rows().size());
    std::vector<sdk::LinearTerm> linear;
    std::vector<sdk::QuadTerm> quad;
    for (const auto& [m, c] : p.terms) {
      if (m.size() == 1) {
        linear.push_back({x_vars[static_cast<std::size_t>(m[0])], c * s});
      } else if (m.size() >= 2) {
        const auto [a, b] = lifter.factors(m);
        quad.push_back({a, b, c * s});
      }
    }
    if (quad.empty()) {
      model.add_linear_row(sdk::LinearRow{name, std::move(linear), sense, rhs});
    } else {
      const bool convex = !row.equality() && is_positive_semidefinite(quad);
      model.add_quadratic_row(
          sdk::QuadraticRow{name, std::move(quad), std::move(linear), sense, rhs, convex});
    }
  }
}

void PolynomialRowsConstraint::formulate(sdk::Model& model,
                                         const sdk::PointVariables& point) const {
  for (int c : coordinates_) {
    const auto i = static_cast<std::size_t>(c);
    const sdk::Parameter& p = space_[i];
    if (p.log_scale) {
      throw sdk::InvalidArgument(fmt::format(
          "{}: parameter '{}' is log-scaled: its model variable is ln({}), so a polynomial in "
          "{} cannot be written as model rows (use a black-box inner solver, or a linear "
          "scale)",
          id_, p.name, p.name, p.name));
    }
    if (i >= point.x_vars.size() || point.x_vars[i] < 0 ||
        static_cast<std::size_t>(point.x_vars[i]) >= model.num_variables()) {
      throw sdk::InvalidArgument(
          fmt::format("{}: no model variable for parameter '{}' (coordinate {})", id_, p.name, i));
    }
  }
  add_rows(model, point.x_vars);
}

bool PolynomialRowsConstraint::project(Eigen::VectorXd& x) const {
  check_point(x);
  if (violation(x) <= 0.0) return true;
  sdk::ModelSolver* solver = context_.model_solver();
  if (solver == nullptr) {
    context_.debug("{}: cannot project without a model solver", id_);
    return false;
  }
  sdk::Model model;
  std::vector<int> x_vars(space_.size(), -1);
  sdk::Objective objective;
  objective.sense = sdk::ObjectiveSense::Minimize;
  for (int c : coordinates_) {
    const auto i = static_cast<std::size_t>(c);
    const sdk::Parameter& p = space_[i];
    if (p.log_scale) {
      context_.debug("{}: cannot project: parameter '{}' is log-scaled", id_, p.name);
      return false;
    }
    const double lo = space_.lower()[c];
    const double hi = space_.upper()[c];
    const sdk::VarType type = p.type == sdk::ParamType::Binary    ? sdk::VarType::Binary
                              : p.type == sdk::ParamType::Integer ? sdk::VarType::Integer
                                                                  : sdk::VarType::Continuous;
    const int v = model.add_variable(p.name, type, lo, hi);
    x_vars[i] = v;
    const double x0 = x[c];
    if (type == sdk::VarType::Binary) {
      // Hamming distance: |v - x0| is linear in a binary v.
      if (x0 >= 0.5) {
        objective.linear.push_back({v, -1.0});
        objective.constant += 1.0;
      } else {
        objective.linear.push_back({v, 1.0});
      }
    } else if (hi > lo) {
      const double w = 1.0 / ((hi - lo) * (hi - lo));
      objective.quad.push_back({v, v, w});
      objective.linear.push_back({v, -2.0 * w * x0});
      objective.constant += w * x0 * x0;
    }
  }
  model.set_objective(std::move(objective));
  add_rows(model, x_vars);

  sdk::SolveOptions options;
  // The gap is on the squared scaled distance, so 1e-6 leaves the point within about 1e-3 of
  // each range from the optimum; the solver's default 1e-4 would allow 1e-2.
  options.absolute_gap = 1e-6;
  options.relative_gap = 1e-6;
  options.feasibility_tolerance = 1e-7;
  options.time_limit_seconds = std::min(context_.seconds_left(), kProjectionTimeLimit);
  const sdk::SolveResult result = solver->solve(model, options);
  if ((result.status != sdk::SolveStatus::Optimal &&
       result.status != sdk::SolveStatus::LimitReached) ||
      result.x.size() != model.num_variables()) {
    context_.debug("{}: projection model not solved: {} {}", id_, sdk::to_string(result.status),
                   result.message);
    return false;
  }
  Eigen::VectorXd y = x;
  for (int c : coordinates_) {
    const auto i = static_cast<std::size_t>(c);
    double v = result.x[static_cast<std::size_t>(x_vars[i])];
    if (space_.is_discrete(i)) v = std::round(v);
    y[c] = std::clamp(v, space_.lower()[c], space_.upper()[c]);
  }
  const double v = violation(y);
  if (!(v <= kProjectionTolerance)) {
    context_.debug("{}: the solver's projection still violates the rows by {}", id_, v);
    return false;
  }
  x = std::move(y);
  return true;
}

}  // namespace arbo::plugins
