// SPDX-License-Identifier: MIT
// configs/c-tpe.toml through the real CLI: a run, knowledge augmentation (stored once, never
// an observation, never re-evaluated on resume) and the configuration errors around it.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/cli_harness.hpp"

namespace {

using arbo::test::CliResult;
using arbo::test::slurp;
using nlohmann::json;

const std::string kConfig = std::string(ARBO_SOURCE_DIR) + "/configs/c-tpe.toml";

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) ++n;
  return n;
}

class CtpeCli : public arbo::test::CliTest {
 protected:
  CtpeCli() : CliTest("arbo_tpe_e2e_") {}

  json observations(const std::string& study) {
    const CliResult r = arbo("export " + study + " --format json");
    EXPECT_EQ(r.code, 0) << r.err;
    const json j = json::parse(r.out);
    return j.is_array() ? j : j.at("observations");
  }
};

const std::string kAugment =
    " --set 'augmentation.cheap_constraints=[\"disk\"]' --set augmentation.points=60";

TEST_F(CtpeCli, RunsThePaperPipeline) {
  const CliResult r = arbo("run '" + kConfig + "' --study s -q --set study.budget=40");
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  const json obs = observations("s");
  ASSERT_EQ(obs.size(), 40u);
  const std::string log = slurp(dir_ / "s" / "arbo.log");
  EXPECT_EQ(count(log, "knowledge augmentation"), 0u);
  // The model proposes after the 10 random points.
  const std::string shown = obs.dump();
  EXPECT_NE(shown.find("candidate_pool"), std::string::npos);
}

TEST_F(CtpeCli, KnowledgeAugmentationIsStoredOnceAndSurvivesResume) {
  CliResult r = arbo("run '" + kConfig + "' --study a -q --set study.budget=25" + kAugment);
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  EXPECT_EQ(observations("a").size(), 25u);  // extra points are not observations
  r = arbo("run --resume --study a -q --set study.budget=45");
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  const std::string log = slurp(dir_ / "a" / "arbo.log");
  EXPECT_EQ(count(log, "knowledge augmentation: evaluated 60 points"), 1u) << log;
  EXPECT_EQ(count(log, "knowledge augmentation: read 60 stored points"), 1u) << log;

  // An uninterrupted study proposes exactly the same points.
  r = arbo("run '" + kConfig + "' --study b -q --set study.budget=45" + kAugment);
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  const json a = observations("a"), b = observations("b");
  ASSERT_EQ(a.size(), 45u);
  ASSERT_EQ(b.size(), 45u);
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].at("params"), b[i].at("params")) << i;

  // The augmentation changes the constraint model, hence the proposals.
  r = arbo("run '" + kConfig + "' --study c -q --set study.budget=45");
  ASSERT_EQ(r.code, 0) << r.err;
  const json c = observations("c");
  bool differ = false;
  for (std::size_t i = 10; i < c.size(); ++i)
    differ = differ || c[i].at("params") != a[i].at("params");
  EXPECT_TRUE(differ);
}

TEST_F(CtpeCli, AugmentationOfAnUnknownConstraintIsAConfigError) {
  const CliResult r =
      arbo("run '" + kConfig + "' --study s -q --set 'augmentation.cheap_constraints=[\"nope\"]'");
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("no black-box constraint 'nope' (it has: disk)"), std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "s" / "study.db"));
}

TEST_F(CtpeCli, AugmentationTableInAFileIsCheckedAndRuns) {
  write("p.toml", R"(
[study]
budget = 20
[problem]
plugin = "ctpe_vanished_constraints"
[surrogate]
plugin = "tpe"
[acquisition]
plugin = "ctpe"
[inner_solver]
plugin = "candidate_pool"
[augmentation]
cheap_constraints = ["disk"]
points = 10
)");
  CliResult r = arbo("check p.toml");
  EXPECT_EQ(r.code, 0) << r.err;
  r = arbo("run p.toml --study s -q");
  EXPECT_EQ(r.code, 0) << r.err;
}

}  // namespace
