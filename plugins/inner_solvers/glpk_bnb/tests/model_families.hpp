// SPDX-License-Identifier: MIT
/// @file
/// @brief Model families shared by the glpk_bnb tests and bench/solver: random MILPs, convex
/// MIQCPs with an exact brute-force reference, and the nonconvex benchmark problems (G1, G3,
/// G4, G6, G7, G10, Pressure Vessel) written as models.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <glpk.h>

#include <arbo/sdk/error.hpp>
#include <arbo/sdk/model.hpp>

namespace arbo::glpk_test {

using sdk::LinearRow;
using sdk::LinearTerm;
using sdk::Model;
using sdk::Objective;
using sdk::ObjectiveSense;
using sdk::QuadraticRow;
using sdk::QuadTerm;
using sdk::RowSense;
using sdk::VarType;

/// A feasible, bounded random MILP: `n` variables (binary, general integer, continuous), `m`
/// rows built around a random integral point so that the model is feasible.
inline Model random_milp(std::uint64_t seed, int n, int m) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  auto randint = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Model model;
  std::vector<double> point;
  for (int j = 0; j < n; ++j) {
    const double r = u01(rng);
    if (r < 0.4) {
      model.add_variable("b" + std::to_string(j), VarType::Binary, 0, 1);
      point.push_back(randint(0, 1));
    } else if (r < 0.7) {
      const int lo = randint(-3, 0), up = randint(1, 10);
      model.add_variable("i" + std::to_string(j), VarType::Integer, lo, up);
      point.push_back(randint(lo, up));
    } else {
      const double lo = -5.0 * u01(rng), up = 1.0 + 14.0 * u01(rng);
      model.add_variable("c" + std::to_string(j), VarType::Continuous, lo, up);
      point.push_back(lo + (up - lo) * u01(rng));
    }
  }
  for (int i = 0; i < m; ++i) {
    LinearRow row;
    row.name = "r" + std::to_string(i);
    double activity = 0.0;
    for (int j = 0; j < n; ++j) {
      if (u01(rng) > 0.6) continue;
      const int a = randint(-6, 6);
      if (a == 0) continue;
      row.terms.push_back({j, static_cast<double>(a)});
      activity += a * point[static_cast<std::size_t>(j)];
    }
    if (row.terms.empty()) continue;
    const double r = u01(rng);
    if (r < 0.7) {
      row.sense = RowSense::LessEqual;
      row.rhs = std::floor(activity + 5.0 * u01(rng));
      if (row.rhs < activity) row.rhs += 1.0;
    } else if (r < 0.9) {
      row.sense = RowSense::GreaterEqual;
      row.rhs = std::ceil(activity - 5.0 * u01(rng));
      if (row.rhs > activity) row.rhs -= 1.0;
    } else {
      row.sense = RowSense::Equal;
      row.rhs = activity;
    }
    model.add_linear_row(row);
  }
  Objective obj;
  obj.sense = u01(rng) < 0.5 ? ObjectiveSense::Minimize : ObjectiveSense::Maximize;
  for (int j = 0; j < n; ++j)
    obj.linear.push_back({j, std::round(200.0 * u01(rng) - 100.0) / 10.0});
  obj.constant = 1.5;
  model.set_objective(obj);
  return model;
}

/// Convex MIQCP with `k` binaries z and k continuous y:
///   min sum_i (y_i - c_i)^2 + q'z
///   s.t. 0 <= y_i <= u_i z_i, sum_i y_i^2 <= R (a convex row), w'z <= W (knapsack).
/// For fixed z the continuous part is the projection of c onto a box intersected with a ball,
/// which `convex_miqcp_reference` solves exactly by bisection on the ball's multiplier.
struct ConvexMiqcp {
  Model model;
  std::vector<double> c, u, q, w;
  double R = 0.0, W = 0.0;
};

