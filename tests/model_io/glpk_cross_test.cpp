// SPDX-License-Identifier: MIT
// Cross-checks of the LP format against GLPK: glpsol solves the files write_lp writes to the
// known optimum, and read_lp reads the files GLPK's glp_write_lp writes into the same model.
#include <glpk.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "arbo/sdk/model_io.hpp"
#include "enumerate.hpp"
#include "random_models.hpp"

namespace arbo::sdk {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class Glpk : public ::testing::Test {
 protected:
  void SetUp() override {
    glp_term_out(GLP_OFF);
    dir_ = fs::temp_directory_path() /
           fmt::format("arbo_lpio_{}_{}", ::getpid(),
                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  fs::path dir_;
};

// A random model that is feasible (a planted integer point satisfies every row) and bounded
// (every variable with an infinite bound gets a box row), mirrored into a glp_prob.
struct Mirrored {
  Model model;
  glp_prob* glp = nullptr;
  Mirrored() = default;
  Mirrored(const Mirrored&) = delete;
  Mirrored& operator=(const Mirrored&) = delete;
  ~Mirrored() {
    if (glp != nullptr) glp_delete_prob(glp);
  }
};

void add_glp_row(glp_prob* p, const LinearRow& r) {
  const int i = glp_add_rows(p, 1);
  std::vector<int> ind{0};
  std::vector<double> val{0.0};
  for (const auto& t : r.terms) {
    ind.push_back(t.var + 1);
    val.push_back(t.coef);
  }
  glp_set_mat_row(p, i, static_cast<int>(r.terms.size()), ind.data(), val.data());
  const int type = r.sense == RowSense::LessEqual      ? GLP_UP
                   : r.sense == RowSense::GreaterEqual ? GLP_LO
                                                       : GLP_FX;
  glp_set_row_bnds(p, i, type, r.rhs, r.rhs);
}

void mirrored_model(std::mt19937_64& rng, bool pure_integer, Mirrored& out) {
  std::uniform_int_distribution<int> die(0, 9);
  std::uniform_int_distribution<int> coin(0, 1);
  const int n = std::uniform_int_distribution<int>(2, pure_integer ? 5 : 9)(rng);
  const auto& pool = test::awkward_names();
  Model& m = out.model;
  glp_prob* p = out.glp = glp_create_prob();
  glp_add_cols(p, n);
  std::vector<double> x0;
  std::vector<LinearRow> box;
  for (int j = 0; j < n; ++j) {
    const int t = die(rng);
    VarType type = pure_integer ? (t < 5 ? VarType::Integer : VarType::Binary)
                                : (t < 3   ? VarType::Integer
                                   : t < 5 ? VarType::Binary
                                           : VarType::Continuous);
    double lo = -std::uniform_int_distribution<int>(0, 4)(rng);
    double hi = std::uniform_int_distribution<int>(1, 5)(rng);
    if (type == VarType::Continuous) lo -= 0.25, hi += 0.5;
    // Enumeration needs finite bounds; the MILPs also get infinite ones (and box rows).
    switch (pure_integer ? 3 + die(rng) : die(rng)) {
      case 0: lo = -kInfinity, hi = kInfinity; break;
      case 1: hi = kInfinity; break;
      case 2:
        lo = -kInfinity;
        hi = -hi;
        break;
      case 3: lo = hi; break;
      default: break;
    }
    if (type == VarType::Binary) lo = die(rng) == 0 ? 1.0 : 0.0, hi = 1.0;
    const std::string name =
        pool[std::uniform_int_distribution<std::size_t>(0, pool.size() - 1)(rng)];
    m.add_variable(name, type, lo, hi);
    const double a = std::isfinite(lo) ? lo : (std::isfinite(hi) ? hi - 6 : -3);
    const double b = std::isfinite(hi) ? hi : a + 6;
    double v = std::uniform_real_distribution<double>(a, b)(rng);
    if (type != VarType::Continuous) v = std::clamp(std::round(v), std::ceil(a), std::floor(b));
    x0.push_back(v);
    if (!std::isfinite(lo)) box.push_back({"", {{j, 1}}, RowSense::GreaterEqual, -10});
    if (!std::isfinite(hi)) box.push_back({"", {{j, 1}}, RowSense::LessEqual, 10});
    const int col = j + 1;
    glp_set_col_kind(p, col, type == VarType::Continuous ? GLP_CV : GLP_IV);
    const int bt = lo == hi                                   ? GLP_FX
                   : !std::isfinite(lo) && !std::isfinite(hi) ? GLP_FR
                   : !std::isfinite(lo)                       ? GLP_UP
                   : !std::isfinite(hi)                       ? GLP_LO
                                                              : GLP_DB;
    glp_set_col_bnds(p, col, bt, std::isfinite(lo) ? lo : 0.0, std::isfinite(hi) ? hi : 0.0);
  }
  const int rows = std::uniform_int_distribution<int>(1, 6)(rng);
  for (int k = 0; k < rows; ++k) {
    LinearRow r;
    r.name = die(rng) < 5
                 ? pool[std::uniform_int_distribution<std::size_t>(0, pool.size() - 1)(rng)]
                 : "";
    for (int j : test::random_subset(rng, n, 4)) r.terms.push_back({j, test::moderate_value(rng)});
    double activity = 0.0;
    for (const auto& t : r.terms) activity += t.coef * x0[static_cast<std::size_t>(t.var)];
    const double slack = die(rng) < 3 ? 0.0 : std::uniform_int_distribution<int>(1, 6)(rng) * 0.5;
    const int s = die(rng);
    r.sense = s < 4 ? RowSense::LessEqual : s < 8 ? RowSense::GreaterEqual : RowSense::Equal;
    r.rhs = r.sense == RowSense::LessEqual      ? activity + slack
            : r.sense == RowSense::GreaterEqual ? activity - slack
                                                : activity;
    add_glp_row(p, r);
    m.add_linear_row(std::move(r));
  }
  for (auto& r : box) {
    add_glp_row(p, r);
    m.add_linear_row(std::move(r));
  }
  Objective obj;
  obj.sense = coin(rng) ? ObjectiveSense::Maximize : ObjectiveSense::Minimize;
  for (int j = 0; j < n; ++j) {
    if (die(rng) < 8) obj.linear.push_back({j, test::moderate_value(rng)});
  }
  obj.constant = coin(rng) ? test::moderate_value(rng) : 0.0;
  glp_set_obj_dir(p, obj.sense == ObjectiveSense::Maximize ? GLP_MAX : GLP_MIN);
  glp_set_obj_coef(p, 0, obj.constant);
  for (const auto& t : obj.linear) glp_set_obj_coef(p, t.var + 1, t.coef);
  m.set_objective(std::move(obj));
}

// Optimum of the mirrored problem through the GLPK API.
double api_optimum(glp_prob* p, bool integer) {
  glp_smcp smcp;
  glp_init_smcp(&smcp);
  smcp.presolve = GLP_ON;
  smcp.msg_lev = GLP_MSG_OFF;
  EXPECT_EQ(glp_simplex(p, &smcp), 0);
  EXPECT_EQ(glp_get_status(p), GLP_OPT);
  if (!integer) return glp_get_obj_val(p);
  glp_iocp iocp;
  glp_init_iocp(&iocp);
  iocp.msg_lev = GLP_MSG_OFF;
  EXPECT_EQ(glp_intopt(p, &iocp), 0);
  EXPECT_EQ(glp_mip_status(p), GLP_OPT);
  return glp_mip_obj_val(p);
}

struct GlpsolAnswer {
  std::string kind;    ///< "mip" or "bas"
  std::string status;  ///< "o" (mip optimal) or "f f" (basic primal and dual feasible)
  double objective = NAN;
  std::vector<double> columns;
};

GlpsolAnswer run_glpsol(const fs::path& lp, const fs::path& dir) {
  GlpsolAnswer a;
  const std::string glpsol = ARBO_GLPSOL;
  if (glpsol.empty()) {
    ADD_FAILURE() << "glpsol not found at configure time; install glpk-utils (tools/install-deps)";
    return a;
  }
  const fs::path sol = dir / "solution.txt";
  const fs::path log = dir / "glpsol.log";
  const std::string cmd = fmt::format("'{}' --lp '{}' -w '{}' > '{}' 2>&1", glpsol, lp.string(),
                                      sol.string(), log.string());
  const int rc = std::system(cmd.c_str());
  EXPECT_EQ(rc, 0) << slurp(log);
  std::istringstream in(slurp(sol));
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string tag;
    ls >> tag;
    if (tag == "s") {
      int rows = 0, cols = 0;
      ls >> a.kind >> rows >> cols;
      a.columns.assign(static_cast<std::size_t>(cols), NAN);
      std::string s1, s2;
      if (a.kind == "mip") {
        ls >> s1 >> a.objective;
        a.status = s1;
      } else {
        ls >> s1 >> s2 >> a.objective;
        a.status = s1 + " " + s2;
      }
    } else if (tag == "j") {
      std::size_t j = 0;
      double value = NAN;
      ls >> j;
      if (a.kind == "bas") {
        std::string stat;
        ls >> stat;
      }
      ls >> value;
      if (j >= 1 && j <= a.columns.size()) a.columns[j - 1] = value;
    }
  }
  EXPECT_FALSE(a.kind.empty()) << "no solution line from glpsol:\n" << slurp(log);
  return a;
}

// Column names in the order GLPK's own reader numbers them.
std::vector<std::string> glpk_column_names(const fs::path& lp) {
  glp_prob* p = glp_create_prob();
  EXPECT_EQ(glp_read_lp(p, nullptr, lp.c_str()), 0);
  std::vector<std::string> names;
  for (int j = 1; j <= glp_get_num_cols(p); ++j) names.emplace_back(glp_get_col_name(p, j));
  glp_delete_prob(p);
  return names;
}

void cross_check_with_glpsol(const fs::path& dir, std::uint64_t seed, bool pure_integer) {
  std::mt19937_64 rng(seed);
  Mirrored mm;
  mirrored_model(rng, pure_integer, mm);
  const Model& m = mm.model;
  const std::string text = write_lp(m);
  SCOPED_TRACE(text);
  const fs::path lp = dir / fmt::format("model_{}.lp", seed);
  std::ofstream(lp) << text;

  const double known = api_optimum(mm.glp, m.has_integers());
  if (pure_integer) {
    const SolveResult e = test::enumerate_solve(
        m, SolveOptions{}, [] { return false; }, 10000000);
    ASSERT_EQ(e.status, SolveStatus::Optimal);
    EXPECT_NEAR(e.objective, known, 1e-9 * std::max(1.0, std::abs(known)));
  }
  const GlpsolAnswer a = run_glpsol(lp, dir);
  EXPECT_EQ(a.status, m.has_integers() ? "o" : "f f");
  EXPECT_NEAR(a.objective, known, 1e-6 * std::max(1.0, std::abs(known)));

  // GLPK numbers the columns in the model's order (plus the constant's fixed variable).
  const Model r = read_lp(text);
  std::vector<std::string> ours;
  for (const auto& v : r.variables()) ours.push_back(v.name);
  std::vector<std::string> theirs = glpk_column_names(lp);
  ASSERT_EQ(theirs.size(), a.columns.size());
  std::map<std::string, double> value;
  for (std::size_t j = 0; j < theirs.size(); ++j) value[theirs[j]] = a.columns[j];
  std::erase(theirs, "obj_constant");
  EXPECT_EQ(theirs, ours);
  std::vector<double> x;
  for (const auto& name : ours) x.push_back(value.at(name));
  const ModelEvaluation e = m.evaluate(x);
  EXPECT_NEAR(e.objective, a.objective, 1e-6 * std::max(1.0, std::abs(a.objective)));
  EXPECT_LE(e.max_violation(), 1e-6);
}

TEST_F(Glpk, GlpsolSolvesWrittenLps) {
  for (std::uint64_t seed = 0; seed < 30; ++seed) {
    SCOPED_TRACE(seed);
    // Continuous-only models come out of the generator too (no integer variable drawn).
    cross_check_with_glpsol(dir_, 100 + seed, false);
  }
}

TEST_F(Glpk, GlpsolAndEnumerationAgreeOnWrittenIntegerModels) {
  for (std::uint64_t seed = 0; seed < 30; ++seed) {
    SCOPED_TRACE(seed);
    cross_check_with_glpsol(dir_, 500 + seed, true);
  }
}

// ---- files written by GLPK

// Names GLPK writes unchanged: every CPLEX special character.
const std::vector<std::string>& glpk_names() {
  static const std::vector<std::string> names{"x#", "a.b", "y(2)", "~z", "k|p", "q\"s",  "m{1}",
                                              "_u", "w,",  "v;",   "n?", "p@q", "r!",    "s$",
                                              "t%", "u&",  "c/d",  "f'", "g`",  "Energy"};
  return names;
}

TEST_F(Glpk, ReadsFilesWrittenByGlpk) {
  for (std::uint64_t seed = 0; seed < 30; ++seed) {
    SCOPED_TRACE(seed);
    std::mt19937_64 rng(900 + seed);
    std::uniform_int_distribution<int> die(0, 9);
    const int n = std::uniform_int_distribution<int>(1, 12)(rng);
    Model expected;
    glp_prob* p = glp_create_prob();
    glp_set_prob_name(p, "random");
    glp_set_obj_name(p, "cost");
    glp_set_obj_dir(p, die(rng) < 5 ? GLP_MIN : GLP_MAX);
    glp_add_cols(p, n);
    for (int j = 1; j <= n; ++j) {
      const std::string name =
          fmt::format("{}{}", glpk_names()[static_cast<std::size_t>(die(rng) * 2 + (j % 2))], j);
      glp_set_col_name(p, j, name.c_str());
      const int kind = die(rng);
      const double lo = -test::moderate_value(rng) * 0.5 - 3.0;
      const double hi = lo + std::abs(test::moderate_value(rng)) + 1.0;
      VarType type = VarType::Continuous;
      double l = 0.0, u = kInfinity;
      switch (die(rng) % 5) {
        case 0: glp_set_col_bnds(p, j, GLP_FR, 0, 0), l = -kInfinity; break;
        case 1: glp_set_col_bnds(p, j, GLP_LO, lo, 0), l = lo; break;
        case 2: glp_set_col_bnds(p, j, GLP_UP, 0, lo), l = -kInfinity, u = lo; break;
        case 3: glp_set_col_bnds(p, j, GLP_DB, lo, hi), l = lo, u = hi; break;
        default: glp_set_col_bnds(p, j, GLP_FX, hi, hi), l = u = hi; break;
      }
      if (kind < 2) {
        glp_set_col_kind(p, j, GLP_BV);  // sets the bounds to [0, 1]
        type = VarType::Binary, l = 0.0, u = 1.0;
      } else if (kind < 5) {
        glp_set_col_kind(p, j, GLP_IV);
        type = VarType::Integer;
      }
      expected.add_variable(name, type, l, u);
      if (die(rng) < 7) glp_set_obj_coef(p, j, test::moderate_value(rng));
    }
    Objective obj;
    obj.sense = glp_get_obj_dir(p) == GLP_MAX ? ObjectiveSense::Maximize : ObjectiveSense::Minimize;
    for (int j = 1; j <= n; ++j) {
      if (glp_get_obj_coef(p, j) != 0.0) obj.linear.push_back({j - 1, glp_get_obj_coef(p, j)});
    }
    expected.set_objective(obj);
    const int rows = std::uniform_int_distribution<int>(1, 8)(rng);
    for (int k = 0; k < rows; ++k) {
      LinearRow r;
      r.name = fmt::format("row{}{}", glpk_names()[static_cast<std::size_t>(die(rng))], k);
      for (int j : test::random_subset(rng, n, 5))
        r.terms.push_back({j, test::moderate_value(rng)});
      const int s = die(rng);
      r.sense = s < 4 ? RowSense::LessEqual : s < 8 ? RowSense::GreaterEqual : RowSense::Equal;
      r.rhs = test::moderate_value(rng);
      add_glp_row(p, r);
      glp_set_row_name(p, glp_get_num_rows(p), r.name.c_str());
      expected.add_linear_row(std::move(r));
    }
    const fs::path file = dir_ / fmt::format("glpk_{}.lp", seed);
    ASSERT_EQ(glp_write_lp(p, nullptr, file.c_str()), 0);
    glp_delete_prob(p);
    const std::string text = slurp(file);
    SCOPED_TRACE(text);
    const Model r = read_lp(text, file.string());

    // Same variables by name (GLPK writes binaries as bounded generals), same rows by name.
    ASSERT_EQ(r.num_variables(), expected.num_variables());
    std::vector<int> where;
    for (const auto& v : expected.variables()) {
      const auto i = r.find_variable(v.name);
      ASSERT_TRUE(i.has_value()) << v.name;
      where.push_back(*i);
      const Variable& w = r.variables()[static_cast<std::size_t>(*i)];
      EXPECT_EQ(w.type, v.type == VarType::Binary ? VarType::Integer : v.type) << v.name;
      EXPECT_EQ(w.lower, v.lower) << v.name;
      EXPECT_EQ(w.upper, v.upper) << v.name;
    }
    ASSERT_EQ(r.linear_rows().size(), expected.linear_rows().size());
    EXPECT_TRUE(r.quadratic_rows().empty());
    EXPECT_EQ(r.objective().sense, expected.objective().sense);
    std::map<std::string, std::size_t> row_at;
    for (std::size_t k = 0; k < r.linear_rows().size(); ++k) row_at[r.linear_rows()[k].name] = k;
    for (int point = 0; point < 20; ++point) {
      const std::vector<double> x = test::random_point(rng, expected);
      std::vector<double> y(x.size());
      for (std::size_t i = 0; i < x.size(); ++i) y[static_cast<std::size_t>(where[i])] = x[i];
      const ModelEvaluation a = expected.evaluate(x);
      const ModelEvaluation b = r.evaluate(y);
      EXPECT_NEAR(a.objective, b.objective, 1e-9 * std::max(1.0, std::abs(a.objective)));
      EXPECT_NEAR(a.max_row_violation, b.max_row_violation, 1e-9);
      EXPECT_EQ(a.max_bound_violation, b.max_bound_violation);
      EXPECT_EQ(a.max_integrality_violation, b.max_integrality_violation);
      for (std::size_t k = 0; k < expected.linear_rows().size(); ++k) {
        const LinearRow& row = expected.linear_rows()[k];
        ASSERT_EQ(row_at.count(row.name), 1u) << row.name;
        const std::size_t at = row_at[row.name];
        EXPECT_EQ(r.linear_rows()[at].sense, row.sense);
        EXPECT_EQ(r.linear_rows()[at].rhs, row.rhs);
        EXPECT_NEAR(a.linear_activity[k], b.linear_activity[at],
                    1e-9 * std::max(1.0, std::abs(a.linear_activity[k])));
      }
    }
  }
}

// GLPK writes a ranged row with an auxiliary variable and drops the objective constant into a
// comment; read_lp sees exactly what the file states.
TEST_F(Glpk, RangedRowsAndConstantAsGlpkWritesThem) {
  glp_prob* p = glp_create_prob();
  glp_add_cols(p, 2);
  glp_set_col_name(p, 1, "x");
  glp_set_col_name(p, 2, "y");
  glp_set_col_bnds(p, 1, GLP_DB, 0, 10);
  glp_set_col_bnds(p, 2, GLP_DB, 0, 10);
  glp_set_obj_coef(p, 0, 7.5);
  glp_set_obj_coef(p, 1, 1.0);
  glp_add_rows(p, 1);
  glp_set_row_name(p, 1, "range");
  const int ind[] = {0, 1, 2};
  const double val[] = {0, 1, 2};
  glp_set_mat_row(p, 1, 2, ind, val);
  glp_set_row_bnds(p, 1, GLP_DB, 1, 5);
  const fs::path file = dir_ / "ranged.lp";
  ASSERT_EQ(glp_write_lp(p, nullptr, file.c_str()), 0);
  glp_delete_prob(p);
  const std::string text = slurp(file);
  SCOPED_TRACE(text);
  const Model r = read_lp(text, file.string());
  ASSERT_EQ(r.num_variables(), 3u);
  const auto aux = r.find_variable("~r_1");
  ASSERT_TRUE(aux.has_value());
  EXPECT_EQ(r.variables()[static_cast<std::size_t>(*aux)].lower, 0.0);
  EXPECT_EQ(r.variables()[static_cast<std::size_t>(*aux)].upper, 4.0);
  ASSERT_EQ(r.linear_rows().size(), 1u);
  EXPECT_EQ(r.linear_rows()[0].sense, RowSense::Equal);
  EXPECT_EQ(r.linear_rows()[0].rhs, 1.0);
  EXPECT_EQ(r.objective().constant, 0.0);  // only in GLPK's comment
}

}  // namespace
}  // namespace arbo::sdk
