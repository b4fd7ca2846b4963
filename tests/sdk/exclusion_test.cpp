// SPDX-License-Identifier: MIT
// sdk/exclusion.hpp without a solver: the evaluated-point set, point enumeration, and the
// no-good cuts checked row by row with Model::evaluate (the glpk_bnb plugin's tests solve them).
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "arbo/sdk/error.hpp"
#include "arbo/sdk/exclusion.hpp"

namespace {

using namespace arbo::sdk;

Space mixed_discrete() {
  return Space({Parameter::binary("b"), Parameter::categorical("c", {"p", "q", "r"}),
                Parameter::integer("n", -1, 2), Parameter::integer("w", 0, 99)});
}

TEST(Exclusion, EvaluatedPointsHoldCompletedFailedAndPendingRows) {
  Dataset data;
  data.reset(2, {});
  data.append(Eigen::Vector2d(1, 2), 0.5, Eigen::VectorXd());
  data.append_failed(Eigen::Vector2d(0, 3));
  data.X_pending = Eigen::RowVector2d(-0.0, 1);
  const EvaluatedPoints e(data);
  EXPECT_EQ(e.size(), 3u);
  EXPECT_TRUE(e.contains(Eigen::Vector2d(1, 2)));
  EXPECT_TRUE(e.contains(Eigen::Vector2d(0, 3)));
  EXPECT_TRUE(e.contains(Eigen::Vector2d(0.0, 1)));  // -0.0 and 0.0 are one coordinate
  EXPECT_FALSE(e.contains(Eigen::Vector2d(1, 3)));
  EXPECT_FALSE(e.contains(Eigen::Vector2d(1, 2 + 1e-12)));
}

TEST(Exclusion, EnumerationVisitsEveryPointOnce) {
  const Space s = mixed_discrete();
  EXPECT_EQ(count_points(s, 1u << 20), 2u * 3u * 4u * 100u);
  EXPECT_EQ(count_points(s, 100), 0u);  // above the limit
  EXPECT_EQ(count_points(Space({Parameter::real("x", 0, 1)}), 1u << 20), 0u);
  std::set<std::vector<double>> seen;
  Eigen::VectorXd x;
  for (std::size_t k = 0; k < 2400; ++k) {
    point_at(s, k, x);
    Eigen::VectorXd snapped = x;
    s.snap(snapped);
    EXPECT_EQ(snapped, x);
    seen.insert(std::vector<double>(x.data(), x.data() + x.size()));
  }
  EXPECT_EQ(seen.size(), 2400u);
  EXPECT_EQ(first_continuous_parameter(s), "");
  EXPECT_EQ(first_continuous_parameter(Space({Parameter::binary("a"), Parameter::real("x", 0, 1)})),
            "x");
}

// Every point of the space, with its auxiliary variables set the only way the model allows
// (indicators from the value; a disjunction's binaries from the side the point lies on), must
// satisfy the model exactly when it is not one of the excluded points.
TEST(Exclusion, CutsAdmitExactlyTheUnexcludedPoints) {
  const Space s = mixed_discrete();
  Model m;
  const PointVariables pv = add_point_variables(m, s);
  Eigen::MatrixXd excluded(3, 4);
  excluded << 1, 2, -1, 0,  //
      0, 0, 2, 99,          //
      1, 1, 0, 50;
  EXPECT_EQ(add_exclusion_cuts(m, pv, s, excluded), 3u);
  // c (3 values) and n (4) get indicators; w (100 values) gets disjunctions.
  ASSERT_NE(m.value_indicators(pv.x_vars[1]), nullptr);
  ASSERT_NE(m.value_indicators(pv.x_vars[2]), nullptr);
  EXPECT_EQ(m.value_indicators(pv.x_vars[3]), nullptr);
  Eigen::VectorXd x;
  std::size_t admitted = 0;
  for (std::size_t k = 0; k < count_points(s, 1u << 20); ++k) {
    point_at(s, k, x);
    std::vector<double> v(m.num_variables(), 0.0);
    for (std::size_t i = 0; i < 4; ++i)
      v[static_cast<std::size_t>(pv.x_vars[i])] = x[static_cast<Eigen::Index>(i)];
    for (const int var : {pv.x_vars[1], pv.x_vars[2]}) {
      const ValueIndicators& ind = *m.value_indicators(var);
      for (std::size_t j = 0; j < ind.values.size(); ++j) {
        if (ind.values[j] == v[static_cast<std::size_t>(var)])
          v[static_cast<std::size_t>(ind.binaries[j])] = 1.0;
      }
    }
    for (std::size_t j = 0; j < m.num_variables(); ++j) {
      const std::string& name = m.variables()[j].name;  // ex_up_<row>_3, ex_down_<row>_3
      int row = -1, coordinate = -1;
      if (std::sscanf(name.c_str(), "ex_up_%d_%d", &row, &coordinate) == 2) {
        v[j] = x[3] >= excluded(row, 3) + 1 ? 1.0 : 0.0;
      } else if (std::sscanf(name.c_str(), "ex_down_%d_%d", &row, &coordinate) == 2) {
        v[j] = x[3] <= excluded(row, 3) - 1 ? 1.0 : 0.0;
      }
    }
    bool is_excluded = false;
    for (Eigen::Index r = 0; r < excluded.rows(); ++r)
      is_excluded |= excluded.row(r).transpose() == x;
    const bool ok = m.evaluate(v).max_violation() <= 1e-9;
    EXPECT_EQ(ok, !is_excluded) << x.transpose();
    admitted += ok ? 1 : 0;
  }
  EXPECT_EQ(admitted, 2400u - 3u);
}

TEST(Exclusion, RealAndLogScaledCoordinatesAreRefused) {
  for (const Parameter& p : {Parameter::real("x", 0, 1), Parameter::integer("k", 1, 64, true)}) {
    const Space s({Parameter::binary("b"), p});
    Model m;
    const PointVariables pv = add_point_variables(m, s);
    try {
      add_exclusion_cuts(m, pv, s, Eigen::MatrixXd::Zero(1, 2));
      ADD_FAILURE() << "no error for " << p.name;
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("'" + p.name + "'"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