inline ConvexMiqcp convex_miqcp(std::uint64_t seed, int k) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  ConvexMiqcp p;
  for (int i = 0; i < k; ++i) {
    p.c.push_back(0.5 + 3.0 * u01(rng));
    p.u.push_back(1.0 + 2.0 * u01(rng));
    // Opening costs comparable to the gain c_i^2, so that the choice is not obvious.
    p.q.push_back(-2.0 + 8.0 * u01(rng));
    p.w.push_back(1.0 + 4.0 * u01(rng));
  }
  double wsum = 0, csum = 0;
  for (int i = 0; i < k; ++i) {
    wsum += p.w[static_cast<std::size_t>(i)];
    csum += p.c[static_cast<std::size_t>(i)] * p.c[static_cast<std::size_t>(i)];
  }
  p.W = 0.5 * wsum;
  p.R = 0.3 * csum;
  Model& m = p.model;
  std::vector<int> z, y;
  for (int i = 0; i < k; ++i)
    z.push_back(m.add_variable("z" + std::to_string(i), VarType::Binary, 0, 1));
  for (int i = 0; i < k; ++i) {
    y.push_back(m.add_variable("y" + std::to_string(i), VarType::Continuous, 0,
                               p.u[static_cast<std::size_t>(i)]));
  }
  for (int i = 0; i < k; ++i) {
    m.add_linear_row({"link" + std::to_string(i),
                      {{y[static_cast<std::size_t>(i)], 1.0},
                       {z[static_cast<std::size_t>(i)], -p.u[static_cast<std::size_t>(i)]}},
                      RowSense::LessEqual,
                      0.0});
  }
  LinearRow knap{"knapsack", {}, RowSense::LessEqual, p.W};
  for (int i = 0; i < k; ++i)
    knap.terms.push_back({z[static_cast<std::size_t>(i)], p.w[static_cast<std::size_t>(i)]});
  m.add_linear_row(knap);
  QuadraticRow ball;
  ball.name = "ball";
  ball.rhs = p.R;
  ball.convex = true;
  for (int i = 0; i < k; ++i)
    ball.quad.push_back({y[static_cast<std::size_t>(i)], y[static_cast<std::size_t>(i)], 1.0});
  m.add_quadratic_row(ball);
  Objective obj;
  double constant = 0;
  for (int i = 0; i < k; ++i) {
    const auto s = static_cast<std::size_t>(i);
    obj.quad.push_back({y[s], y[s], 1.0});
    obj.linear.push_back({y[s], -2.0 * p.c[s]});
    obj.linear.push_back({z[s], p.q[s]});
    constant += p.c[s] * p.c[s];
  }
  obj.constant = constant;
  m.set_objective(obj);
  return p;
}

/// Exact optimum of `convex_miqcp` by enumerating every z.
inline double convex_miqcp_reference(const ConvexMiqcp& p) {
  const auto k = p.c.size();
  double best = std::numeric_limits<double>::infinity();
  std::vector<double> ub(k);
  for (std::uint64_t mask = 0; mask < (std::uint64_t{1} << k); ++mask) {
    double wz = 0, qz = 0;
    for (std::size_t i = 0; i < k; ++i) {
      const bool on = (mask >> i) & 1u;
      ub[i] = on ? p.u[i] : 0.0;
      if (on) {
        wz += p.w[i];
        qz += p.q[i];
      }
    }
    if (wz > p.W) continue;
    // y(lambda) = clamp(c / (1 + lambda), 0, ub): KKT point of the box + ball projection.
    auto y_norm2 = [&](double lambda) {
      double s = 0;
      for (std::size_t i = 0; i < k; ++i) {
        const double v = std::clamp(p.c[i] / (1.0 + lambda), 0.0, ub[i]);
        s += v * v;
      }
      return s;
    };
    double lambda = 0.0;
    if (y_norm2(0.0) > p.R) {
      double lo = 0.0, hi = 1.0;
      while (y_norm2(hi) > p.R) hi *= 2.0;
      for (int it = 0; it < 200; ++it) {
        const double mid = 0.5 * (lo + hi);
        (y_norm2(mid) > p.R ? lo : hi) = mid;
      }
      lambda = hi;
    }
    double f = qz;
    for (std::size_t i = 0; i < k; ++i) {
      const double v = std::clamp(p.c[i] / (1.0 + lambda), 0.0, ub[i]);
      f += (v - p.c[i]) * (v - p.c[i]);
    }
    best = std::min(best, f);
  }
  return best;
}

