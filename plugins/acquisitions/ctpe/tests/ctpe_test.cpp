// SPDX-License-Identifier: MIT
// acquisition/ctpe from its real .so file, on densities fitted by the real surrogate/tpe: the
// conformance kit, relative density ratios, the paper's ablations and candidate shares.
#include <cmath>
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

TEST(tpe_conformance, acquisition_ctpe) {
  arbo::sdk::testing::expect_plugin_conforms(ARBO_PLUGIN_DIR "/libarbo_acquisition_ctpe.so");
}

// --- acquisition -----------------------------------------------------------------------------

TEST(ctpe_acquisition, value_is_the_sum_of_log_relative_ratios) {
  const Space space({Parameter::real("x", 0.0, 1.0), Parameter::real("y", 0.0, 1.0)});
  const Eigen::MatrixXd X = random_points(space, 40, 8);
  Eigen::MatrixXd C(40, 1);
  C.col(0) = X.col(1).array() - 0.4;
  const Dataset data = make_data(space, X, X.col(0), C);
  Fitted m(space, data);
  Ctpe acq(space);
  acq->bind(AcquisitionInputs{data, m.f.ptr, {m.c.ptr}, data.incumbent()});
  const Eigen::MatrixXd Q = random_points(space, 10, 9);
  for (Eigen::Index i = 0; i < Q.rows(); ++i) {
    const Eigen::VectorXd q = Q.row(i).transpose();
    double expected = 0.0;
    for (const Tpe* t : {&m.f, &m.c}) {
      const double r = std::exp(t->density().log_l(q) - t->density().log_g(q));
      expected += std::log(1.0 / (t->gamma() + (1.0 - t->gamma()) / r));
    }
    EXPECT_NEAR(acq->value(q), expected, 1e-9);
  }
}

TEST(ctpe_acquisition, gamma_one_is_an_exact_no_op) {
  // Every point satisfies the constraint: its model has gamma_hat = 1.
  const Space space({Parameter::real("x", 0.0, 1.0), Parameter::real("y", 0.0, 1.0)});
  const Eigen::MatrixXd X = random_points(space, 30, 10);
  const Dataset data = make_data(space, X, X.col(0), Eigen::MatrixXd::Constant(30, 1, -1.0));
  Fitted m(space, data);
  ASSERT_EQ(m.c.gamma(), 1.0);
  Ctpe with(space), without(space);
  with->bind(AcquisitionInputs{data, m.f.ptr, {m.c.ptr}, data.incumbent()});
  without->bind(AcquisitionInputs{data, m.f.ptr, {}, data.incumbent()});
  const Eigen::MatrixXd Q = random_points(space, 50, 11);
  for (Eigen::Index i = 0; i < Q.rows(); ++i) {
    const Eigen::VectorXd q = Q.row(i).transpose();
    EXPECT_EQ(with->value(q), without->value(q));
  }
}

TEST(ctpe_acquisition, corollary_2_argmax_equals_tpe_when_constraints_always_hold) {
  const Space space({Parameter::real("x", -5.0, 5.0), Parameter::real("y", -5.0, 5.0)});
  const Eigen::MatrixXd X = random_points(space, 60, 12);
  const Eigen::VectorXd f = (X.col(0).array() + 2).square() + (X.col(1).array() + 2).square();
  const Dataset data = make_data(space, X, f, Eigen::MatrixXd::Constant(60, 1, -1.0));
  Fitted m(space, data);
  Ctpe ctpe(space), tpe(space, "vanilla");
  ctpe->bind(AcquisitionInputs{data, m.f.ptr, {m.c.ptr}, data.incumbent()});
  tpe->bind(AcquisitionInputs{data, m.f.ptr, {m.c.ptr}, data.incumbent()});
  std::mt19937_64 rng(3);
  Eigen::MatrixXd cand;
  dynamic_cast<const ProposesCandidates&>(*ctpe.object).candidates(48, rng, cand);
  Eigen::VectorXd a, b;
  ctpe->values(cand, a);
  tpe->values(cand, b);
  Eigen::Index ia = 0, ib = 0;
  a.maxCoeff(&ia);
  b.maxCoeff(&ib);
  EXPECT_EQ(ia, ib);
}

TEST(ctpe_acquisition, naive_mode_is_the_product_of_plain_ratios) {
  const Space space({Parameter::real("x", 0.0, 1.0)});
  const Eigen::MatrixXd X = random_points(space, 20, 13);
  Eigen::MatrixXd C(20, 1);
  C.col(0) = 0.5 - X.col(0).array();
  const Dataset data = make_data(space, X, X.col(0), C);
  Fitted m(space, data, false);
  Ctpe naive(space, "naive");
  naive->bind(AcquisitionInputs{data, m.f.ptr, {m.c.ptr}, data.incumbent()});
  Eigen::VectorXd q(1);
  q << 0.45;
  const double expected = m.f.density().log_l(q) - m.f.density().log_g(q) + m.c.density().log_l(q) -
                          m.c.density().log_g(q);
  EXPECT_NEAR(naive->value(q), expected, 1e-12);
}

TEST(ctpe_acquisition, candidates_come_in_equal_shares_from_each_model) {
  const Space space({Parameter::real("x", 0.0, 1.0)});
  const Eigen::MatrixXd X = random_points(space, 40, 14);
  Eigen::MatrixXd C(40, 1);
  C.col(0) = 0.8 - X.col(0).array();  // satisfied only near x = 1; the objective likes x = 0
  const Dataset data = make_data(space, X, X.col(0), C);
  Fitted m(space, data);
  Ctpe acq(space);
  acq->bind(AcquisitionInputs{data, m.f.ptr, {m.c.ptr}, data.incumbent()});
  std::mt19937_64 rng(5);
  Eigen::MatrixXd cand;
  dynamic_cast<const ProposesCandidates&>(*acq.object).candidates(48, rng, cand);
  ASSERT_EQ(cand.rows(), 48);
  // The first 24 come from the objective's l (near its feasible good set), the last 24 from
  // the constraint's l (near x >= 0.8).
  EXPECT_GT(cand.bottomRows(24).col(0).mean(), 0.7);
}

}  // namespace
