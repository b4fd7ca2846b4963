// SPDX-License-Identifier: MIT
// The LEAF-GP benchmark problems: values and known-constraint feasibility at the declared
// optimizers and at published or hand-computed points, and the known-constraint strings
// against known_values. Reference values were computed independently with python3 (double
// precision; decimal for the Styblinski-Tang root; scipy for the Alkylation and pressure-vessel
// searches) from the formulas of the authors' reference code (cog-imperial/tree_kernel_gp),
// which follow Hedar's G-problem definitions and the CEC 2006 report (the README lists the
// variants), never by calling this plugin.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <memory>
#include <numbers>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include <arbo/sdk/capabilities.hpp>
#include <arbo/sdk/error.hpp>
#include <arbo/sdk/testing/conformance.hpp>

#include "common/problem_test_util.hpp"

namespace {

using namespace arbo::sdk;
using arbo::sdk::testing::PluginUnderTest;

using Instance = arbo::test::ProblemInstance;
using arbo::test::vec;

const PluginUnderTest& plugin() {
  return arbo::test::problem_library("libarbo_problem_leafgp_suite.so");
}

std::unique_ptr<Instance> make(const std::string& name,
                               const std::map<std::string, ParamValue>& raw = {}) {
  return arbo::test::make_problem(plugin(), name, raw);
}

std::unique_ptr<Instance> make_code_variant(const std::string& name) {
  return make(name, {{"variant", std::string("leafgp_code")}});
}

void expect_values(const Eigen::VectorXd& got, std::initializer_list<double> want, double tol) {
  ASSERT_EQ(got.size(), static_cast<Eigen::Index>(want.size()));
  Eigen::Index k = 0;
  for (double w : want) {
    EXPECT_NEAR(got[k], w, tol * std::max(1.0, std::abs(w))) << "constraint #" << k + 1;
    ++k;
  }
}

// ------------------------------------------------------------------------------------------
// An independent reader of the constraint syntax documented in capabilities.hpp: + - * /
// (division by constants only), ^ with non-negative integer exponents, parentheses, numbers,
// parameter names, and one of <=, >=, == between two sides. It evaluates g = lhs - rhs ("<=",
// "==") or rhs - lhs (">="), the sum of the terms' magnitudes (a bound on rounding), and the
// polynomial degree.
struct Term {
  double value = 0.0;
  double scale = 0.0;
  int degree = 0;
};

class ConstraintReader {
 public:
  ConstraintReader(std::string_view text, const Space& space, const Eigen::VectorXd& x)
      : s_(text), space_(space), x_(x) {}