/// A benchmark problem with its literature optimum (minimization).
struct KnownProblem {
  std::string name;
  Model model;
  double optimum = 0.0;
};

namespace detail {
inline int var(Model& m, const std::string& name, double lo, double up,
               VarType type = VarType::Continuous) {
  return m.add_variable(name, type, lo, up);
}
// w = a * b as a quadratic equality row.
inline void define_product(Model& m, int w, int a, int b, const std::string& name) {
  QuadraticRow r;
  r.name = name;
  r.quad = {{a, b, 1.0}};
  r.linear = {{w, -1.0}};
  r.sense = RowSense::Equal;
  r.rhs = 0.0;
  m.add_quadratic_row(r);
}
}  // namespace detail

/// G1 (Hedar's form, g6 = -8 x2 + x11): concave quadratic objective, linear rows. f* = -15.
inline KnownProblem g1() {
  KnownProblem p{"G1", {}, -15.0};
  Model& m = p.model;
  for (int i = 0; i < 13; ++i) {
    const double up = (i >= 9 && i <= 11) ? 100.0 : 1.0;
    m.add_variable("x" + std::to_string(i), VarType::Continuous, 0.0, up);
  }
  auto row = [&](std::vector<LinearTerm> t, double rhs) {
    m.add_linear_row({"g", std::move(t), RowSense::LessEqual, rhs});
  };
  row({{0, 2}, {1, 2}, {9, 1}, {10, 1}}, 10);
  row({{0, 2}, {2, 2}, {9, 1}, {11, 1}}, 10);
  row({{1, 2}, {2, 2}, {10, 1}, {11, 1}}, 10);
  row({{0, -8}, {9, 1}}, 0);
  row({{1, -8}, {10, 1}}, 0);
  row({{2, -8}, {11, 1}}, 0);
  row({{3, -2}, {4, -1}, {9, 1}}, 0);
  row({{5, -2}, {6, -1}, {10, 1}}, 0);
  row({{7, -2}, {8, -1}, {11, 1}}, 0);
  Objective obj;
  for (int i = 0; i < 4; ++i) {
    obj.linear.push_back({i, 5.0});
    obj.quad.push_back({i, i, -5.0});
  }
  for (int i = 4; i < 13; ++i) obj.linear.push_back({i, -1.0});
  m.set_objective(obj);
  return p;
}

/// G3: min -(sqrt 5)^5 prod x_i s.t. sum x_i^2 = 1, x in [0,1]^5; the degree-5 product is
/// lifted to a chain of bilinear equalities. f* = -1.
inline KnownProblem g3() {
  KnownProblem p{"G3", {}, -1.0};
  Model& m = p.model;
  for (int i = 0; i < 5; ++i) m.add_variable("x" + std::to_string(i), VarType::Continuous, 0, 1);
  int prev = 0;
  for (int i = 1; i < 4; ++i) {
    const int w = detail::var(m, "p" + std::to_string(i), 0, 1);
    detail::define_product(m, w, prev, i, "lift" + std::to_string(i));
    prev = w;
  }
  QuadraticRow h{"h", {}, {}, RowSense::Equal, 1.0, false};
  for (int i = 0; i < 5; ++i) h.quad.push_back({i, i, 1.0});
  m.add_quadratic_row(h);
  Objective obj;
  obj.quad.push_back({prev, 4, -std::pow(std::sqrt(5.0), 5)});
  m.set_objective(obj);
  return p;
}

