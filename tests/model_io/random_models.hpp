// SPDX-License-Identifier: MIT
// Random models for the LP-format tests: awkward names and values, every bound shape.
#pragma once

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <Eigen/Core>

#include "arbo/sdk/model.hpp"

namespace arbo::test {

enum class QuadKind { None, Convex, Nonconvex };

struct RandomModelSpec {
  int variables = 6;
  int linear_rows = 4;
  int quadratic_rows = 0;
  bool integers = false;  ///< some Integer and Binary variables
  QuadKind quad = QuadKind::None;
  bool quadratic_objective = false;
  bool awkward_names = true;  ///< names the writer must sanitize or deduplicate
};

/// Names a reader could misread: keywords, operators, numbers, non-ASCII, duplicates, empty.
inline const std::vector<std::string>& awkward_names() {
  static const std::vector<std::string> names{"x",
                                              "x[1]",
                                              "y.z(2)",
                                              "end",
                                              "free",
                                              "Subject",
                                              "e12",
                                              "3d",
                                              ".dot",
                                              "/slash",
                                              "with space",
                                              "a:b",
                                              "\xc3\xbcnicode",
                                              "",
                                              "x",
                                              "obj_constant",
                                              std::string(300, 'n'),
                                              "inf",
                                              "st",
                                              "bin",
                                              "x#1",
                                              "a{b}|c~",
                                              "q\"s'",
                                              "tab\tname",
                                              "-minus",
                                              "+plus",
                                              "a^b*c",
                                              "[br]",
                                              "Bounds",
                                              "MAX",
                                              "s.t.",
                                              "x_2",
                                              "no_constraints"};
  return names;
}

/// A coefficient with an awkward binary representation or magnitude, never zero.
inline double awkward_value(std::mt19937_64& rng) {
  std::uniform_int_distribution<int> pick(0, 9);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  switch (pick(rng)) {
    case 0: return 1.0;
    case 1: return -1.0;
    case 2: return 1.0 / 3.0;
    case 3: return -2.5e10 * (1.0 + std::abs(u(rng)));
    case 4: return 1e-7 * (1.0 + std::abs(u(rng)));
    case 5: return 0.1 + 0.2;
    default: {
      const double v = u(rng) * std::pow(10.0, std::uniform_int_distribution<int>(-3, 3)(rng));
      return v == 0.0 ? 0.5 : v;
    }
  }
}

/// A moderate nonzero coefficient (for models that are solved, not only written).
inline double moderate_value(std::mt19937_64& rng) {
  const double v = std::round(std::uniform_real_distribution<double>(-10, 10)(rng) * 8) / 8;
  return v == 0.0 ? 0.375 : v;
}

/// Symmetric PSD matrix as quadratic terms over `vars` (x'Qx), scaled by `sign`.
inline std::vector<sdk::QuadTerm> psd_terms(std::mt19937_64& rng, const std::vector<int>& vars,
                                            double sign) {
  const auto k = static_cast<Eigen::Index>(vars.size());
  std::normal_distribution<double> g;
  Eigen::MatrixXd l(k, std::max<Eigen::Index>(1, k - 1));
  for (Eigen::Index i = 0; i < l.rows(); ++i) {
    for (Eigen::Index j = 0; j < l.cols(); ++j) l(i, j) = g(rng);
  }
  const Eigen::MatrixXd q = l * l.transpose();
  std::vector<sdk::QuadTerm> terms;
  for (Eigen::Index i = 0; i < k; ++i) {
    for (Eigen::Index j = i; j < k; ++j) {
      const double c = (i == j ? 1.0 : 2.0) * q(i, j) * sign;
      if (c != 0.0)
        terms.push_back({vars[static_cast<std::size_t>(i)], vars[static_cast<std::size_t>(j)], c});
    }
  }
  return terms;
}

inline std::vector<int> random_subset(std::mt19937_64& rng, int n, int max_size) {
  std::vector<int> all(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) all[static_cast<std::size_t>(i)] = i;
  std::shuffle(all.begin(), all.end(), rng);
  const int size = std::uniform_int_distribution<int>(1, std::max(1, std::min(n, max_size)))(rng);
  all.resize(static_cast<std::size_t>(size));
  return all;
}

/// A random model exercising every construct of the format. Not necessarily feasible.
inline sdk::Model random_model(std::mt19937_64& rng, const RandomModelSpec& spec) {
  using namespace arbo::sdk;
  Model m;
  std::uniform_int_distribution<int> coin(0, 1);
  std::uniform_int_distribution<int> die(0, 9);
  const auto& pool = awkward_names();
  for (int i = 0; i < spec.variables; ++i) {
    std::string name =
        spec.awkward_names && die(rng) < 6
            ? pool[std::uniform_int_distribution<std::size_t>(0, pool.size() - 1)(rng)]
            : fmt::format("v{}", i);
    VarType type = VarType::Continuous;
    if (spec.integers) {
      const int t = die(rng);
      type = t < 3 ? VarType::Integer : t < 6 ? VarType::Binary : VarType::Continuous;
    }
    double lo = 0.0, hi = kInfinity;
    switch (die(rng)) {
      case 0: break;  // default [0, inf)
      case 1: lo = -kInfinity; break;
      case 2:
        lo = -kInfinity;
        hi = -std::abs(awkward_value(rng));
        break;
      case 3: lo = -std::abs(awkward_value(rng)); break;
      case 4: lo = hi = awkward_value(rng); break;
      case 5: hi = std::abs(awkward_value(rng)); break;
      default: {
        const double a = awkward_value(rng), b = awkward_value(rng);
        lo = std::min(a, b);
        hi = std::max(a, b);
      }
    }
    if (type == VarType::Binary) {
      const int b = die(rng);
      lo = b == 0 ? 1.0 : 0.0;  // sometimes fixed at 1 or 0
      hi = b == 1 ? 0.0 : 1.0;
    }
    m.add_variable(std::move(name), type, lo, hi);
  }
  const int n = spec.variables;
  const auto linear_terms = [&](int max_size) {
    std::vector<LinearTerm> terms;
    for (int v : random_subset(rng, n, max_size)) terms.push_back({v, awkward_value(rng)});
    if (die(rng) == 0) terms.push_back({terms.front().var, awkward_value(rng)});  // duplicate
    return terms;
  };
  const auto sense = [&] {
    const int s = die(rng);
    return s < 4 ? RowSense::LessEqual : s < 8 ? RowSense::GreaterEqual : RowSense::Equal;
  };
  const auto row_name = [&](int k) {
    return spec.awkward_names && die(rng) < 5
               ? pool[std::uniform_int_distribution<std::size_t>(0, pool.size() - 1)(rng)]
               : fmt::format("r{}", k);
  };
  for (int k = 0; k < spec.linear_rows; ++k) {
    LinearRow r{row_name(k), die(rng) == 0 ? std::vector<LinearTerm>{} : linear_terms(30), sense(),
                awkward_value(rng)};
    m.add_linear_row(std::move(r));
  }
  for (int k = 0; k < spec.quadratic_rows; ++k) {
    QuadraticRow q;
    q.name = row_name(k);
    const auto vars = random_subset(rng, n, 5);
    if (spec.quad == QuadKind::Convex) {
      q.quad = psd_terms(rng, vars, 1.0);
      q.sense = RowSense::LessEqual;
      q.convex = true;
    } else {
      // Indefinite by construction: squares of both signs on the diagonal (a PSD matrix has
      // a nonnegative diagonal, an NSD one a nonpositive one), so that no sense makes the row
      // convex and the reader keeps it as written.
      if (vars.size() >= 2) {
        for (std::size_t a = 0; a < vars.size(); ++a) {
          for (std::size_t b = 0; b < vars.size(); ++b) {
            if (a != b && die(rng) < 3) q.quad.push_back({vars[a], vars[b], awkward_value(rng)});
          }
        }
        q.quad.push_back({vars[0], vars[0], std::abs(awkward_value(rng))});
        q.quad.push_back({vars[1], vars[1], -std::abs(awkward_value(rng))});
        q.sense = sense();
      } else {
        q.quad.push_back({vars[0], vars[0], -std::abs(awkward_value(rng))});
        q.sense = coin(rng) ? RowSense::LessEqual : RowSense::Equal;
      }
    }
    if (coin(rng)) q.linear = linear_terms(4);
    q.rhs = std::abs(awkward_value(rng));
    m.add_quadratic_row(std::move(q));
  }
  Objective obj;
  obj.sense = coin(rng) ? ObjectiveSense::Maximize : ObjectiveSense::Minimize;
  if (die(rng) != 0) obj.linear = linear_terms(n);
  if (spec.quadratic_objective) {
    const auto vars = random_subset(rng, n, 4);
    if (spec.quad == QuadKind::Convex) {
      obj.quad = psd_terms(rng, vars, obj.sense == ObjectiveSense::Minimize ? 1.0 : -1.0);
    } else {
      for (int a : vars) obj.quad.push_back({a, vars.front(), awkward_value(rng)});
    }
  }
  obj.constant = coin(rng) ? awkward_value(rng) : 0.0;
  m.set_objective(std::move(obj));
  return m;
}

/// A point near the model's bounds (sometimes outside), integers where the type asks.
inline std::vector<double> random_point(std::mt19937_64& rng, const sdk::Model& m) {
  std::vector<double> x;
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  for (const auto& v : m.variables()) {
    double lo = std::isfinite(v.lower) ? v.lower : -5.0;
    double hi = std::isfinite(v.upper) ? v.upper : lo + 10.0;
    if (!std::isfinite(v.lower) && std::isfinite(v.upper)) lo = hi - 10.0;
    double value = lo + (hi - lo) * (u(rng) + 3.0) / 6.0 + 0.1 * u(rng);
    if (v.type != sdk::VarType::Continuous && u(rng) > -2.0) value = std::round(value);
    x.push_back(value);
  }
  return x;
}

}  // namespace arbo::test
