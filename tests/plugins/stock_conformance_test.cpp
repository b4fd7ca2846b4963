// SPDX-License-Identifier: MIT
// Every stock plugin library passes the same conformance kit that third parties use.
#include <gtest/gtest.h>

#include <arbo/sdk/testing/conformance.hpp>

namespace {

using arbo::sdk::testing::expect_plugin_conforms;

TEST(stock_plugin_conformance, problem_builtin) {
  expect_plugin_conforms(ARBO_PLUGIN_DIR "/libarbo_problem_builtin.so");
}

TEST(stock_plugin_conformance, inner_solver_random) {
  expect_plugin_conforms(ARBO_PLUGIN_DIR "/libarbo_inner_solver_random.so");
}

TEST(stock_plugin_conformance, problem_leafgp_suite) {
  expect_plugin_conforms(ARBO_PLUGIN_DIR "/libarbo_problem_leafgp_suite.so");
}

TEST(stock_plugin_conformance, problem_mondrian_suite) {
  expect_plugin_conforms(ARBO_PLUGIN_DIR "/libarbo_problem_mondrian_suite.so");
}

TEST(stock_plugin_conformance, problem_bark_suite) {
  expect_plugin_conforms(ARBO_PLUGIN_DIR "/libarbo_problem_bark_suite.so");
}

TEST(stock_plugin_conformance, problem_nnmilp_suite) {
  expect_plugin_conforms(ARBO_PLUGIN_DIR "/libarbo_problem_nnmilp_suite.so");
}

}  // namespace