/// G4: bilinear objective and rows. f* = -30665.539.
inline KnownProblem g4() {
  KnownProblem p{"G4", {}, -30665.538671783};
  Model& m = p.model;
  m.add_variable("x0", VarType::Continuous, 78, 102);
  m.add_variable("x1", VarType::Continuous, 33, 45);
  for (int i = 2; i < 5; ++i) m.add_variable("x" + std::to_string(i), VarType::Continuous, 27, 45);
  auto two_sided = [&](const std::string& name, double c, std::vector<QuadTerm> q, double lo,
                       double up) {
    m.add_quadratic_row({name + "_up", q, {}, RowSense::LessEqual, up - c, false});
    m.add_quadratic_row({name + "_lo", q, {}, RowSense::GreaterEqual, lo - c, false});
  };
  two_sided("u", 85.334407, {{1, 4, 0.0056858}, {0, 3, 0.0006262}, {2, 4, -0.0022053}}, 0, 92);
  two_sided("v", 80.51249, {{1, 4, 0.0071317}, {0, 1, 0.0029955}, {2, 2, 0.0021813}}, 90, 110);
  two_sided("w", 9.300961, {{2, 4, 0.0047026}, {0, 2, 0.0012547}, {2, 3, 0.0019085}}, 20, 25);
  Objective obj;
  obj.quad = {{2, 2, 5.3578547}, {0, 4, 0.8356891}};
  obj.linear = {{0, 37.293239}};
  obj.constant = -40792.141;
  m.set_objective(obj);
  return p;
}

/// G6: cubic objective lifted with squares; two nonconvex quadratic rows. f* = -6961.81388.
inline KnownProblem g6() {
  KnownProblem p{"G6", {}, -6961.81387558015};
  Model& m = p.model;
  const int x0 = m.add_variable("x0", VarType::Continuous, 13, 100);
  const int x1 = m.add_variable("x1", VarType::Continuous, 0, 100);
  // a = x0 - 10, b = x1 - 20, sa = a^2, sb = b^2; f = a sa + b sb.
  const int a = detail::var(m, "a", 3, 90), b = detail::var(m, "b", -20, 80);
  const int sa = detail::var(m, "sa", 9, 8100), sb = detail::var(m, "sb", 0, 6400);
  m.add_linear_row({"def_a", {{a, 1}, {x0, -1}}, RowSense::Equal, -10});
  m.add_linear_row({"def_b", {{b, 1}, {x1, -1}}, RowSense::Equal, -20});
  detail::define_product(m, sa, a, a, "def_sa");
  detail::define_product(m, sb, b, b, "def_sb");
  // -(x0-5)^2 - (x1-5)^2 + 100 <= 0  and  (x0-6)^2 + (x1-5)^2 - 82.81 <= 0.
  m.add_quadratic_row(
      {"g1", {{x0, x0, -1}, {x1, x1, -1}}, {{x0, 10}, {x1, 10}}, RowSense::LessEqual, -50, false});
  m.add_quadratic_row({"g2",
                       {{x0, x0, 1}, {x1, x1, 1}},
                       {{x0, -12}, {x1, -10}},
                       RowSense::LessEqual,
                       82.81 - 61,
                       false});
  Objective obj;
  obj.quad = {{a, sa, 1.0}, {b, sb, 1.0}};
  m.set_objective(obj);
  return p;
}

