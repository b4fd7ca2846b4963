// SPDX-License-Identifier: MIT
// inner_solver/candidate_pool from its real .so file: the conformance kit, candidates of the
// real acquisition/ctpe under known constraints, the uniform fallback and draws per model.
#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include <arbo/sdk/capabilities.hpp>
#include <arbo/sdk/testing/conformance.hpp>

#include "tpe_fixtures.hpp"

namespace {

using namespace arbo::sdk;
using namespace arbo::tpe_test;

// --- conformance ---------------------------------------------------------------------------

TEST(tpe_conformance, inner_solver_candidate_pool) {
  arbo::sdk::testing::expect_plugin_conforms(ARBO_PLUGIN_DIR
                                             "/libarbo_inner_solver_candidate_pool.so");
}

// --- candidate pool --------------------------------------------------------------------------

class UpperBound final : public Constraint {
 public:
  explicit UpperBound(double bound) : bound_(bound) {}
  double violation(const Eigen::VectorXd& x) const override { return std::max(0.0, x[0] - bound_); }

 private:
  double bound_;
};

// Proposes only x0 = 1 (infeasible under UpperBound(0.5)); scores -x0.
class Stubborn final : public Acquisition, public ProposesCandidates {
 public:
  void bind(const AcquisitionInputs&) override {}
  double value(const Eigen::VectorXd& x) const override { return -x[0]; }
  void candidates(std::size_t n, std::mt19937_64&, Eigen::MatrixXd& out) const override {
    ++calls;
    out = Eigen::MatrixXd::Ones(static_cast<Eigen::Index>(n), 1);
  }
  mutable int calls = 0;
};

struct Pool : Made<InnerSolver> {
  explicit Pool(const Space& s, const std::map<std::string, ParamValue>& raw = {})
      : Made(Kind::InnerSolver, "libarbo_inner_solver_candidate_pool.so", "candidate_pool", s,
             raw) {}
};

TEST(candidate_pool, uses_the_acquisition_candidates_and_respects_known_constraints) {
  const Space space({Parameter::real("x", 0.0, 1.0), Parameter::real("y", 0.0, 1.0)});
  const Eigen::MatrixXd X = random_points(space, 30, 15);
  Eigen::MatrixXd C(30, 1);
  C.col(0) = X.col(1).array() - 0.5;
  const Dataset data = make_data(space, X, X.col(0), C);
  Fitted m(space, data);
  Ctpe acq(space);
  acq->bind(AcquisitionInputs{data, m.f.ptr, {m.c.ptr}, data.incumbent()});
  const UpperBound bound(0.3);
  Pool pool(space);
  for (int rep = 0; rep < 10; ++rep) {
    const Proposal p = pool->maximize(SolveRequest{acq.ptr, space, {&bound}, data});
    ASSERT_TRUE(p.found) << p.note;
    EXPECT_LE(p.x[0], 0.3);
    EXPECT_NE(p.note.find("proposed"), std::string::npos) << p.note;
    EXPECT_DOUBLE_EQ(p.value, acq->value(p.x));
  }
}

TEST(candidate_pool, falls_back_to_uniform_points_when_every_candidate_is_infeasible) {
  const Space space({Parameter::real("x", 0.0, 1.0)});
  Dataset data;
  data.reset(1, {});
  const UpperBound bound(0.5);
  Stubborn acq;
  Pool pool(space, {{"rounds", std::int64_t{3}}});
  const Proposal p = pool->maximize(SolveRequest{&acq, space, {&bound}, data});
  ASSERT_TRUE(p.found);
  EXPECT_LE(p.x[0], 0.5);
  EXPECT_EQ(acq.calls, 3);
  EXPECT_NE(p.note.find("uniform fallback"), std::string::npos) << p.note;
}

TEST(candidate_pool, works_without_a_model) {
  const Space space({Parameter::real("x", 0.0, 1.0)});
  Dataset data;
  data.reset(1, {});
  const UpperBound bound(0.1);
  Pool pool(space);
  const Proposal p = pool->maximize(SolveRequest{nullptr, space, {&bound}, data});
  ASSERT_TRUE(p.found);
  EXPECT_LE(p.x[0], 0.1);
}

TEST(candidate_pool, asks_for_draws_per_model) {
  const Space space({Parameter::real("x", 0.0, 1.0)});
  Dataset data;
  data.reset(1, {"a", "b"});
  Stubborn acq;
  Pool pool(space, {{"draws", std::int64_t{5}}});
  // x = 1 is feasible here: no known constraints.
  const Proposal p = pool->maximize(SolveRequest{&acq, space, {}, data});
  ASSERT_TRUE(p.found);
  EXPECT_NE(p.note.find("best of 15 proposed"), std::string::npos) << p.note;
}

}  // namespace
