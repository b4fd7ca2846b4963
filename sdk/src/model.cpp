// SPDX-License-Identifier: MIT
#include "arbo/sdk/model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "arbo/sdk/error.hpp"

namespace arbo::sdk {

const char* to_string(RowSense sense) noexcept {
  switch (sense) {
    case RowSense::LessEqual: return "<=";
    case RowSense::GreaterEqual: return ">=";
    case RowSense::Equal: return "=";
  }
  return "?";
}

const char* to_string(SolveStatus status) noexcept {
  switch (status) {
    case SolveStatus::Optimal: return "optimal";
    case SolveStatus::LimitReached: return "limit reached";
    case SolveStatus::Infeasible: return "infeasible";
    case SolveStatus::Unbounded: return "unbounded";
    case SolveStatus::Error: return "error";
  }
  return "unknown";
}

double ModelEvaluation::max_violation() const {
  return std::max({max_bound_violation, max_integrality_violation, max_row_violation});
}

int Model::add_variable(std::string name, VarType type, double lower, double upper) {
  if (std::isnan(lower) || std::isnan(upper) || lower > upper) {
    throw InvalidArgument(
        fmt::format("Model::add_variable(): '{}' has invalid bounds [{}, {}]", name, lower, upper));
  }
  if (type == VarType::Binary) {
    lower = std::max(lower, 0.0);
    upper = std::min(upper, 1.0);
    if (lower > upper) {
      throw InvalidArgument(fmt::format(
          "Model::add_variable(): binary '{}' has bounds that exclude both 0 and 1", name));
    }
  }
  vars_.push_back(Variable{std::move(name), type, lower, upper});
  return static_cast<int>(vars_.size() - 1);
}

void Model::check_terms(const std::vector<LinearTerm>& terms, const std::string& where) const {
  for (const auto& t : terms) {
    if (t.var < 0 || static_cast<std::size_t>(t.var) >= vars_.size()) {
      throw InvalidArgument(fmt::format("Model: {} references unknown variable {}", where, t.var));
    }
    if (!std::isfinite(t.coef)) {
      throw InvalidArgument(fmt::format("Model: {} has a non-finite coefficient", where));
    }
  }
}

void Model::check_terms(const std::vector<QuadTerm>& terms, const std::string& where) const {
  for (const auto& t : terms) {
    for (int v : {t.var1, t.var2}) {
      if (v < 0 || static_cast<std::size_t>(v) >= vars_.size()) {
        throw InvalidArgument(fmt::format("Model: {} references unknown variable {}", where, v));
      }
    }
    if (!std::isfinite(t.coef)) {
      throw InvalidArgument(fmt::format("Model: {} has a non-finite coefficient", where));
    }
  }
}

int Model::add_linear_row(LinearRow row) {
  const std::string where = fmt::format("linear row '{}'", row.name);
  check_terms(row.terms, where);
  if (std::isnan(row.rhs)) throw InvalidArgument(fmt::format("Model: {} has a NaN rhs", where));
  linear_.push_back(std::move(row));
  return static_cast<int>(linear_.size() - 1);
}

int Model::add_quadratic_row(QuadraticRow row) {
  const std::string where = fmt::format("quadratic row '{}'", row.name);
  check_terms(row.quad, where);
  check_terms(row.linear, where);
  if (std::isnan(row.rhs)) throw InvalidArgument(fmt::format("Model: {} has a NaN rhs", where));
  if (row.convex && row.sense != RowSense::LessEqual) {
    throw InvalidArgument(fmt::format("Model: {} is declared convex but is not a <= row", where));
  }
  quadratic_.push_back(std::move(row));
  return static_cast<int>(quadratic_.size() - 1);
}

void Model::set_objective(Objective objective) {
  check_terms(objective.linear, "objective");
  check_terms(objective.quad, "objective");
  if (std::isinf(objective.offset)) {
    throw InvalidArgument(
        fmt::format("objective offset {} is not finite (NaN declares none)", objective.offset));
  }
  objective_ = std::move(objective);
}

void Model::declare_value_indicators(ValueIndicators indicators) {
  const auto known = [&](int v) { return v >= 0 && static_cast<std::size_t>(v) < vars_.size(); };
  if (!known(indicators.var)) {
    throw InvalidArgument(
        fmt::format("value indicators of unknown variable index {}", indicators.var));
  }
  if (indicators.values.size() != indicators.binaries.size()) {
    throw InvalidArgument(
        fmt::format("value indicators of variable '{}': {} values but {} binaries",
                    vars_[static_cast<std::size_t>(indicators.var)].name, indicators.values.size(),
                    indicators.binaries.size()));
  }
  for (const int b : indicators.binaries) {
    if (!known(b) || vars_[static_cast<std::size_t>(b)].type != VarType::Binary) {
      throw InvalidArgument(fmt::format(
          "value indicators of variable '{}': variable index {} is not a binary variable",
          vars_[static_cast<std::size_t>(indicators.var)].name, b));
    }
  }
  for (ValueIndicators& old : indicators_) {
    if (old.var == indicators.var) {
      old = std::move(indicators);
      return;
    }
  }
  indicators_.push_back(std::move(indicators));
}

const ValueIndicators* Model::value_indicators(int var) const noexcept {
  for (const ValueIndicators& v : indicators_) {
    if (v.var == var) return &v;
  }
  return nullptr;
}

std::optional<int> Model::find_variable(std::string_view name) const {
  for (std::size_t i = 0; i < vars_.size(); ++i) {
    if (vars_[i].name == name) return static_cast<int>(i);
  }
  return std::nullopt;
}

bool Model::is_linear() const noexcept { return quadratic_.empty() && objective_.quad.empty(); }

bool Model::has_integers() const noexcept {
  return std::any_of(vars_.begin(), vars_.end(),
                     [](const Variable& v) { return v.type != VarType::Continuous; });
}

namespace {

double linear_value(const std::vector<LinearTerm>& terms, const std::vector<double>& x) {
  double s = 0;
  for (const auto& t : terms) s += t.coef * x[static_cast<std::size_t>(t.var)];
  return s;
}

double quad_value(const std::vector<QuadTerm>& terms, const std::vector<double>& x) {
  double s = 0;
  for (const auto& t : terms) {
    s += t.coef * x[static_cast<std::size_t>(t.var1)] * x[static_cast<std::size_t>(t.var2)];
  }
  return s;
}

double row_violation(RowSense sense, double activity, double rhs) {
  switch (sense) {
    case RowSense::LessEqual: return std::max(0.0, activity - rhs);
    case RowSense::GreaterEqual: return std::max(0.0, rhs - activity);
    case RowSense::Equal: return std::abs(activity - rhs);
  }
  return 0.0;
}

}  // namespace

ModelEvaluation Model::evaluate(const std::vector<double>& x) const {
  if (x.size() != vars_.size()) {
    throw InvalidArgument(
        fmt::format("Model::evaluate(): point has {} entries, model has {} "
                    "variables",
                    x.size(), vars_.size()));
  }
  ModelEvaluation e;
  for (std::size_t i = 0; i < vars_.size(); ++i) {
    const Variable& v = vars_[i];
    e.max_bound_violation = std::max({e.max_bound_violation, v.lower - x[i], x[i] - v.upper, 0.0});
    if (v.type != VarType::Continuous) {
      e.max_integrality_violation =
          std::max(e.max_integrality_violation, std::abs(x[i] - std::round(x[i])));
    }
  }
  e.objective =
      objective_.constant + linear_value(objective_.linear, x) + quad_value(objective_.quad, x);
  e.linear_activity.reserve(linear_.size());
  for (const auto& row : linear_) {
    const double a = linear_value(row.terms, x);
    e.linear_activity.push_back(a);
    e.max_row_violation = std::max(e.max_row_violation, row_violation(row.sense, a, row.rhs));
  }
  e.quadratic_activity.reserve(quadratic_.size());
  for (const auto& row : quadratic_) {
    const double a = linear_value(row.linear, x) + quad_value(row.quad, x);
    e.quadratic_activity.push_back(a);
    e.max_row_violation = std::max(e.max_row_violation, row_violation(row.sense, a, row.rhs));
  }
  return e;
}

PointVariables add_point_variables(Model& model, const Space& space) {
  PointVariables pv;
  pv.x_vars.reserve(space.size());
  for (std::size_t i = 0; i < space.size(); ++i) {
    const Parameter& p = space[i];
    const auto ii = static_cast<Eigen::Index>(i);
    VarType type = VarType::Continuous;
    if (p.type == ParamType::Binary) {
      type = VarType::Binary;
    } else if (p.type == ParamType::Categorical || (p.type == ParamType::Integer && !p.log_scale)) {
      type = VarType::Integer;
    }
    pv.x_vars.push_back(model.add_variable(p.name, type, space.lower()[ii], space.upper()[ii]));
  }
  return pv;
}

std::vector<double> point_start(const Model& model, const PointVariables& point,
                                const Eigen::VectorXd& x) {
  if (static_cast<std::size_t>(x.size()) != point.x_vars.size()) {
    throw InvalidArgument(fmt::format("a start point has {} coordinates, the model's point has {}",
                                      x.size(), point.x_vars.size()));
  }
  std::vector<double> start(model.num_variables(), std::numeric_limits<double>::quiet_NaN());
  for (std::size_t i = 0; i < point.x_vars.size(); ++i) {
    start[static_cast<std::size_t>(point.x_vars[i])] = x[static_cast<Eigen::Index>(i)];
  }
  return start;
}

}  // namespace arbo::sdk
