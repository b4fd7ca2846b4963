// SPDX-License-Identifier: MIT
// GLPK's fatal errors (which abort() the process by default) become exceptions, and GLPK
// works normally afterwards.
#include <string>

#include <glpk.h>
#include <gtest/gtest.h>

#include "bnb.hpp"
#include "glpk_session.hpp"
#include "lp.hpp"
#include "model_families.hpp"

namespace {

using namespace arbo;
using arbo::plugins::glpk::GlpkError;
using arbo::plugins::glpk::GlpkSession;
using arbo::plugins::glpk::Lp;

TEST(glpk_bnb_glpk_errors, invalid_call_is_reported_not_aborting) {
  std::vector<std::string> lines;
  GlpkSession session([&lines](std::string_view l) { lines.emplace_back(l); });
  glp_prob* p = nullptr;
  session.run("creating", [&]() noexcept {
    p = glp_create_prob();
    glp_add_cols(p, 1);
  });
  try {
    // Column 5 does not exist: GLPK calls its error routine, which would abort().
    session.run("an invalid bound", [&]() noexcept { glp_set_col_bnds(p, 5, GLP_DB, 0.0, 1.0); });
    FAIL() << "expected GlpkError";
  } catch (const GlpkError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("an invalid bound"), std::string::npos) << what;
    EXPECT_NE(what.find("out of range"), std::string::npos) << what;
  }
  // The environment was reset (p is gone with it); GLPK is usable again.
  int cols = -1;
  session.run("after the error", [&]() noexcept {
    glp_prob* q = glp_create_prob();
    glp_add_cols(q, 3);
    cols = glp_get_num_cols(q);
    glp_delete_prob(q);
  });
  EXPECT_EQ(cols, 3);
}

TEST(glpk_bnb_glpk_errors, lp_objects_survive_a_reset_safely) {
  {
    GlpkSession session;
    Lp lp(session);
    lp.add_cols({0.0}, {1.0}, {1.0});
    EXPECT_THROW(session.run("bad",
                             [&]() noexcept {
                               glp_prob* q = glp_create_prob();
                               glp_add_cols(q, -1);  // "invalid number of columns"
                             }),
                 GlpkError);
    // The LP's problem was freed with the environment: using it is an error, not a crash,
    // and destroying it does not double-free.
    EXPECT_THROW(lp.solve(-1), GlpkError);
  }
  // A full solve still works in the same process.
  const glpk_test::KnownProblem g = glpk_test::g7();
  const sdk::SolveResult r = plugins::glpk::solve_model(g.model, {});
  EXPECT_EQ(r.status, sdk::SolveStatus::Optimal) << r.message;
}

}  // namespace