/// G7: convex quadratic objective and rows (no integer, no nonconvex term). f* = 24.3062091.
inline KnownProblem g7() {
  KnownProblem p{"G7", {}, 24.30620906818};
  Model& m = p.model;
  for (int i = 0; i < 10; ++i)
    m.add_variable("x" + std::to_string(i), VarType::Continuous, -10, 10);
  m.add_linear_row({"g1", {{0, 4}, {1, 5}, {6, -3}, {7, 9}}, RowSense::LessEqual, 105});
  m.add_linear_row({"g2", {{0, 10}, {1, -8}, {6, -17}, {7, 2}}, RowSense::LessEqual, 0});
  m.add_linear_row({"g3", {{0, -8}, {1, 2}, {8, 5}, {9, -2}}, RowSense::LessEqual, 12});
  // 3(x0-2)^2 + 4(x1-3)^2 + 2x2^2 - 7x3 - 120 <= 0
  m.add_quadratic_row({"g4",
                       {{0, 0, 3}, {1, 1, 4}, {2, 2, 2}},
                       {{0, -12}, {1, -24}, {3, -7}},
                       RowSense::LessEqual,
                       120 - 12 - 36,
                       true});
  // 5x0^2 + 8x1 + (x2-6)^2 - 2x3 - 40 <= 0
  m.add_quadratic_row({"g5",
                       {{0, 0, 5}, {2, 2, 1}},
                       {{1, 8}, {2, -12}, {3, -2}},
                       RowSense::LessEqual,
                       40 - 36,
                       true});
  // 0.5(x0-8)^2 + 2(x1-4)^2 + 3x4^2 - x5 - 30 <= 0
  m.add_quadratic_row({"g6",
                       {{0, 0, 0.5}, {1, 1, 2}, {4, 4, 3}},
                       {{0, -8}, {1, -16}, {5, -1}},
                       RowSense::LessEqual,
                       30 - 32 - 32,
                       true});
  // x0^2 + 2(x1-2)^2 - 2x0x1 + 14x4 - 6x5 <= 0
  m.add_quadratic_row({"g7",
                       {{0, 0, 1}, {1, 1, 2}, {0, 1, -2}},
                       {{1, -8}, {4, 14}, {5, -6}},
                       RowSense::LessEqual,
                       -8,
                       true});
  // -3x0 + 6x1 + 12(x8-8)^2 - 7x9 <= 0
  m.add_quadratic_row(
      {"g8", {{8, 8, 12}}, {{0, -3}, {1, 6}, {8, -192}, {9, -7}}, RowSense::LessEqual, -768, true});
  Objective obj;
  obj.quad = {{0, 0, 1}, {1, 1, 1}, {0, 1, 1}, {2, 2, 1}, {3, 3, 4}, {4, 4, 1},
              {5, 5, 2}, {6, 6, 5}, {7, 7, 7}, {8, 8, 2}, {9, 9, 1}};
  obj.linear = {{0, -14}, {1, -16},  {2, -20}, {3, -40}, {4, -6},
                {5, -4},  {7, -154}, {8, -40}, {9, -14}};
  obj.constant = 100 + 100 + 9 + 2 + 847 + 200 + 49 + 45;
  m.set_objective(obj);
  return p;
}

/// G10: linear objective, three bilinear rows over wide boxes. f* = 7049.2480205.
inline KnownProblem g10() {
  KnownProblem p{"G10", {}, 7049.24802052867};
  Model& m = p.model;
  m.add_variable("x0", VarType::Continuous, 100, 10000);
  m.add_variable("x1", VarType::Continuous, 1000, 10000);
  m.add_variable("x2", VarType::Continuous, 1000, 10000);
  for (int i = 3; i < 8; ++i)
    m.add_variable("x" + std::to_string(i), VarType::Continuous, 10, 1000);
  m.add_linear_row({"g1", {{3, 0.0025}, {5, 0.0025}}, RowSense::LessEqual, 1});
  m.add_linear_row({"g2", {{3, -0.0025}, {4, 0.0025}, {6, 0.0025}}, RowSense::LessEqual, 1});
  m.add_linear_row({"g3", {{4, -0.01}, {7, 0.01}}, RowSense::LessEqual, 1});
  m.add_quadratic_row(
      {"g4", {{0, 5, -1}}, {{0, 100}, {3, 833.33252}}, RowSense::LessEqual, 83333.333, false});
  m.add_quadratic_row(
      {"g5", {{1, 3, 1}, {1, 6, -1}}, {{3, -1250}, {4, 1250}}, RowSense::LessEqual, 0, false});
  m.add_quadratic_row(
      {"g6", {{2, 4, 1}, {2, 7, -1}}, {{4, -2500}}, RowSense::LessEqual, -1250000, false});
  m.set_objective({ObjectiveSense::Minimize, {{0, 1}, {1, 1}, {2, 1}}, {}, 0.0});
  return p;
}

