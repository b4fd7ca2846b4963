// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <cmath>

#include "arbo/sdk/error.hpp"
#include "arbo/sdk/projection.hpp"

namespace arbo::sdk {
namespace {

// x0 + x1 <= rhs over the first two coordinates, formulated as one linear row.
class SumAtMost final : public Constraint, public FormulatesConstraint {
 public:
  explicit SumAtMost(double rhs) : rhs_(rhs) {}
  double violation(const Eigen::VectorXd& x) const override {
    return std::max(0.0, x[0] + x[1] - rhs_);
  }
  void formulate(Model& m, const PointVariables& p) const override {
    m.add_linear_row({"sum", {{p.x_vars[0], 1.0}, {p.x_vars[1], 1.0}}, RowSense::LessEqual, rhs_});
  }

 private:
  double rhs_;
};

class ValueOnly final : public Constraint {
 public:
  double violation(const Eigen::VectorXd&) const override { return 0.0; }
};

// Exact solver for models whose variables are all integer or binary with small finite bounds:
// enumerates every point.
class Enumerate final : public ModelSolver {
 public:
  SolveResult solve(const Model& m, const SolveOptions&) override {
    ++calls;
    SolveResult r;
    r.status = SolveStatus::Infeasible;
    std::vector<double> x(m.num_variables());
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = m.variables()[i].lower;
    while (true) {
      const ModelEvaluation e = m.evaluate(x);
      if (e.max_violation() <= 1e-9 && (r.x.empty() || e.objective < r.objective)) {
        r.x = x;
        r.objective = e.objective;
        r.status = SolveStatus::Optimal;
      }
      std::size_t i = 0;
      for (; i < x.size(); ++i) {
        if (x[i] + 1 <= m.variables()[i].upper) {
          x[i] += 1;
          break;
        }
        x[i] = m.variables()[i].lower;
      }
      if (i == x.size()) break;
    }
    return r;
  }
  int calls = 0;
};

TEST(Projection, NearestFeasiblePointInScaledDistanceAndHamming) {
  const Space space({Parameter::integer("a", 0, 6), Parameter::integer("b", 0, 3),
                     Parameter::categorical("c", {"x", "y", "z"}), Parameter::binary("f")});
  SumAtMost sum(3.0);
  Enumerate solver;
  Eigen::VectorXd x(4);
  x << 6, 3, 2, 1;
  ASSERT_TRUE(project_onto_constraints(space, {&sum}, solver, x));
  // min ((6-a)/6)^2 + ((3-b)/3)^2 s.t. a + b <= 3 over integers: (1,2) gives 0.806, (2,1)
  // 0.889, (0,3) 1.0, (3,0) 1.25.
  EXPECT_EQ(x[0], 1);
  EXPECT_EQ(x[1], 2);
  // Unconstrained discrete coordinates keep their values (Hamming distance 0).
  EXPECT_EQ(x[2], 2);
  EXPECT_EQ(x[3], 1);
  EXPECT_EQ(sum.violation(x), 0.0);
}

// LEAF-GP's Eq. 11: plain squared distance in encoded units, categories restricted to a set.
TEST(Projection, PlainDistanceAndAllowedCategories) {
  const Space space({Parameter::integer("a", 0, 6), Parameter::integer("b", 0, 3),
                     Parameter::categorical("c", {"x", "y", "z"}), Parameter::binary("f")});
  SumAtMost sum(3.0);
  Enumerate solver;
  ProjectionSpec plain;
  plain.scale_by_range = false;
  Eigen::VectorXd x(4);
  x << 6, 3, 2, 1;
  ASSERT_TRUE(
      project_onto_constraints(space, {&sum}, solver, x, default_projection_options(), {}, plain));
  // min (6-a)^2 + (3-b)^2 s.t. a + b <= 3: (3,0) gives 18, (2,1) 20, (1,2) 26; the scaled
  // distance chose (1,2) above.
  EXPECT_EQ(x[0], 3);
  EXPECT_EQ(x[1], 0);
  EXPECT_EQ(x[2], 2);

  ProjectionSpec restricted = plain;
  restricted.allowed_categories = {{}, {}, {0, 2}, {}};
  x << 1, 1, 2, 0;  // feasible, category allowed: nothing moves
  ASSERT_TRUE(project_onto_constraints(space, {&sum}, solver, x, default_projection_options(), {},
                                       restricted));
  EXPECT_EQ(x, (Eigen::VectorXd(4) << 1, 1, 2, 0).finished());
  restricted.allowed_categories[2] = {1};
  ASSERT_TRUE(project_onto_constraints(space, {&sum}, solver, x, default_projection_options(), {},
                                       restricted));
  EXPECT_EQ(x, (Eigen::VectorXd(4) << 1, 1, 1, 0).finished());  // moved into the set

  restricted.allowed_categories[2] = {3};
  EXPECT_THROW(project_onto_constraints(space, {&sum}, solver, x, default_projection_options(), {},
                                        restricted),
               InvalidArgument);
  restricted.allowed_categories = {{0}};
  EXPECT_THROW(project_onto_constraints(space, {&sum}, solver, x, default_projection_options(), {},
                                        restricted),
               InvalidArgument);
}

TEST(Projection, FeasiblePointStaysAndImpossibleOrUnformulableFails) {
  const Space space({Parameter::integer("a", 0, 4), Parameter::integer("b", 0, 4)});
  Enumerate solver;
  SumAtMost sum(5.0);
  Eigen::VectorXd x(2);
  x << 1, 2;
  ASSERT_TRUE(project_onto_constraints(space, {&sum}, solver, x));
  EXPECT_EQ(x, Eigen::Vector2d(1, 2));
  SumAtMost impossible(-1.0);
  x << 3, 3;
  EXPECT_FALSE(project_onto_constraints(space, {&impossible}, solver, x));
  EXPECT_EQ(x, Eigen::Vector2d(3, 3));
  ValueOnly opaque;
  const int before = solver.calls;
  EXPECT_FALSE(project_onto_constraints(space, {&sum, &opaque}, solver, x));
  EXPECT_EQ(solver.calls, before) << "no solve without every constraint's formulation";
  EXPECT_FALSE(can_formulate({&sum, &opaque}));
  EXPECT_TRUE(can_formulate({&sum}));
}

TEST(Projection, PointVariablesFollowTheSpace) {
  const Space space({Parameter::real("r", -1, 2), Parameter::integer("i", 1, 100, true),
                     Parameter::integer("j", 2, 5), Parameter::categorical("c", {"p", "q"}),
                     Parameter::binary("f")});
  Model m;
  const PointVariables pv = add_point_variables(m, space);
  ASSERT_EQ(pv.x_vars.size(), 5u);
  const auto& v = m.variables();
  EXPECT_EQ(v[0].type, VarType::Continuous);
  EXPECT_EQ(v[1].type, VarType::Continuous);  // log-scaled integers live in ln units
  EXPECT_NEAR(v[1].upper, std::log(100.0), 1e-12);
  EXPECT_EQ(v[2].type, VarType::Integer);
  EXPECT_EQ(v[3].type, VarType::Integer);
  EXPECT_EQ(v[3].upper, 1.0);
  EXPECT_EQ(v[4].type, VarType::Binary);
}

// Stops at its first incumbent, like a branch-and-bound at its limit on a nonconvex model.
class StopsAtFirstPoint final : public ModelSolver {
 public:
  SolveResult solve(const Model& m, const SolveOptions& options) override {
    seen = options;
    SolveResult r;
    r.status = SolveStatus::LimitReached;
    for (const Variable& v : m.variables()) r.x.push_back(v.lower);
    r.objective = m.evaluate(r.x).objective;
    return r;
  }
  SolveOptions seen;
};

TEST(Projection, DefaultOptionsBoundTheSolveAndAFeasibleIncumbentIsTaken) {
  const Space space({Parameter::integer("a", 0, 4), Parameter::integer("b", 0, 4)});
  SumAtMost sum(5.0);
  StopsAtFirstPoint solver;
  Eigen::VectorXd x(2);
  x << 4, 4;
  ASSERT_TRUE(project_onto_constraints(space, {&sum}, solver, x));
  EXPECT_EQ(solver.seen.time_limit_seconds, kDefaultProjectionSeconds);
  EXPECT_EQ(default_projection_options().time_limit_seconds, kDefaultProjectionSeconds);
  // Not the nearest point, (2, 3) or (3, 2), but feasible: a projection needs no proof.
  EXPECT_EQ(x, Eigen::Vector2d(0, 0));
  SolveOptions mine;
  mine.time_limit_seconds = 0.5;
  x << 4, 4;
  ASSERT_TRUE(project_onto_constraints(space, {&sum}, solver, x, mine));
  EXPECT_EQ(solver.seen.time_limit_seconds, 0.5);
  EXPECT_TRUE(solver.seen.starts.empty());
}

TEST(Projection, FeasiblePointsBecomeTheSolvesStarts) {
  // A categorical adds a "changed" binary after the point's variables: the start leaves it,
  // like every variable that is not a coordinate, to the solver (NaN).
  const Space space({Parameter::integer("a", 0, 4), Parameter::categorical("c", {"u", "v"}),
                     Parameter::integer("b", 0, 4)});
  SumAtMost sum(5.0);
  StopsAtFirstPoint solver;
  Eigen::VectorXd x(3), known(3);
  x << 4, 1, 4;
  known << 2, 0, 3;
  ASSERT_TRUE(
      project_onto_constraints(space, {&sum}, solver, x, default_projection_options(), {known}));
  ASSERT_EQ(solver.seen.starts.size(), 1u);
  const std::vector<double>& start = solver.seen.starts[0];
  ASSERT_EQ(start.size(), 4u);
  EXPECT_EQ(start[0], 2.0);
  EXPECT_EQ(start[1], 0.0);
  EXPECT_EQ(start[2], 3.0);
  EXPECT_TRUE(std::isnan(start[3]));
  EXPECT_THROW(project_onto_constraints(space, {&sum}, solver, x, default_projection_options(),
                                        {Eigen::VectorXd::Zero(2)}),
               InvalidArgument);
}

}  // namespace
}  // namespace arbo::sdk
