// SPDX-License-Identifier: MIT
#include "arbo/sdk/exclusion.hpp"

#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "arbo/sdk/error.hpp"

namespace arbo::sdk {

namespace {

// Number of values of a discrete coordinate (user units for integers); 0 for Real.
double cardinality(const Parameter& p) {
  switch (p.type) {
    case ParamType::Binary: return 2.0;
    case ParamType::Categorical: return static_cast<double>(p.choices.size());
    case ParamType::Integer: return std::floor(p.upper) - std::ceil(p.lower) + 1.0;
    case ParamType::Real: return 0.0;
  }
  return 0.0;
}

void add_rows(const Eigen::MatrixXd& rows, EvaluatedPoints& out) {
  Eigen::VectorXd x;
  for (Eigen::Index i = 0; i < rows.rows(); ++i) {
    x = rows.row(i).transpose();
    out.insert(x);
  }
}

enum class CutForm { Binary, Indicators, Disjunction };

}  // namespace

std::string first_continuous_parameter(const Space& space) {
  for (std::size_t i = 0; i < space.size(); ++i) {
    if (space[i].type == ParamType::Real) return space[i].name;
  }
  return {};
}

std::size_t count_points(const Space& space, std::size_t limit) {
  double n = 1.0;
  for (std::size_t i = 0; i < space.size(); ++i) {
    const double c = cardinality(space[i]);
    if (c <= 0.0) return 0;
    n *= c;
    if (n > static_cast<double>(limit)) return 0;
  }
  return static_cast<std::size_t>(n);
}

void point_at(const Space& space, std::size_t index, Eigen::VectorXd& x) {
  x.resize(static_cast<Eigen::Index>(space.size()));
  for (std::size_t i = 0; i < space.size(); ++i) {
    const Parameter& p = space[i];
    const double c = cardinality(p);
    if (c <= 0.0) {
      throw InvalidArgument(
          fmt::format("parameter '{}' is real: its points cannot be enumerated", p.name));
    }
    const auto n = static_cast<std::size_t>(c);
    const auto k = static_cast<double>(index % n);
    index /= n;
    double v = k;
    if (p.type == ParamType::Integer) {
      v = std::ceil(p.lower) + k;
      if (p.log_scale) v = std::log(v);
    }
    x[static_cast<Eigen::Index>(i)] = v;
  }
  space.snap(x);
}

EvaluatedPoints::EvaluatedPoints(const Dataset& data) {
  points_.reserve(
      static_cast<std::size_t>(data.X.rows() + data.X_failed.rows() + data.X_pending.rows()));
  add_rows(data.X, *this);
  add_rows(data.X_failed, *this);
  add_rows(data.X_pending, *this);
}

std::size_t EvaluatedPoints::Hash::operator()(const std::vector<double>& v) const noexcept {
  std::size_t h = 1469598103934665603ULL;
  for (double d : v) {
    if (d == 0.0) d = 0.0;  // -0.0 and 0.0 are the same coordinate
    std::uint64_t bits = 0;
    std::memcpy(&bits, &d, sizeof bits);
    h ^= static_cast<std::size_t>(bits + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
  }
  return h;
}

void EvaluatedPoints::insert(const Eigen::VectorXd& x) {
  points_.emplace(x.data(), x.data() + x.size());
}

bool EvaluatedPoints::contains(const Eigen::VectorXd& x) const {
  if (points_.empty()) return false;
  probe_.assign(x.data(), x.data() + x.size());
  return points_.count(probe_) > 0;
}

std::size_t add_exclusion_cuts(Model& model, const PointVariables& point, const Space& space,
                               const Eigen::MatrixXd& points) {
  const std::size_t d = space.size();
  if (point.x_vars.size() != d ||
      (points.rows() > 0 && static_cast<std::size_t>(points.cols()) != d)) {
    throw InvalidArgument(
        fmt::format("exclusion cuts: {} point variables and points of dimension {} for a space of "
                    "dimension {}",
                    point.x_vars.size(), points.cols(), d));
  }
  std::vector<CutForm> form(d, CutForm::Binary);
  for (std::size_t i = 0; i < d; ++i) {
    const Parameter& p = space[i];
    if (p.type == ParamType::Real || (p.type == ParamType::Integer && p.log_scale)) {
      throw InvalidArgument(fmt::format(
          "cannot exclude evaluated points on {} parameter '{}': only integer, categorical "
          "and binary coordinates can tell points apart exactly",
          p.type == ParamType::Real ? "real" : "log-scaled integer", p.name));
    }
    if (p.type == ParamType::Binary) continue;
    const bool narrow = cardinality(p) <= kMaxIndicatorValues;
    form[i] = narrow || model.value_indicators(point.x_vars[i]) != nullptr ? CutForm::Indicators
                                                                           : CutForm::Disjunction;
  }
  if (points.rows() == 0) return 0;

  // Indicators the acquisition's blocks did not declare: sum z = 1 and x = sum v z, declared
  // so that a later block (or the next cut) reuses them.
  for (std::size_t i = 0; i < d; ++i) {
    const int xv = point.x_vars[i];
    if (form[i] != CutForm::Indicators || model.value_indicators(xv) != nullptr) continue;
    const auto ii = static_cast<Eigen::Index>(i);
    ValueIndicators ind;
    ind.var = xv;
    LinearRow one{fmt::format("ex_onehot_{}", i), {}, RowSense::Equal, 1.0};
    LinearRow link{fmt::format("ex_link_{}", i), {{xv, 1.0}}, RowSense::Equal, 0.0};
    const auto lo = static_cast<std::int64_t>(std::llround(space.lower()[ii]));
    const auto hi = static_cast<std::int64_t>(std::llround(space.upper()[ii]));
    for (std::int64_t v = lo; v <= hi; ++v) {
      const int z = model.add_variable(fmt::format("ex_z_{}_{}", i, v), VarType::Binary, 0.0, 1.0);
      ind.values.push_back(static_cast<double>(v));
      ind.binaries.push_back(z);
      one.terms.push_back({z, 1.0});
      if (v != 0) link.terms.push_back({z, -static_cast<double>(v)});
    }
    model.add_linear_row(std::move(one));
    model.add_linear_row(std::move(link));
    model.declare_value_indicators(std::move(ind));
  }

  for (Eigen::Index r = 0; r < points.rows(); ++r) {
    // sum over coordinates of "differs from the point" >= 1
    LinearRow cut{fmt::format("ex_nogood_{}", r), {}, RowSense::GreaterEqual, 1.0};
    bool trivially_satisfied = false;
    for (std::size_t i = 0; i < d && !trivially_satisfied; ++i) {
      const int xv = point.x_vars[i];
      const double v = points(r, static_cast<Eigen::Index>(i));
      switch (form[i]) {
        case CutForm::Binary:
          if (v > 0.5) {
            cut.terms.push_back({xv, -1.0});  // 1 - x
            cut.rhs -= 1.0;
          } else {
            cut.terms.push_back({xv, 1.0});
          }
          break;
        case CutForm::Indicators: {
          const ValueIndicators& ind = *model.value_indicators(xv);
          std::size_t k = 0;
          while (k < ind.values.size() && std::abs(ind.values[k] - v) > 1e-9) ++k;
          // A value outside the indicators' list is one no point of the model takes: every
          // model point differs from this one already.
          if (k == ind.values.size()) {
            trivially_satisfied = true;
            break;
          }
          cut.terms.push_back({ind.binaries[k], -1.0});  // 1 - z
          cut.rhs -= 1.0;
          break;
        }
        case CutForm::Disjunction: {
          const Variable& var = model.variables()[static_cast<std::size_t>(xv)];
          const double lo = var.lower;
          const double hi = var.upper;
          if (v + 1.0 <= hi) {  // up = 1 forces x >= v + 1
            const int up =
                model.add_variable(fmt::format("ex_up_{}_{}", r, i), VarType::Binary, 0.0, 1.0);
            model.add_linear_row({fmt::format("ex_up_{}_{}", r, i),
                                  {{xv, 1.0}, {up, -(v + 1.0 - lo)}},
                                  RowSense::GreaterEqual,
                                  lo});
            cut.terms.push_back({up, 1.0});
          }
          if (v - 1.0 >= lo) {  // down = 1 forces x <= v - 1
            const int down =
                model.add_variable(fmt::format("ex_down_{}_{}", r, i), VarType::Binary, 0.0, 1.0);
            model.add_linear_row({fmt::format("ex_down_{}_{}", r, i),
                                  {{xv, 1.0}, {down, hi - v + 1.0}},
                                  RowSense::LessEqual,
                                  hi});
            cut.terms.push_back({down, 1.0});
          }
          break;
        }
      }
    }
    if (!trivially_satisfied) model.add_linear_row(std::move(cut));
  }
  return static_cast<std::size_t>(points.rows());
}

std::size_t add_exclusion_cuts(Model& model, const PointVariables& point, const Space& space,
                               const Dataset& data) {
  return add_exclusion_cuts(model, point, space, data.X) +
         add_exclusion_cuts(model, point, space, data.X_failed) +
         add_exclusion_cuts(model, point, space, data.X_pending);
}

}  // namespace arbo::sdk
