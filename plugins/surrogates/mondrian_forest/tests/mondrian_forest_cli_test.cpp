// SPDX-License-Identifier: MIT
// The Mondrian-forest pipeline through the real `arbo` binary: the distance uncertainty's sigma
// is in the objective's units (scaling the objective changes no proposal), and a black-box
// inner solver that sees a constant acquisition says so once per proposal.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/cli_harness.hpp"

namespace {

using arbo::test::CliResult;
using nlohmann::json;

// Constrained Branin (thesis App. A.1.1) times the first argument, with a constraint of its own
// scale; `python3 obj.py 0` makes the objective constant.
const char* kObjective = R"(import json, math, sys
scale = float(sys.argv[1])
p = json.load(sys.stdin)["params"]
x1, x2 = p["x1"], p["x2"]
f = (x2 - 5.1 / (4 * math.pi ** 2) * x1 ** 2 + 5 / math.pi * x1 - 6) ** 2 \
    + 10 * (1 - 1 / (8 * math.pi)) * math.cos(x1) + 10
print(json.dumps({"objective": scale * f,
                  "constraints": {"c": (x1 - 2.5) ** 2 + (x2 - 7.5) ** 2 - 50}}))
)";

std::string pipeline(const std::string& scale, const std::string& solver) {
  return R"([study]
seed = 3
budget = 16
[problem]
command = ["python3", "obj.py", ")" +
         scale + R"("]
[[problem.parameters]]
name = "x1"
type = "real"
low = -5.0
high = 10.0
[[problem.parameters]]
name = "x2"
type = "real"
low = 0.0
high = 15.0
[[black_box_constraints]]
name = "c"
sense = "<="
threshold = 0.0
[initial_design]
method = "sobol"
size = 6
[surrogate]
plugin = "mondrian_forest"
[acquisition]
plugin = "cwei"
[inner_solver]
plugin = ")" +
         solver +
         R"("
)";
}

class MondrianCli : public arbo::test::CliTest {
 protected:
  MondrianCli() : CliTest("arbo_mondrian_") {}
  void SetUp() override {
    CliTest::SetUp();
    write("obj.py", kObjective);
  }

  // The proposed points of a study of `pipeline` (and `extra` --set options), as JSON text.
  std::vector<std::string> points(const std::string& name, const std::string& text,
                                  const std::string& extra = "") {
    write(name + ".toml", text);
    const CliResult r = arbo("run " + name + ".toml --study " + name + " " + extra);
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    std::vector<std::string> out;
    for (const json& o : export_json(name)) out.push_back(o["params"].dump());
    EXPECT_EQ(out.size(), 16u);
    return out;
  }
};

// Sampling's argmax is invariant under a positive scaling of the acquisition, so the proposals
// depend only on the models. (Nelder-Mead's fatol is an absolute tolerance, as in SciPy: its
// stopping point may move when the acquisition's scale changes.)
TEST_F(MondrianCli, ScalingTheObjectiveBy1e4ChangesNoProposal) {
  const std::string opts = "--set inner_solver.samples=3000";
  const auto base = points("a", pipeline("1", "sampling"), opts);
  EXPECT_EQ(points("b", pipeline("1e4", "sampling"), opts), base);
  EXPECT_EQ(points("c", pipeline("1e-4", "sampling"), opts), base);
  // The former default (u used as sigma, with a cap in squared units) is not invariant, so
  // the checks above can fail: shrunk by 1e-4, sigma = Var(y) at most is ~1e-4 of the
  // objective's spread and expected improvement underflows (Keane-30D's symptom).
  const std::string old = opts + " --set 'surrogate.distance_as=\"stddev\"'";
  EXPECT_NE(points("d", pipeline("1", "sampling"), old),
            points("e", pipeline("1e-4", "sampling"), old));
}

// A constant objective: Var(y) = 0 clips the distance uncertainty to 0 and the forest predicts
// the constant, so EI (times PoF, which is 1 or 0 per point) can only take the values 0 and -0.
// Each black-box solver warns at each model proposal; with a varying objective none does.
TEST_F(MondrianCli, BlackBoxSolversWarnOncePerProposalWhenTheAcquisitionIsConstant) {
  for (const std::string solver : {"sampling", "nelder_mead", "random", "candidate_pool"}) {
    std::string text = pipeline("0", solver);
    // Without the constraint, EI is exactly 0 at every point.
    text = text.substr(0, text.find("[[black_box_constraints]]")) +
           text.substr(text.find("[initial_design]"));
    write(solver + ".toml", text);
    // Fewer samples than the defaults (20,000): the warning does not depend on them.
    const std::string samples = solver == "candidate_pool" ? "" : " --set inner_solver.samples=500";
    const CliResult r = arbo("run " + solver + ".toml --study " + solver + samples);
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    std::size_t warnings = 0;
    for (std::size_t at = r.err.find("no better than a random point"); at != std::string::npos;
         at = r.err.find("no better than a random point", at + 1)) {
      ++warnings;
    }
    EXPECT_EQ(warnings, 10u) << solver << ": " << r.err;  // 16 evaluations, 6 of the design
    EXPECT_NE(r.err.find("acquisition/cwei was "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("inner_solver/" + solver + " evaluated"), std::string::npos) << r.err;

    write(solver + "_ok.toml", pipeline("1", solver));
    const CliResult ok = arbo("run " + solver + "_ok.toml --study " + solver + "_ok" + samples);
    ASSERT_EQ(ok.code, 0) << ok.out << ok.err;
    EXPECT_EQ(ok.err.find("no better than a random point"), std::string::npos) << ok.err;
  }
}

// An acquisition that ignores black-box constraint models is refused on a problem that has
// them, by `arbo check` and by `arbo run` before any evaluation, naming the capability.
TEST_F(MondrianCli, AnAcquisitionIgnoringBlackBoxConstraintsIsRefused) {
  std::string text = pipeline("1", "sampling");
  text.replace(text.find("plugin = \"cwei\""), 15, "plugin = \"ei\"");
  write("ei.toml", text);
  for (const std::string command : {"check ei.toml", "run ei.toml --study ei"}) {
    const CliResult r = arbo(command);
    EXPECT_EQ(r.code, 3) << command << ": " << r.out << r.err;
    EXPECT_NE(r.err.find("acquisition/ei ignores black-box constraints"), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("RespectsBlackBoxConstraints"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(": c;"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(dir_ / "ei" / "study.db"));
  // The constrained acquisitions pass.
  text.replace(text.find("plugin = \"ei\""), 13, "plugin = \"lcb\"");
  write("lcb.toml", text);
  EXPECT_EQ(arbo("check lcb.toml").code, 0);
}

}  // namespace