  Term read(bool* equality) {
    const Term lhs = sum();
    skip();
    const std::string_view op = s_.substr(pos_, 2);
    if (op != "<=" && op != ">=" && op != "==") fail("expected <=, >= or ==");
    pos_ += 2;
    const Term rhs = sum();
    skip();
    if (pos_ != s_.size()) fail("trailing text");
    *equality = op == "==";
    const double v = op == ">=" ? rhs.value - lhs.value : lhs.value - rhs.value;
    return {v, lhs.scale + rhs.scale, std::max(lhs.degree, rhs.degree)};
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw std::runtime_error(why + " at offset " + std::to_string(pos_) + " of \"" +
                             std::string(s_) + "\"");
  }
  void skip() {
    while (pos_ < s_.size() && s_[pos_] == ' ') ++pos_;
  }
  bool eat(char c) {
    skip();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  Term sum() {
    Term a = product();
    for (;;) {
      if (eat('+')) {
        const Term b = product();
        a = {a.value + b.value, a.scale + b.scale, std::max(a.degree, b.degree)};
      } else if (eat('-')) {
        const Term b = product();
        a = {a.value - b.value, a.scale + b.scale, std::max(a.degree, b.degree)};
      } else {
        return a;
      }
    }
  }
  Term product() {
    Term a = unary();
    for (;;) {
      if (eat('*')) {
        const Term b = unary();
        a = {a.value * b.value, a.scale * b.scale, a.degree + b.degree};
      } else if (eat('/')) {
        const Term b = unary();
        if (b.degree != 0) fail("division by a non-constant");
        a = {a.value / b.value, a.scale / std::abs(b.value), a.degree};
      } else {
        return a;
      }
    }
  }
  Term unary() {
    if (eat('-')) {
      const Term a = unary();
      return {-a.value, a.scale, a.degree};
    }
    if (eat('+')) return unary();
    return power();
  }
  Term power() {
    const Term a = primary();
    if (!eat('^')) return a;
    skip();
    const std::size_t start = pos_;
    while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    if (pos_ == start) fail("exponent must be a non-negative integer literal");
    const int n = std::stoi(std::string(s_.substr(start, pos_ - start)));
    return {std::pow(a.value, n), std::pow(a.scale, n), a.degree * n};
  }
  Term primary() {
    skip();
    if (eat('(')) {
      const Term a = sum();
      if (!eat(')')) fail("missing )");
      return a;
    }
    const std::size_t start = pos_;
    if (pos_ < s_.size() &&
        (std::isdigit(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '.')) {
      while (pos_ < s_.size() &&
             (std::isdigit(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '.')) {
        ++pos_;
      }
      const double v = std::stod(std::string(s_.substr(start, pos_ - start)));
      return {v, std::abs(v), 0};
    }
    while (pos_ < s_.size() &&
           (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) {
      ++pos_;
    }
    if (pos_ == start) fail("expected a number, a name or (");
    const std::string name(s_.substr(start, pos_ - start));
    const auto i = space_.index_of(name);
    if (!i) fail("unknown parameter " + name);
    const double v = x_[static_cast<Eigen::Index>(*i)];
    return {v, std::abs(v), 1};
  }

  std::string_view s_;
  std::size_t pos_ = 0;
  const Space& space_;
  const Eigen::VectorXd& x_;
};

struct ReadConstraint {
  Term term;
  bool equality = false;
};

ReadConstraint read_constraint(const KnownConstraintSpec& spec, const Space& space,
                               const Eigen::VectorXd& x) {
  ReadConstraint r;
  r.term = ConstraintReader(spec.expression, space, x).read(&r.equality);
  return r;
}

// Every known constraint at `x` within 1e-6, or within 1e-12 of its terms' magnitude when that
// is larger (the pressure-vessel volume and the Alkylation octane rows reach 1e6 .. 1e13).
void expect_known_feasible(const Instance& inst, const Eigen::VectorXd& x) {
  const auto specs = inst.known->known_constraints();
  const Eigen::VectorXd g = inst.g(x);
  ASSERT_EQ(g.size(), static_cast<Eigen::Index>(specs.size()));
  for (std::size_t k = 0; k < specs.size(); ++k) {
    const ReadConstraint r = read_constraint(specs[k], inst.problem->space(), x);
    const double tol = std::max(1e-6, 1e-12 * r.term.scale);
    const double gk = g[static_cast<Eigen::Index>(k)];
    if (r.equality) {
      EXPECT_LE(std::abs(gk), tol) << specs[k].name << ": " << specs[k].expression;
    } else {
      EXPECT_LE(gk, tol) << specs[k].name << ": " << specs[k].expression;
    }
  }
}

// The declared optimizer: one point, in the space, at the declared optimum.
Eigen::VectorXd declared_optimizer(const Instance& inst, double fstar, bool best_known) {
  const ProblemInfo info = inst.problem->info();
  EXPECT_FALSE(info.maximize);
  EXPECT_EQ(info.optimum_is_best_known, best_known);
  EXPECT_FALSE(info.source.empty());
  EXPECT_TRUE(info.optimum.has_value());
  if (info.optimum) {
    EXPECT_NEAR(*info.optimum, fstar, 1e-12 * std::max(1.0, std::abs(fstar)));
  }
  EXPECT_EQ(info.optimizers.size(), 1u);
  if (info.optimizers.empty()) return {};
  EXPECT_TRUE(inst.problem->space().contains(info.optimizers[0]));
  return info.optimizers[0];
}

void expect_box(const Space& s, std::initializer_list<std::pair<double, double>> bounds) {
  ASSERT_EQ(s.size(), bounds.size());
  std::size_t i = 0;
  for (const auto& [lo, hi] : bounds) {
    EXPECT_EQ(s[i].name, "x" + std::to_string(i));
    EXPECT_EQ(s.lower()[static_cast<Eigen::Index>(i)], lo) << s[i].name;
    EXPECT_EQ(s.upper()[static_cast<Eigen::Index>(i)], hi) << s[i].name;
    ++i;
  }
}

void expect_all_real(const Space& s) {
  for (std::size_t i = 0; i < s.size(); ++i) EXPECT_EQ(s[i].type, ParamType::Real) << s[i].name;
}

// ------------------------------------------------------------------------------------------

TEST(leafgp_suite, loads_the_eleven_problems) {
  ASSERT_TRUE(plugin().compatible()) << plugin().header_error();
  EXPECT_EQ(plugin().components().size(), 11u);
  for (const char* name : {"rastrigin10", "schwefel10", "styblinski_tang10", "g1", "g3", "g4", "g6",
                           "g7", "g10", "alkylation", "pressure_vessel"}) {
    EXPECT_NE(plugin().find(Kind::Problem, name), nullptr) << name;
  }
  // Hartmann 6-D lives in the builtin library; a second copy would clash with its id.
  EXPECT_EQ(plugin().find(Kind::Problem, "hartmann6"), nullptr);
}

TEST(leafgp_suite, table2_dimensions_and_constraint_counts) {
  // Paper Table 2: D, inequality constraints (linear ones), equality constraints.
  struct Row {
    const char* name;
    std::size_t d, ic, ic_linear, ec;
  };
  // Alkylation: the paper lists 0 linear inequalities, but g5-g10 are linear as written
  // (and g13, g14 once c = (x1 + a)/x0 is multiplied by x0), so this suite counts 8.
  const Row rows[] = {{"g1", 13, 9, 9, 0},         {"g3", 5, 0, 0, 1},
                      {"g4", 5, 6, 0, 0},          {"g6", 2, 2, 0, 0},
                      {"g7", 10, 8, 3, 0},         {"g10", 8, 6, 3, 0},
                      {"alkylation", 7, 14, 8, 0}, {"pressure_vessel", 4, 3, 2, 0}};
  for (const Row& row : rows) {
    SCOPED_TRACE(row.name);
    auto p = make(row.name);
    ASSERT_NE(p->known, nullptr);
    EXPECT_TRUE(p->problem->constraint_names().empty());
    EXPECT_EQ(p->problem->space().size(), row.d);
    const Eigen::VectorXd mid = p->problem->space().from_unit(
        Eigen::VectorXd::Constant(static_cast<Eigen::Index>(row.d), 0.5));
    std::size_t ic = 0, linear = 0, ec = 0;
    for (const auto& spec : p->known->known_constraints()) {
      const ReadConstraint r = read_constraint(spec, p->problem->space(), mid);
      if (r.equality) {
        ++ec;
      } else {
        ++ic;
        if (r.term.degree <= 1) ++linear;
      }
    }
    EXPECT_EQ(ic, row.ic);
    EXPECT_EQ(linear, row.ic_linear);
    EXPECT_EQ(ec, row.ec);
  }
  for (const char* name : {"rastrigin10", "schwefel10", "styblinski_tang10"}) {
    auto p = make(name);
    EXPECT_EQ(p->known, nullptr) << name << " has no constraints";
    EXPECT_TRUE(p->problem->constraint_names().empty());
  }
}

TEST(leafgp_suite, constraint_strings_equal_known_values) {
  // 300 uniform points per problem (and variant): the string, read by the independent reader
  // above, gives the same g_k as known_values, up to rounding of the terms.
  std::vector<std::unique_ptr<Instance>> all;
  for (const char* name : {"g1", "g3", "g4", "g6", "g7", "g10", "alkylation", "pressure_vessel"}) {
    all.push_back(make(name));
  }
  all.push_back(make_code_variant("g1"));
  all.push_back(make_code_variant("pressure_vessel"));
  std::mt19937_64 rng(31);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (const auto& p : all) {
    const Space& s = p->problem->space();
    const auto specs = p->known->known_constraints();
    SCOPED_TRACE(p->problem->info().source);
    Eigen::VectorXd u(static_cast<Eigen::Index>(s.size())), x;
    for (int n = 0; n < 300; ++n) {
      for (Eigen::Index i = 0; i < u.size(); ++i) u[i] = unit(rng);
      s.from_unit(u, x);
      const Eigen::VectorXd g = p->g(x);
      ASSERT_EQ(g.size(), static_cast<Eigen::Index>(specs.size()));
      for (std::size_t k = 0; k < specs.size(); ++k) {
        const ReadConstraint r = read_constraint(specs[k], s, x);
        EXPECT_NEAR(g[static_cast<Eigen::Index>(k)], r.term.value, 1e-13 * r.term.scale + 1e-12)
            << specs[k].name << ": " << specs[k].expression << " at " << s.describe(x);
      }
    }
  }
}

// ------------------------------------------------------------------------ unconstrained

TEST(leafgp_suite, rastrigin10) {
  auto p = make("rastrigin10");
  const Space& s = p->problem->space();
  ASSERT_EQ(s.size(), 10u);
  expect_all_real(s);
  for (Eigen::Index i = 0; i < 10; ++i) {
    EXPECT_EQ(s.lower()[i], -4.0);
    EXPECT_EQ(s.upper()[i], 5.0);
  }
  const Eigen::VectorXd xs = declared_optimizer(*p, 0.0, false);
  EXPECT_EQ(xs, Eigen::VectorXd::Zero(10));
  EXPECT_NEAR(p->f(xs), 0.0, 1e-12);
  // Integers -4..5: cos = 1, so f = sum x_i^2 = 85.
  Eigen::VectorXd x(10);
  for (int i = 0; i < 10; ++i) x[i] = i - 4;
  EXPECT_NEAR(p->f(x), 85.0, 1e-10);
  for (int i = 0; i < 10; ++i) x[i] = -4 + 0.9 * i;
  EXPECT_NEAR(p->f(x), 166.85, 1e-9);
}

TEST(leafgp_suite, schwefel10) {
  auto p = make("schwefel10");
  const Space& s = p->problem->space();
  ASSERT_EQ(s.size(), 10u);
  expect_all_real(s);
  EXPECT_EQ(s.lower()[3], -500.0);
  EXPECT_EQ(s.upper()[9], 500.0);
  // The literature's "about 0": with the rounded constant 418.9829 the minimum is 1.2728e-4.
  const Eigen::VectorXd xs = declared_optimizer(*p, 1.2727566263492918e-4, false);
  EXPECT_NEAR(xs[0], 420.9687463599821, 1e-12);
  EXPECT_NEAR(p->f(xs), 1.2727566263492918e-4, 1e-10);
  // The literature's rounded optimizer 420.9687 is 2.7e-9 worse.
  EXPECT_NEAR(p->f(Eigen::VectorXd::Constant(10, 420.9687)), 1.2727837565762457e-4, 1e-10);
  EXPECT_NEAR(p->f(Eigen::VectorXd::Zero(10)), 4189.829, 1e-9);
  Eigen::VectorXd x(10);
  for (int i = 0; i < 10; ++i) x[i] = 50.0 * i - 400.0;
  EXPECT_NEAR(p->f(x), 4278.74243419934, 1e-9);
}

TEST(leafgp_suite, styblinski_tang10) {
  auto p = make("styblinski_tang10");
  const Space& s = p->problem->space();
  ASSERT_EQ(s.size(), 10u);
  expect_all_real(s);
  EXPECT_EQ(s.lower()[0], -5.0);
  EXPECT_EQ(s.upper()[0], 5.0);
  const Eigen::VectorXd xs = declared_optimizer(*p, -391.66165703771415, false);
  EXPECT_NEAR(xs[5], -2.903534027771177, 1e-14);
  EXPECT_NEAR(p->f(xs), -391.66165703771415, 1e-10);
  // The rounded literature value, -39.16617 per dimension, times 10.
  EXPECT_NEAR(p->f(xs), -391.6617, 1e-4);
  // Integers -5..4: (sum x^4 - 16 sum x^2 + 5 sum x) / 2 = (1333 - 1360 - 25) / 2.
  Eigen::VectorXd x(10);
  for (int i = 0; i < 10; ++i) x[i] = i - 5;
  EXPECT_NEAR(p->f(x), -26.0, 1e-12);
}

// ------------------------------------------------------------------------------ G family

TEST(leafgp_suite, g1) {
  auto p = make("g1");
  expect_box(p->problem->space(), {{0, 1},
                                   {0, 1},
                                   {0, 1},
                                   {0, 1},
                                   {0, 1},
                                   {0, 1},
                                   {0, 1},
                                   {0, 1},
                                   {0, 1},
                                   {0, 100},
                                   {0, 100},
                                   {0, 100},
                                   {0, 1}});
  expect_all_real(p->problem->space());
  const Eigen::VectorXd xs = declared_optimizer(*p, -15.0, false);
  EXPECT_EQ(xs, vec({1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 3, 3, 1}));
  EXPECT_NEAR(p->f(xs), -15.0, 1e-12);
  expect_known_feasible(*p, xs);
  expect_values(p->g(xs), {0, 0, 0, -5, -5, -5, 0, 0, 0}, 1e-12);
  // Box midpoint: f = 10 - 5 - 153.
  const Eigen::VectorXd mid = vec({.5, .5, .5, .5, .5, .5, .5, .5, .5, 50, 50, 50, .5});
  EXPECT_NEAR(p->f(mid), -148.0, 1e-12);
  expect_values(p->g(mid), {92, 92, 92, 46, 46, 46, 48.5, 48.5, 48.5}, 1e-12);
}

TEST(leafgp_suite, g1_leafgp_code_variant) {
  // The reference code's g6 is x11 - 3 x2 (Hedar: 8): same optimum, now with g6 active.
  auto p = make_code_variant("g1");
  EXPECT_EQ(p->known->known_constraints()[5].expression, "x11 - 3*x2 <= 0");
  const Eigen::VectorXd xs = declared_optimizer(*p, -15.0, false);
  EXPECT_NEAR(p->f(xs), -15.0, 1e-12);
  expect_known_feasible(*p, xs);
  expect_values(p->g(xs), {0, 0, 0, -5, -5, 0, 0, 0, 0}, 1e-12);
  const Eigen::VectorXd mid = vec({.5, .5, .5, .5, .5, .5, .5, .5, .5, 50, 50, 50, .5});
  expect_values(p->g(mid), {92, 92, 92, 46, 46, 48.5, 48.5, 48.5, 48.5}, 1e-12);
  EXPECT_EQ(make("g1")->known->known_constraints()[5].expression, "x11 - 8*x2 <= 0");
}

TEST(leafgp_suite, g3) {
  auto p = make("g3");
  expect_box(p->problem->space(), {{0, 1}, {0, 1}, {0, 1}, {0, 1}, {0, 1}});
  const Eigen::VectorXd xs = declared_optimizer(*p, -1.0, false);
  EXPECT_NEAR(xs[2], 1.0 / std::sqrt(5.0), 1e-15);
  EXPECT_NEAR(p->f(xs), -1.0, 1e-12);
  expect_known_feasible(*p, xs);
  EXPECT_NEAR(p->g(xs)[0], 0.0, 1e-15);
  // x = 1/2: -(sqrt 5)^5 / 32 = -25 sqrt(5) / 32; h = 5/4 - 1.
  const Eigen::VectorXd half = Eigen::VectorXd::Constant(5, 0.5);
  EXPECT_NEAR(p->f(half), -1.7469281074217111, 1e-13);
  expect_values(p->g(half), {0.25}, 1e-15);
}

TEST(leafgp_suite, g4) {
  auto p = make("g4");
  expect_box(p->problem->space(), {{78, 102}, {33, 45}, {27, 45}, {27, 45}, {27, 45}});
  const Eigen::VectorXd xs = declared_optimizer(*p, -30665.53867178332, true);
  EXPECT_NEAR(p->f(xs), -30665.538671783317, 1e-8);
  EXPECT_NEAR(p->f(xs), -30665.539, 1e-3);  // the rounded literature value
  expect_known_feasible(*p, xs);
  expect_values(p->g(xs), {-92, 0, -8.840500308926863, -11.159499691073137, 0, -5}, 1e-9);
  // Box midpoint (90, 39, 36, 36, 36): u = 92.488 violates u <= 92.
  const Eigen::VectorXd mid = vec({90, 39, 36, 36, 36});
  EXPECT_NEAR(p->f(mid), -27784.337114800004, 1e-8);
  expect_values(p->g(mid),
                {-92.48808939999999, 0.4880893999999927, -13.866566599999999, -6.133433400000001,
                 -1.9341746000000022, -3.065825399999998},
                1e-12);
}

TEST(leafgp_suite, g4_feasible_fraction_is_27_not_52_percent) {
  // Our own check (the LEAF-GP paper gives no feasible fractions); recorded because the CEC
  // 2006 report's 52.123 % for g04 does NOT reproduce with this (and CEC's own) 0.0006262 x0 x3
  // coefficient: python, 10^6 uniform samples, gives 26.93 %; with the older 0.00026
  // coefficient it gives 52.04 %.
  // 200000 samples: standard error 0.1 %, so +-1 % cannot fail by chance.
  auto p = make("g4");
  const int n = 200000;
  int feasible = 0;
  Eigen::VectorXd g;
  arbo::test::for_uniform_points(p->space(), n, 2024, [&](const Eigen::VectorXd& x) {
    p->known->known_values(x, g);
    if (g.maxCoeff() <= 0.0) ++feasible;
  });
  const double rho = static_cast<double>(feasible) / n;
  EXPECT_NEAR(rho, 0.2697, 0.01);
  EXPECT_GT(std::abs(rho - 0.52123), 0.2);
}

TEST(leafgp_suite, g6) {
  auto p = make("g6");
  expect_box(p->problem->space(), {{13, 100}, {0, 100}});
  const Eigen::VectorXd xs = declared_optimizer(*p, -6961.813875580138, false);
  EXPECT_NEAR(xs[0], 14.095, 1e-15);
  EXPECT_NEAR(xs[1], 0.8429607892154795668, 1e-14);  // CEC 2006
  EXPECT_NEAR(p->f(xs), -6961.81387558015, 1e-8);    // CEC 2006
  EXPECT_NEAR(p->f(xs), -6961.81388, 1e-5);          // the rounded literature value
  expect_known_feasible(*p, xs);
  expect_values(p->g(xs), {0, 0}, 1e-12);
  // The usually quoted rounded optimizer (14.095, 0.84296) is 6.6e-6 outside the second
  // circle, which is why it scores 8.7e-4 below f*.
  const Eigen::VectorXd rounded = vec({14.095, 0.84296});
  EXPECT_NEAR(p->f(rounded), -6961.814744487831, 1e-8);
  expect_values(p->g(rounded), {-6.561600017107594e-06, 6.561600002896739e-06}, 1e-9);
  const Eigen::VectorXd pt = vec({20, 10});
  EXPECT_NEAR(p->f(pt), 0.0, 1e-12);
  expect_values(p->g(pt), {-150, 138.19}, 1e-12);
}

TEST(leafgp_suite, g7) {
  auto p = make("g7");
  const Space& s = p->problem->space();
  ASSERT_EQ(s.size(), 10u);
  expect_all_real(s);
  EXPECT_EQ(s.lower()[7], -10.0);
  EXPECT_EQ(s.upper()[7], 10.0);
  const Eigen::VectorXd xs = declared_optimizer(*p, 24.30620906818, true);
  EXPECT_NEAR(p->f(xs), 24.30620906817991, 1e-10);
  EXPECT_NEAR(p->f(xs), 24.3062091, 1e-7);  // the rounded literature value
  expect_known_feasible(*p, xs);
  const Eigen::VectorXd z = Eigen::VectorXd::Zero(10);
  EXPECT_NEAR(p->f(z), 1352.0, 1e-10);
  expect_values(p->g(z), {-105, 0, -12, -72, -4, 34, 8, 768}, 1e-12);
}

TEST(leafgp_suite, g10) {
  auto p = make("g10");
  expect_box(p->problem->space(), {{100, 10000},
                                   {1000, 10000},
                                   {1000, 10000},
                                   {10, 1000},
                                   {10, 1000},
                                   {10, 1000},
                                   {10, 1000},
                                   {10, 1000}});
  const Eigen::VectorXd xs = declared_optimizer(*p, 7049.24802052867, true);
  EXPECT_NEAR(p->f(xs), 7049.248020528668, 1e-8);
  EXPECT_NEAR(p->f(xs), 7049.248, 1e-3);  // the rounded literature value
  expect_known_feasible(*p, xs);
  const Eigen::VectorXd pt = vec({5000, 5000, 5000, 100, 200, 300, 400, 500});
  EXPECT_NEAR(p->f(pt), 15000.0, 1e-12);
  expect_values(p->g(pt), {0, 0.25, 2, -1000000.081, -1375000, -750000}, 1e-12);
}

// ---------------------------------------------------------------------------- Alkylation

TEST(leafgp_suite, alkylation) {
  auto p = make("alkylation");
  expect_box(p->problem->space(),
             {{0, 2000}, {0, 16000}, {0, 120}, {0, 5000}, {90, 95}, {0.01, 4}, {145, 162}});
  expect_all_real(p->problem->space());
  // No published optimum (the paper gives none): best of 300 SLSQP multistarts, confirmed by a
  // 1-D search on the active set. The declared point sits 1e-8 inside each active constraint.
  const Eigen::VectorXd xs = declared_optimizer(*p, -1768.806963716, true);
  EXPECT_NEAR(p->f(xs), -1768.8069572478698, 1e-8);
  EXPECT_NEAR(p->f(xs), -1768.806963716, 1e-5);
  expect_known_feasible(*p, xs);
  // All rows strictly satisfied even without tolerance (the multiplied-through forms keep the
  // sign of the divided ones because x0 > 0 and x3 x5 + 1000 x2 > 0 here).
  EXPECT_LT(p->g(xs).maxCoeff(), 0.0);

  // Box midpoint: profit 1760.75; rows in the multiplied-through form (python, same algebra).
  const Eigen::VectorXd mid = vec({1000, 8000, 60, 2500, 92.5, 2.005, 153.5});
  EXPECT_NEAR(p->f(mid), -1760.75, 1e-9);
  expect_values(p->g(mid),
                {705403.1749999998, -755655.7002525255, -158705410062.5, 37824845037.24707, 0.0615,
                 -0.48477777777777575, 7.465, -10.550505050505052, 50, -2050, -166162.5, -353937.5,
                 -1950, -7050},
                1e-9);
}

TEST(leafgp_suite, alkylation_dembo_point_does_not_reproduce) {
  // GTEST note: the literature optimum, profit 1772.77 at Dembo's (1976) point (olefin 1698.18,
  // acid 53.66, alkylate 3031.30, strength 90.11, octane 95, ratio 10.50, F-4 153.53), does not
  // reproduce in this formulation: mapped to these variables it gives profit 1772.80 but
  // violates g1 (yield), g6 (dilution) and g9 (a <= 2000) by 0.018, 0.014 and 0.006 in the
  // divided form. What is verified instead: the objective and the signs at that point, and
  // that the best feasible value here (1768.807) is below it.
  auto p = make("alkylation");
  const Eigen::VectorXd dembo =
      vec({1698.18, 15830.884, 53.66, 3031.3, 95.0, 1.5499788151542566, 153.53});
  EXPECT_NEAR(p->f(dembo), -1772.8022, 1e-8);
  const Eigen::VectorXd g = p->g(dembo);
  EXPECT_NEAR(g[0], 31.407584372907877, 1e-7);  // = 0.0184949 * x0
  EXPECT_NEAR(g[5], 0.01414131649526884, 1e-12);
  EXPECT_NEAR(g[8], 0.0060000000000854925, 1e-9);
  for (const Eigen::Index k : {1, 2, 3, 4, 6, 7, 9, 10, 11, 12, 13}) EXPECT_LT(g[k], 0.0) << k;
  EXPECT_LT(-1772.77, *p->problem->info().optimum);
}

TEST(leafgp_suite, alkylation_degenerate_face_is_admitted_as_documented) {
  // Multiplying by x0 and x3 x5 + 1000 x2 makes every b- and c-row read 0 <= 0 when
  // x0 = x1 = x2 = x3 = 0 (where b and c are undefined). The README documents this face; its
  // objective is 0, far above f*, so it never competes with the optimum.
  auto p = make("alkylation");
  const Eigen::VectorXd x = vec({0, 0, 0, 0, 95, 2, 152});
  EXPECT_LE(p->g(x).maxCoeff(), 0.0);
  EXPECT_EQ(p->f(x), 0.0);
}

// ----------------------------------------------------------------------- Pressure vessel

TEST(leafgp_suite, pressure_vessel) {
  auto p = make("pressure_vessel");
  const Space& s = p->problem->space();
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[0].type, ParamType::Integer);
  EXPECT_EQ(s[1].type, ParamType::Integer);
  EXPECT_EQ(s[2].type, ParamType::Real);
  EXPECT_EQ(s[3].type, ParamType::Real);
  expect_box(s, {{1, 99}, {1, 99}, {10, 200}, {10, 200}});
  const Eigen::VectorXd xs = declared_optimizer(*p, 6059.714335048436, true);
  EXPECT_EQ(xs[0], 13.0);  // Ts = 0.8125
  EXPECT_EQ(xs[1], 7.0);   // Th = 0.4375
  EXPECT_NEAR(p->f(xs), 6059.714335048436, 1e-8);
  EXPECT_NEAR(p->f(xs), 6059.714335, 1e-6);  // literature best known
  expect_known_feasible(*p, xs);
  expect_values(p->g(xs), {0, -0.03588082901554407, 0}, 1e-9);
  // Coello & Montes (2002) published (0.8125, 0.4375, 42.097398, 176.654047), f = 6059.946341;
  // the formula gives 6059.946409 there (their decimals are rounded).
  const Eigen::VectorXd cm = vec({13, 7, 42.097398, 176.654047});
  EXPECT_NEAR(p->f(cm), 6059.946409277183, 1e-8);
  EXPECT_NEAR(p->f(cm), 6059.946341, 1e-4);
  expect_known_feasible(*p, cm);
  expect_values(p->g(cm), {-2.021860000001041e-05, -0.03589082308000002, -24.883056089049205},
                1e-7);
}

TEST(leafgp_suite, pressure_vessel_leafgp_code_variant) {
  // The reference code's objective (x0 instead of Ts in the first term) and g2 (L instead of
  // R). No published optimum; found for this suite by enumerating x0, x1.
  auto p = make_code_variant("pressure_vessel");
  EXPECT_EQ(p->known->known_constraints()[1].expression, "0.00954*x3 <= 0.0625*x1");
  const Eigen::VectorXd xs = declared_optimizer(*p, 11754.553447799499, true);
  EXPECT_EQ(xs[0], 21.0);
  EXPECT_EQ(xs[1], 2.0);
  EXPECT_EQ(xs[3], 10.0);
  EXPECT_NEAR(p->f(xs), 11754.553447799499, 1e-8);
  expect_known_feasible(*p, xs);
  expect_values(p->g(xs), {-0.05365301055942506, -0.0296, 0}, 1e-9);
  // The textbook optimizer is infeasible here (g2 = 0.00954 L - Th > 0) and 10x dearer.
  const Eigen::VectorXd std_opt = vec({13, 7, 42.09844559585492, 176.63659584243945});
  EXPECT_NEAR(p->f(std_opt), 62466.449020659544, 1e-7);
  expect_values(p->g(std_opt), {0, 1.2476131243368722, 0}, 1e-9);
}

TEST(leafgp_suite, rejects_points_of_the_wrong_length) {
  for (const char* name : {"rastrigin10", "g4", "alkylation", "pressure_vessel"}) {
    auto p = make(name);
    Evaluation e;
    EXPECT_THROW(p->problem->evaluate(Eigen::VectorXd::Zero(3), e), InvalidArgument) << name;
    if (p->known != nullptr) {
      Eigen::VectorXd g;
      EXPECT_THROW(p->known->known_values(Eigen::VectorXd::Zero(3), g), InvalidArgument) << name;
    }
  }
}

TEST(leafgp_suite, rejects_an_unknown_variant) {
  const ComponentInfo* info = plugin().find(Kind::Problem, "g1");
  ASSERT_NE(info, nullptr);
  EXPECT_ANY_THROW(
      validate_params(info->params(), {{"variant", std::string("hedar")}}, "problem/g1"));
}

// The library passes the same conformance kit that third-party plugins use.
TEST(stock_plugin_conformance, problem_leafgp_suite) {
  arbo::sdk::testing::expect_plugin_conforms(ARBO_PLUGIN_DIR "/libarbo_problem_leafgp_suite.so");
}

}  // namespace