/// Pressure Vessel (the standard problem): integer thicknesses in multiples of 0.0625.
/// f* = 6059.714335 (Ts = 0.8125, Th = 0.4375).
inline KnownProblem pressure_vessel() {
  KnownProblem p{"PressureVessel", {}, 6059.71433504844};
  Model& m = p.model;
  const int n1 = m.add_variable("n_s", VarType::Integer, 1, 99);
  const int n2 = m.add_variable("n_h", VarType::Integer, 1, 99);
  const int R = m.add_variable("R", VarType::Continuous, 10, 200);
  const int L = m.add_variable("L", VarType::Continuous, 10, 200);
  const double t = 0.0625;
  const int R2 = detail::var(m, "R2", 100, 40000);
  const int N2 = detail::var(m, "N2", 1, 9801);
  detail::define_product(m, R2, R, R, "def_R2");
  detail::define_product(m, N2, n1, n1, "def_N2");
  // g1: -Ts + 0.0193 R <= 0, g2: -Th + 0.00954 R <= 0.
  m.add_linear_row({"g1", {{n1, -t}, {R, 0.0193}}, RowSense::LessEqual, 0});
  m.add_linear_row({"g2", {{n2, -t}, {R, 0.00954}}, RowSense::LessEqual, 0});
  // g3: -pi R^2 L - 4/3 pi R^3 + 1296000 <= 0, with R^2 lifted.
  m.add_quadratic_row({"g3",
                       {{R2, L, -M_PI}, {R2, R, -4.0 / 3.0 * M_PI}},
                       {},
                       RowSense::LessEqual,
                       -1296000,
                       false});
  // f = 0.6224 Ts R L + 1.7781 Th R^2 + 3.1661 Ts^2 L + 19.84 Ts^2 R; the cubic R L n1 is
  // lifted through RL = R L.
  const int RL = detail::var(m, "RL", 100, 40000);
  detail::define_product(m, RL, R, L, "def_RL");
  Objective obj;
  obj.quad = {
      {n1, RL, 0.6224 * t}, {n2, R2, 1.7781 * t}, {N2, L, 3.1661 * t * t}, {N2, R, 19.84 * t * t}};
  m.set_objective(obj);
  return p;
}

// GLPK on its own, built straight from the model without any of the plugin's code: the
// reference the tests and the solver benchmark compare against.
inline glp_prob* reference_prob(const arbo::sdk::Model& m) {
  glp_prob* p = glp_create_prob();
  glp_set_obj_dir(p,
                  m.objective().sense == arbo::sdk::ObjectiveSense::Maximize ? GLP_MAX : GLP_MIN);
  glp_set_obj_coef(p, 0, m.objective().constant);
  const int n = static_cast<int>(m.num_variables());
  glp_add_cols(p, n);
  for (int j = 0; j < n; ++j) {
    const auto& v = m.variables()[static_cast<std::size_t>(j)];
    glp_set_col_name(p, j + 1, v.name.c_str());
    glp_set_col_bnds(p, j + 1, v.lower == v.upper ? GLP_FX : GLP_DB, v.lower, v.upper);
    if (v.type != arbo::sdk::VarType::Continuous) glp_set_col_kind(p, j + 1, GLP_IV);
  }
  for (const auto& t : m.objective().linear) {
    glp_set_obj_coef(p, t.var + 1, glp_get_obj_coef(p, t.var + 1) + t.coef);
  }
  for (const auto& r : m.linear_rows()) {
    const int i = glp_add_rows(p, 1);
    std::vector<int> ind(1, 0);
    std::vector<double> val(1, 0.0);
    for (const auto& t : r.terms) {
      ind.push_back(t.var + 1);
      val.push_back(t.coef);
    }
    glp_set_mat_row(p, i, static_cast<int>(r.terms.size()), ind.data(), val.data());
    const int type = r.sense == arbo::sdk::RowSense::LessEqual      ? GLP_UP
                     : r.sense == arbo::sdk::RowSense::GreaterEqual ? GLP_LO
                                                                    : GLP_FX;
    glp_set_row_bnds(p, i, type, r.rhs, r.rhs);
  }
  return p;
}

}  // namespace arbo::glpk_test
