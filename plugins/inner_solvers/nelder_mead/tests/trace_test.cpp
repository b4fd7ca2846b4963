// SPDX-License-Identifier: MIT
// The Nelder-Mead core against SciPy 1.10, iteration by iteration: the recorded trace
// (data/scipy_trace.json, written by data/record_trace.py) holds SciPy's best vertex, its value
// and the evaluation count after every pass of the main loop.
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "nelder_mead.hpp"

namespace {

namespace nm = arbo::plugins::nelder_mead;
using nlohmann::json;

// The same scalar arithmetic as record_trace.py, so values agree to the last bit.
double rosenbrock(const Eigen::VectorXd& x) {
  double s = 0.0;
  for (Eigen::Index i = 0; i + 1 < x.size(); ++i) {
    const double t = x[i + 1] - x[i] * x[i];
    const double u = 1.0 - x[i];
    s = s + 100.0 * t * t + u * u;
  }
  return s;
}

double himmelblau(const Eigen::VectorXd& x) {
  const double p = x[0] * x[0] + x[1] - 11.0;
  const double q = x[0] + x[1] * x[1] - 7.0;
  return p * p + q * q;
}

double coupled_quadratic(const Eigen::VectorXd& x) {
  double s = 0.0;
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    const double t = x[i] - 0.3 * static_cast<double>(i);
    s = s + (static_cast<double>(i) + 1.0) * t * t;
  }
  return s + 0.5 * x[0] * x[2];
}

double evaluate(const std::string& name, const Eigen::VectorXd& x) {
  if (name == "rosenbrock") return rosenbrock(x);
  if (name == "himmelblau") return himmelblau(x);
  if (name == "coupled_quadratic") return coupled_quadratic(x);
  throw std::runtime_error("unknown function " + name);
}

Eigen::VectorXd vec(const json& a) {
  Eigen::VectorXd v(static_cast<Eigen::Index>(a.size()));
  for (std::size_t i = 0; i < a.size(); ++i) v[static_cast<Eigen::Index>(i)] = a[i].get<double>();
  return v;
}

const json& trace_file() {
  static const json doc = [] {
    std::ifstream in(NELDER_MEAD_DATA_DIR "/scipy_trace.json");
    if (!in) throw std::runtime_error("cannot open " NELDER_MEAD_DATA_DIR "/scipy_trace.json");
    return json::parse(in);
  }();
  return doc;
}

struct Step {
  Eigen::VectorXd x;
  double f;
  std::int64_t nfev;
};

class ScipyTrace : public ::testing::TestWithParam<std::size_t> {};

TEST_P(ScipyTrace, matches_every_iteration) {
  const json& c = trace_file()["cases"][GetParam()];
  SCOPED_TRACE(c["name"].get<std::string>());
  const std::string function = c["function"];
  const Eigen::VectorXd x0 = vec(c["x0"]);
  const Eigen::Index n = x0.size();
  Eigen::VectorXd lower = Eigen::VectorXd::Constant(n, -std::numeric_limits<double>::infinity());
  Eigen::VectorXd upper = Eigen::VectorXd::Constant(n, std::numeric_limits<double>::infinity());
  if (!c["lower"].is_null()) {
    lower = vec(c["lower"]);
    upper = vec(c["upper"]);
  }
  nm::Options options;
  options.adaptive = c["adaptive"].get<bool>();
  if (!c["maxiter"].is_null()) options.maxiter = c["maxiter"].get<std::int64_t>();
  if (!c["maxfev"].is_null()) options.maxfev = c["maxfev"].get<std::int64_t>();

  std::vector<Step> steps;
  nm::Workspace ws;
  const nm::Result r = nm::minimize([&](const Eigen::VectorXd& x) { return evaluate(function, x); },
                                    x0, lower, upper, options, ws,
                                    [&](const Eigen::VectorXd& x, double f, std::int64_t nfev) {
                                      steps.push_back({x, f, nfev});
                                      return true;
                                    });

  const json& trace = c["trace"];
  ASSERT_EQ(steps.size(), trace.size());
  ASSERT_GT(steps.size(), 10u) << "a trace too short to test anything";
  for (std::size_t k = 0; k < steps.size(); ++k) {
    const Eigen::VectorXd want = vec(trace[k]["x"]);
    const double scale = std::max(1.0, want.cwiseAbs().maxCoeff());
    ASSERT_LE((steps[k].x - want).cwiseAbs().maxCoeff(), 1e-12 * scale) << "iteration " << k;
    ASSERT_NEAR(steps[k].f, trace[k]["f"].get<double>(),
                1e-12 * std::max(1.0, std::abs(trace[k]["f"].get<double>())))
        << "iteration " << k;
    ASSERT_EQ(steps[k].nfev, trace[k]["nfev"].get<std::int64_t>()) << "iteration " << k;
  }
  const json& res = c["result"];
  EXPECT_EQ(r.nit, res["nit"].get<std::int64_t>());
  EXPECT_EQ(r.nfev, res["nfev"].get<std::int64_t>());
  EXPECT_NEAR(r.fun, res["fun"].get<double>(), 1e-12 * std::max(1.0, std::abs(r.fun)));
  EXPECT_LE((r.x - vec(res["x"])).cwiseAbs().maxCoeff(), 1e-12);
  // SciPy's status: 0 success, 1 maxfev, 2 maxiter.
  const int status = res["status"].get<int>();
  const nm::Status want_status = status == 0   ? nm::Status::Converged
                                 : status == 1 ? nm::Status::MaxFev
                                               : nm::Status::MaxIter;
  EXPECT_EQ(r.status, want_status);
}

std::string case_name(const ::testing::TestParamInfo<std::size_t>& info) {
  return trace_file()["cases"][info.param]["name"].get<std::string>();
}

INSTANTIATE_TEST_SUITE_P(nelder_mead, ScipyTrace, ::testing::Values(0u, 1u, 2u, 3u), case_name);

TEST(nelder_mead_trace, recorded_with_scipy_1_10) {
  EXPECT_EQ(trace_file()["scipy"].get<std::string>().rfind("1.10", 0), 0u);
  EXPECT_EQ(trace_file()["cases"].size(), 4u);
}

}  // namespace
