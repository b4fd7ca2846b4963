// SPDX-License-Identifier: MIT
// glpk::coordinate_search, the primal heuristic that improves a solve's start on the
// acquisition itself: its moves, candidates, limits and determinism.
#include <cmath>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <arbo/sdk/acquisition.hpp>
#include <arbo/sdk/constraint.hpp>
#include <arbo/sdk/dataset.hpp>

#include "start_search.hpp"

namespace {

using namespace arbo::sdk;
using arbo::plugins::glpk::coordinate_search;
using arbo::plugins::glpk::StartSearch;

// Separable: -(a - 0.6)^2 - (n - 4)^2 + [c == "z"]; counts its calls.
class Separable final : public Acquisition {
 public:
  void bind(const AcquisitionInputs&) override {}
  double value(const Eigen::VectorXd& x) const override {
    ++calls;
    return -(x[0] - 0.6) * (x[0] - 0.6) - (x[1] - 4.0) * (x[1] - 4.0) + (x[2] == 2.0 ? 1.0 : 0.0);
  }
  mutable long calls = 0;
};

// n <= 2.
class AtMostTwo final : public Constraint {
 public:
  double violation(const Eigen::VectorXd& x) const override { return std::max(0.0, x[1] - 2.0); }
  std::string describe() const override { return "n <= 2"; }
};

Space space() {
  return Space({Parameter::real("a", 0, 1), Parameter::integer("n", 0, 5),
                Parameter::categorical("c", {"x", "y", "z", "w"})});
}

// Observed a values 0.1, 0.5, 0.9: a's candidates are those, the points just past 0.3 and
// 0.7, and the bounds 0 and 1.
Dataset observed() {
  Dataset d;
  d.reset(3, {});
  for (const double a : {0.1, 0.5, 0.9}) d.append(Eigen::Vector3d(a, 0, 0), 1.0, {});
  return d;
}

const auto never = [] { return false; };

// The search on space() with observed(), from (0.1, 0, 0) unless told otherwise.
struct Search {
  StartSearch run(std::int64_t budget, std::vector<const Constraint*> constraints = {},
                  const std::function<bool()>& cancelled = never) {
    return coordinate_search(SolveRequest{&acq, s, std::move(constraints), data}, x0, acq.value(x0),
                             budget, cancelled);
  }
  Space s = space();
  Dataset data = observed();
  Separable acq;
  Eigen::VectorXd x0 = Eigen::Vector3d(0.1, 0, 0);
};

TEST(start_search, moves_every_coordinate_to_its_best_candidate) {
  Search f;
  const StartSearch r = f.run(1000);
  // a = 0.5 (-0.01) beats the candidate just past 0.7 (-0.0101): only candidates are tried.
  EXPECT_DOUBLE_EQ(r.x[0], 0.5);
  EXPECT_EQ(r.x[1], 4.0);
  EXPECT_EQ(r.x[2], 2.0);
  EXPECT_NEAR(r.value, 0.99, 1e-12);
  EXPECT_EQ(r.moves, 3);
  // One sweep that moves (6 + 5 + 3 candidates other than the current value), then one that
  // does not (6 + 5 + 3 again); the counter matches the acquisition's own count.
  EXPECT_EQ(r.evaluations, 28);
  EXPECT_EQ(f.acq.calls, r.evaluations + 1);
}

TEST(start_search, never_leaves_the_known_constraints) {
  Search f;
  AtMostTwo con;
  const StartSearch r = f.run(1000, {&con});
  EXPECT_EQ(r.x[1], 2.0);
  EXPECT_EQ(r.x[2], 2.0);
}

TEST(start_search, stops_at_its_evaluation_budget_and_is_deterministic) {
  Search f;
  const StartSearch r = f.run(4);
  EXPECT_EQ(r.evaluations, 4);
  // The first four of a's candidates in order: 0.5, 0.9, past 0.3, past 0.7; 0.5 wins.
  EXPECT_DOUBLE_EQ(r.x[0], 0.5);
  EXPECT_EQ(r.x[1], 0.0);
  const StartSearch again = f.run(4);
  EXPECT_EQ(again.x, r.x);
  EXPECT_EQ(again.value, r.value);
}

TEST(start_search, a_local_optimum_stays_where_it_is) {
  Search f;
  f.x0 = Eigen::Vector3d(0.5, 4, 2);
  const StartSearch r = f.run(1000);
  EXPECT_EQ(r.moves, 0);
  EXPECT_EQ(r.x, f.x0);
  EXPECT_EQ(r.evaluations, 14);
}

TEST(start_search, an_inactive_coordinate_is_not_moved) {
  Parameter child = Parameter::real("b", 0, 1);
  child.condition = Condition{"c", {Value(std::string("y"))}};
  const Space s({Parameter::real("a", 0, 1), Parameter::integer("n", 0, 5),
                 Parameter::categorical("c", {"x", "y", "z", "w"}), child});
  Dataset data;
  data.reset(4, {});
  data.append(Eigen::Vector4d(0.5, 4, 2, 0.5), 1.0, {});
  // Rewards b alone: with c = "z" (b inactive) no move on b can count.
  class WantsB final : public Acquisition {
   public:
    void bind(const AcquisitionInputs&) override {}
    double value(const Eigen::VectorXd& x) const override { return x[2] == 2.0 ? x[3] : -1.0; }
  } acq;
  const Eigen::Vector4d x0(0.5, 4, 2, s.default_encoded(3));
  const StartSearch r =
      coordinate_search(SolveRequest{&acq, s, {}, data}, x0, acq.value(x0), 1000, never);
  EXPECT_EQ(r.x[3], x0[3]);
  EXPECT_EQ(r.moves, 0);
}

TEST(start_search, cancellation_and_a_zero_budget_return_the_start) {
  Search f;
  for (const auto& [budget, cancelled] :
       {std::pair<long, bool>{0, false}, std::pair<long, bool>{1000, true}}) {
    const StartSearch r = f.run(budget, {}, [c = cancelled] { return c; });
    EXPECT_EQ(r.x, f.x0);
    EXPECT_EQ(r.evaluations, 0);
  }
}

}  // namespace
