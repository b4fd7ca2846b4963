// SPDX-License-Identifier: MIT
/// @file
/// @brief Pipeline loading: golden error messages, defaults, overrides, typed parameters and
///        the `to_toml` round trip, against a fake component lookup.
///
/// Golden files: `invalid/<case>.toml` must fail with exactly `expected/<case>.txt`. Leading
/// lines `# --set key=value` are passed as overrides. `ARBO_UPDATE_GOLDENS=1` rewrites the
/// expected files instead of comparing (review the diff before committing).
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "arbo/kernel/errors.hpp"
#include "arbo/kernel/pipeline.hpp"

namespace {

namespace fs = std::filesystem;
using arbo::kernel::ComponentLookup;
using arbo::kernel::ComponentSpec;
using arbo::kernel::ConfigError;
using arbo::kernel::DesignMethod;
using arbo::kernel::parse_pipeline;
using arbo::kernel::Pipeline;
using arbo::kernel::to_toml;
namespace sdk = arbo::sdk;

// --- fake components -------------------------------------------------------------------------

const sdk::ParamSpecList& branin_params() {
  static const sdk::ParamSpecList specs = {
      sdk::ParamSpec::real("shift", "offset added to the objective", 0.0, 0.0)};
  return specs;
}
const sdk::ParamSpecList& no_params() {
  static const sdk::ParamSpecList specs;
  return specs;
}
const sdk::ParamSpecList& random_params() {
  static const sdk::ParamSpecList specs = {
      sdk::ParamSpec::integer("samples", "candidates drawn per call", 100, 1),
      sdk::ParamSpec::integer("max_tries", "draws before giving up on feasibility", 1000, 1)};
  return specs;
}
const sdk::ParamSpecList& nelder_mead_params() {
  static const sdk::ParamSpecList specs = {
      sdk::ParamSpec::integer("restarts", "number of restarts", 3, 0)};
  return specs;
}
const sdk::ParamSpecList& linear_params() {
  static const sdk::ParamSpecList specs = {
      sdk::ParamSpec::real_list("coefficients", "one coefficient per parameter", {}),
      sdk::ParamSpec::real("rhs", "right-hand side", 0.0),
      sdk::ParamSpec::choice("sense", "direction of the inequality", "<=", {"<=", ">="})};
  return specs;
}
const sdk::ParamSpecList& surrogate_params() {
  static const sdk::ParamSpecList specs = {
      sdk::ParamSpec::choice("kernel", "covariance function", "matern52", {"matern52", "rbf"}),
      sdk::ParamSpec::real("jitter", "diagonal jitter", 1e-6, 0.0),
      sdk::ParamSpec::string("label", "free text", "")};
  return specs;
}
const sdk::ParamSpecList& acquisition_params() {
  static const sdk::ParamSpecList specs = {
      sdk::ParamSpec::real("xi", "exploration margin", 0.01, 0.0),
      sdk::ParamSpec::boolean("use_pending", "account for pending points", true)};
  return specs;
}

const sdk::ComponentInfo kComponents[] = {
    {sdk::Kind::Problem, "branin", "Branin-Hoo", &branin_params, nullptr},
    {sdk::Kind::Problem, "hartmann6", "Hartmann 6-D", &no_params, nullptr},
    {sdk::Kind::InnerSolver, "random", "random sampling", &random_params, nullptr},
    {sdk::Kind::InnerSolver, "nelder_mead", "Nelder-Mead", &nelder_mead_params, nullptr},
    {sdk::Kind::Constraint, "linear", "a'x <= b", &linear_params, nullptr},
    {sdk::Kind::Surrogate, "fake", "fake surrogate", &surrogate_params, nullptr},
    {sdk::Kind::Acquisition, "fake", "fake acquisition", &acquisition_params, nullptr},
};

ComponentLookup fake_lookup() {
  ComponentLookup lookup;
  lookup.find = [](sdk::Kind kind, std::string_view name) -> const sdk::ComponentInfo* {
    for (const auto& c : kComponents) {
      if (c.kind == kind && name == c.name) return &c;
    }
    return nullptr;
  };
  lookup.names = [](sdk::Kind kind) {
    std::vector<std::string> names;
    for (const auto& c : kComponents) {
      if (c.kind == kind) names.emplace_back(c.name);
    }
    return names;
  };
  return lookup;
}

Pipeline parse(const std::string& text, const std::vector<std::string>& overrides = {}) {
  return parse_pipeline(text, "test.toml", overrides, fake_lookup());
}

std::string parse_error(const std::string& text, const std::vector<std::string>& overrides = {},
                        const ComponentLookup& lookup = fake_lookup()) {
  try {
    parse_pipeline(text, "test.toml", overrides, lookup);
  } catch (const ConfigError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no ConfigError for:\n" << text;
  return {};
}

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// --- equality (the structs have no operator==) -------------------------------------------------

void expect_component_eq(const ComponentSpec& a, const ComponentSpec& b) {
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.params.values(), b.params.values()) << a.id();
}

void expect_parameter_eq(const sdk::Parameter& a, const sdk::Parameter& b) {
  SCOPED_TRACE(a.name);
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.type, b.type);
  EXPECT_EQ(a.lower, b.lower);
  EXPECT_EQ(a.upper, b.upper);
  EXPECT_EQ(a.log_scale, b.log_scale);
  EXPECT_EQ(a.choices, b.choices);
  EXPECT_EQ(a.default_value, b.default_value);
  ASSERT_EQ(a.condition.has_value(), b.condition.has_value());
  if (a.condition) {
    EXPECT_EQ(a.condition->parent, b.condition->parent);
    EXPECT_EQ(a.condition->values, b.condition->values);
  }
}

void expect_pipeline_eq(const Pipeline& a, const Pipeline& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.seed, b.seed);
  EXPECT_EQ(a.budget, b.budget);
  EXPECT_EQ(a.maximize, b.maximize);
  EXPECT_EQ(a.time_limit_seconds, b.time_limit_seconds);
  EXPECT_EQ(a.workers, b.workers);
  ASSERT_EQ(a.problem.plugin.has_value(), b.problem.plugin.has_value());
  if (a.problem.plugin) expect_component_eq(*a.problem.plugin, *b.problem.plugin);
  EXPECT_EQ(a.problem.command, b.problem.command);
  EXPECT_EQ(a.problem.timeout_seconds, b.problem.timeout_seconds);
  EXPECT_EQ(a.problem.working_directory, b.problem.working_directory);
  EXPECT_EQ(a.problem.executor, b.problem.executor);
  EXPECT_EQ(a.problem.slurm.partition, b.problem.slurm.partition);
  EXPECT_EQ(a.problem.slurm.memory, b.problem.slurm.memory);
  EXPECT_EQ(a.problem.slurm.cpus, b.problem.slurm.cpus);
  EXPECT_EQ(a.problem.slurm.job_name, b.problem.slurm.job_name);
  EXPECT_EQ(a.problem.slurm.sbatch_args, b.problem.slurm.sbatch_args);
  EXPECT_EQ(a.problem.slurm.poll_seconds, b.problem.slurm.poll_seconds);
  EXPECT_EQ(a.problem.slurm.cancel_on_exit, b.problem.slurm.cancel_on_exit);
  ASSERT_EQ(a.problem.parameters.size(), b.problem.parameters.size());
  for (std::size_t i = 0; i < a.problem.parameters.size(); ++i) {
    expect_parameter_eq(a.problem.parameters[i], b.problem.parameters[i]);
  }
  ASSERT_EQ(a.black_box.size(), b.black_box.size());
  for (std::size_t i = 0; i < a.black_box.size(); ++i) {
    EXPECT_EQ(a.black_box[i].name, b.black_box[i].name);
    EXPECT_EQ(a.black_box[i].threshold, b.black_box[i].threshold);
    EXPECT_EQ(a.black_box[i].less_equal, b.black_box[i].less_equal);
  }
  ASSERT_EQ(a.known_constraints.size(), b.known_constraints.size());
  for (std::size_t i = 0; i < a.known_constraints.size(); ++i) {
    expect_component_eq(a.known_constraints[i], b.known_constraints[i]);
  }
  EXPECT_EQ(a.design, b.design);
  EXPECT_EQ(a.design_size, b.design_size);
  ASSERT_EQ(a.surrogate.has_value(), b.surrogate.has_value());
  if (a.surrogate) expect_component_eq(*a.surrogate, *b.surrogate);
  ASSERT_EQ(a.acquisition.has_value(), b.acquisition.has_value());
  if (a.acquisition) expect_component_eq(*a.acquisition, *b.acquisition);
  expect_component_eq(a.inner_solver, b.inner_solver);
  EXPECT_EQ(a.augmentation.cheap_constraints, b.augmentation.cheap_constraints);
  EXPECT_EQ(a.augmentation.points, b.augmentation.points);
  EXPECT_EQ(a.proposal.representative, b.proposal.representative);
  EXPECT_EQ(a.proposal.known_penalty, b.proposal.known_penalty);
  EXPECT_EQ(a.proposal.exclude_evaluated, b.proposal.exclude_evaluated);
  EXPECT_EQ(a.proposal.pending, b.proposal.pending);
}

// --- goldens -----------------------------------------------------------------------------------

const fs::path kConfigDir = fs::path(ARBO_SOURCE_DIR) / "tests" / "config";

std::vector<std::string> invalid_cases() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(kConfigDir / "invalid")) {
    if (entry.path().extension() == ".toml") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

class InvalidPipeline : public ::testing::TestWithParam<std::string> {};

TEST_P(InvalidPipeline, FailsWithGoldenMessage) {
  const std::string name = GetParam();
  const std::string text = read_text(kConfigDir / "invalid" / (name + ".toml"));
  std::vector<std::string> overrides;
  std::istringstream lines(text);
  const std::string directive = "# --set ";
  for (std::string line; std::getline(lines, line) && line.rfind(directive, 0) == 0;) {
    overrides.push_back(line.substr(directive.size()));
  }
  std::string message;
  try {
    parse_pipeline(text, name + ".toml", overrides, fake_lookup());
    FAIL() << name << ".toml parsed without error";
  } catch (const ConfigError& e) {
    message = e.what();
  }
  EXPECT_EQ(message.rfind("[error] ", 0), 0u) << message;
  const fs::path expected_file = kConfigDir / "expected" / (name + ".txt");
  const char* update = std::getenv("ARBO_UPDATE_GOLDENS");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(expected_file, std::ios::binary) << message << '\n';
    return;
  }
  ASSERT_TRUE(fs::exists(expected_file))
      << expected_file << " is missing; run with ARBO_UPDATE_GOLDENS=1. Message:\n"
      << message;
  std::string expected = read_text(expected_file);
  if (!expected.empty() && expected.back() == '\n') expected.pop_back();
  EXPECT_EQ(message, expected);
}

INSTANTIATE_TEST_SUITE_P(config, InvalidPipeline, ::testing::ValuesIn(invalid_cases()),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           std::string id = param_info.param;
                           for (char& c : id) {
                             if (std::isalnum(static_cast<unsigned char>(c)) == 0) c = '_';
                           }
                           return id;
                         });

TEST(config_goldens, EveryExpectedFileHasACase) {
  const auto cases = invalid_cases();
  EXPECT_GE(cases.size(), 20u);
  for (const auto& entry : fs::directory_iterator(kConfigDir / "expected")) {
    const std::string stem = entry.path().stem().string();
    EXPECT_TRUE(std::find(cases.begin(), cases.end(), stem) != cases.end())
        << entry.path() << " has no invalid/" << stem << ".toml";
  }
}

// --- valid files -------------------------------------------------------------------------------

const char* const kMinimal = R"(
[problem]
plugin = "branin"

[inner_solver]
plugin = "random"
)";

TEST(config_parse, MinimalFileGetsEveryDefault) {
  const Pipeline p = parse(kMinimal);
  EXPECT_EQ(p.name, "test");  // the stem of "test.toml"
  EXPECT_EQ(p.seed, 0u);
  EXPECT_EQ(p.budget, 100);
  EXPECT_FALSE(p.maximize);
  EXPECT_EQ(p.time_limit_seconds, 0.0);
  EXPECT_EQ(p.source_path, "test.toml");
  ASSERT_TRUE(p.problem.plugin.has_value());
  EXPECT_EQ(p.problem.plugin->id(), "problem/branin");
  EXPECT_EQ(p.problem.plugin->params.get_real("shift"), 0.0);
  EXPECT_TRUE(p.problem.command.empty());
  EXPECT_TRUE(p.black_box.empty());  // filled by the engine from the problem
  EXPECT_TRUE(p.known_constraints.empty());
  EXPECT_EQ(p.design, DesignMethod::Sobol);
  EXPECT_EQ(p.design_size, 10);
  EXPECT_FALSE(p.surrogate.has_value());
  EXPECT_FALSE(p.acquisition.has_value());
  EXPECT_EQ(p.inner_solver.id(), "inner_solver/random");
  EXPECT_EQ(p.inner_solver.params.get_int("samples"), 100);
  EXPECT_EQ(p.inner_solver.params.get_int("max_tries"), 1000);
}

TEST(config_parse, DefaultDesignSizeIsAtMostTheBudget) {
  const Pipeline p = parse(std::string("[study]\nbudget = 4\n") + kMinimal);
  EXPECT_EQ(p.budget, 4);
  EXPECT_EQ(p.design_size, 4);
  EXPECT_EQ(parse(std::string("[study]\nbudget = 4\n[initial_design]\nsize = 0\n") + kMinimal)
                .design_size,
            0);
}

TEST(config_parse, NameWithoutPathIsStudy) {
  EXPECT_EQ(parse_pipeline(kMinimal, "", {}, fake_lookup()).name, "study");
  EXPECT_EQ(parse_pipeline(kMinimal, "dir/my-run.toml", {}, fake_lookup()).name, "my-run");
}

const char* const kCommandPipeline = R"(
[study]
name = "tune"
seed = 7
budget = 30
direction = "maximize"
time_limit = 120

[problem]
command = "python3 objective.py --fast"
timeout = 60
workdir = "runs"

[[problem.parameters]]
name = "optimizer"
type = "categorical"
choices = ["adam", "sgd"]
default = "sgd"

[[problem.parameters]]
name = "lr"
type = "real"
low = 1e-5
high = 1
log = true
default = 1e-3
active_if = { optimizer = ["adam"] }

[[problem.parameters]]
name = "layers"
type = "int"
low = 1
high = 64
log = true
active_if = { optimizer = "sgd" }

[[problem.parameters]]
name = "dropout"
type = "binary"
default = true

[[problem.parameters]]
name = "width"
type = "integer"
low = 8
high = 16
active_if = { layers = [1, 2] }

[[black_box_constraints]]
name = "memory_gb"
threshold = 16

[[black_box_constraints]]
name = "accuracy"
sense = ">="
threshold = 0.9

[[known_constraints]]
plugin = "linear"
coefficients = 2
rhs = 3

[[known_constraints]]
plugin = "linear"
coefficients = [1, -0.5]
sense = ">="

[initial_design]
method = "lhs"
size = 12

[surrogate]
plugin = "fake"
kernel = "rbf"
label = "a \"quoted\" label\n"

[acquisition]
plugin = "fake"
xi = 0
use_pending = false

[inner_solver]
plugin = "nelder_mead"
restarts = 5
)";

TEST(config_parse, CommandPipelineIsTyped) {
  const Pipeline p = parse(kCommandPipeline);
  EXPECT_EQ(p.name, "tune");
  EXPECT_EQ(p.seed, 7u);
  EXPECT_EQ(p.budget, 30);
  EXPECT_TRUE(p.maximize);
  EXPECT_EQ(p.time_limit_seconds, 120.0);
  EXPECT_FALSE(p.problem.plugin.has_value());
  EXPECT_EQ(p.problem.command,
            (std::vector<std::string>{"/bin/sh", "-c", "python3 objective.py --fast"}));
  EXPECT_EQ(p.problem.timeout_seconds, 60.0);
  EXPECT_EQ(p.problem.working_directory, "runs");  // resolved only by load_pipeline

  const auto& params = p.problem.parameters;
  ASSERT_EQ(params.size(), 5u);
  EXPECT_EQ(params[0].type, sdk::ParamType::Categorical);
  EXPECT_EQ(params[0].choices, (std::vector<std::string>{"adam", "sgd"}));
  EXPECT_EQ(params[0].default_value, sdk::Value(std::string("sgd")));
  EXPECT_EQ(params[1].type, sdk::ParamType::Real);
  EXPECT_EQ(params[1].lower, 1e-5);
  EXPECT_EQ(params[1].upper, 1.0);
  EXPECT_TRUE(params[1].log_scale);
  EXPECT_EQ(params[1].default_value, sdk::Value(1e-3));
  ASSERT_TRUE(params[1].condition.has_value());
  EXPECT_EQ(params[1].condition->parent, "optimizer");
  EXPECT_EQ(params[1].condition->values, (std::vector<sdk::Value>{std::string("adam")}));
  EXPECT_EQ(params[2].type, sdk::ParamType::Integer);
  EXPECT_EQ(params[2].upper, 64.0);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(params[2].default_value));
  EXPECT_EQ(params[2].condition->values, (std::vector<sdk::Value>{std::string("sgd")}));
  EXPECT_EQ(params[3].type, sdk::ParamType::Binary);
  EXPECT_EQ(params[3].default_value, sdk::Value(true));
  EXPECT_EQ(params[4].condition->values,
            (std::vector<sdk::Value>{std::int64_t{1}, std::int64_t{2}}));
  EXPECT_NO_THROW(sdk::Space{params});

  ASSERT_EQ(p.black_box.size(), 2u);
  EXPECT_EQ(p.black_box[0].name, "memory_gb");
  EXPECT_TRUE(p.black_box[0].less_equal);
  EXPECT_EQ(p.black_box[0].threshold, 16.0);
  EXPECT_FALSE(p.black_box[1].less_equal);
  EXPECT_NEAR(p.black_box[1].normalized(0.95), -0.05, 1e-12);

  ASSERT_EQ(p.known_constraints.size(), 2u);
  // A single number is accepted for a real list; an integer for a real.
  EXPECT_EQ(p.known_constraints[0].params.get_real_list("coefficients"),
            (std::vector<double>{2.0}));
  EXPECT_TRUE(std::holds_alternative<double>(p.known_constraints[0].params.get("rhs")));
  EXPECT_EQ(p.known_constraints[0].params.get_string("sense"), "<=");
  EXPECT_EQ(p.known_constraints[1].params.get_real_list("coefficients"),
            (std::vector<double>{1.0, -0.5}));
  EXPECT_EQ(p.known_constraints[1].params.get_string("sense"), ">=");

  EXPECT_EQ(p.design, DesignMethod::LatinHypercube);
  EXPECT_EQ(p.design_size, 12);
  ASSERT_TRUE(p.surrogate && p.acquisition);
  EXPECT_EQ(p.surrogate->params.get_string("kernel"), "rbf");
  EXPECT_EQ(p.surrogate->params.get_real("jitter"), 1e-6);
  EXPECT_EQ(p.surrogate->params.get_string("label"), "a \"quoted\" label\n");
  EXPECT_EQ(p.acquisition->params.get_real("xi"), 0.0);
  EXPECT_FALSE(p.acquisition->params.get_bool("use_pending"));
  EXPECT_EQ(p.inner_solver.id(), "inner_solver/nelder_mead");
  EXPECT_EQ(p.inner_solver.params.get_int("restarts"), 5);
}

TEST(config_parse, CommandArrayIsArgv) {
  const Pipeline p = parse(R"(
[problem]
command = ["python3", "obj ective.py"]
[[problem.parameters]]
name = "x"
type = "real"
low = -1
high = 1
[inner_solver]
plugin = "random"
)");
  EXPECT_EQ(p.problem.command, (std::vector<std::string>{"python3", "obj ective.py"}));
  EXPECT_EQ(p.problem.timeout_seconds, 3600.0);
  EXPECT_EQ(p.problem.working_directory, "");
}

// --- overrides ---------------------------------------------------------------------------------

const char* const kWithConstraint = R"(
[study]
budget = 50

[problem]
plugin = "branin"

[[known_constraints]]
plugin = "linear"
coefficients = [1, 1]
rhs = 1

[inner_solver]
plugin = "random"
samples = 10
)";

TEST(config_overrides, AreAppliedBeforeValidation) {
  const Pipeline p = parse(
      kWithConstraint, {"study.budget=20", "inner_solver.samples=500", "known_constraints.0.rhs=3",
                        "known_constraints.0.coefficients=[0.5, 2]", "study.name=hello world",
                        "problem.shift = 0.25", "initial_design.method=lhs"});
  EXPECT_EQ(p.budget, 20);
  EXPECT_EQ(p.inner_solver.params.get_int("samples"), 500);
  EXPECT_EQ(p.known_constraints[0].params.get_real("rhs"), 3.0);
  EXPECT_EQ(p.known_constraints[0].params.get_real_list("coefficients"),
            (std::vector<double>{0.5, 2.0}));
  EXPECT_EQ(p.name, "hello world");  // not TOML, so read as a string
  EXPECT_EQ(p.problem.plugin->params.get_real("shift"), 0.25);
  EXPECT_EQ(p.design, DesignMethod::LatinHypercube);  // a table the file does not have
}

TEST(config_overrides, LaterOverridesWinAndQuotedStringsWork) {
  const Pipeline p = parse(kWithConstraint, {"study.name=\"a=b\"", "study.budget=7",
                                             "study.budget=8", "study.direction=maximize"});
  EXPECT_EQ(p.name, "a=b");
  EXPECT_EQ(p.budget, 8);
  EXPECT_TRUE(p.maximize);
}

TEST(config_overrides, ValueThatIsNotTomlBecomesAString) {
  // "20 apples" is not a TOML value; as a string it then fails the budget's type check.
  const std::string message = parse_error(kWithConstraint, {"study.budget=20 apples"});
  EXPECT_NE(message.find("study.budget: expected an integer"), std::string::npos) << message;
  EXPECT_NE(message.find("(from --set)"), std::string::npos) << message;
}

TEST(config_overrides, UnknownKeyGetsTheUsualHintAndNamesSet) {
  const std::string message = parse_error(kWithConstraint, {"inner_solver.sampels=3"});
  EXPECT_NE(message.find("[error] inner_solver.sampels: unknown parameter 'sampels' of "
                         "inner_solver/random; did you mean 'samples'? (from --set)"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("--> --set"), std::string::npos) << message;
}

TEST(config_overrides, MalformedOnesNameTheOverride) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"study.budget", "expected key.path=value"},
      {"=3", "the key before '=' is empty"},
      {"study..budget=3", "empty component"},
      {"known_constraints.5.rhs=1", "index 5 is out of range: 'known_constraints' has 1 element"},
      {"known_constraints.first.rhs=1", "'known_constraints' is an array"},
      {"study.budget.x=1", "'study.budget' is an integer, not a table"},
  };
  for (const auto& [text, expected] : cases) {
    const std::string message = parse_error(kWithConstraint, {text});
    EXPECT_EQ(message.rfind("[error] --set " + text + ": ", 0), 0u) << message;
    EXPECT_NE(message.find(expected), std::string::npos) << message;
  }
}

// --- other errors ------------------------------------------------------------------------------

TEST(config_parse, NoPluginsOfAKind) {
  ComponentLookup lookup = fake_lookup();
  lookup.names = [](sdk::Kind) { return std::vector<std::string>{}; };
  lookup.find = [](sdk::Kind, std::string_view) -> const sdk::ComponentInfo* { return nullptr; };
  const std::string message = parse_error(kMinimal, {}, lookup);
  EXPECT_NE(message.find("unknown problem plugin 'branin'; no problem plugins are loaded"),
            std::string::npos)
      << message;
}

TEST(config_parse, ErrorsNameFileLineAndKey) {
  const std::string message =
      parse_error("[study]\n\nbudget = -2\n[problem]\nplugin = \"branin\"\n");
  EXPECT_EQ(message.rfind("[error] study.budget: ", 0), 0u) << message;
  EXPECT_NE(message.find("--> test.toml"), std::string::npos) << message;
  EXPECT_NE(message.find(" 3 | budget = -2"), std::string::npos) << message;
}

// --- to_toml -----------------------------------------------------------------------------------

void expect_round_trip(const Pipeline& p) {
  const std::string text = to_toml(p);
  SCOPED_TRACE(text);
  Pipeline back;
  ASSERT_NO_THROW(back = parse_pipeline(text, "stored.toml", {}, fake_lookup()));
  expect_pipeline_eq(p, back);
  EXPECT_EQ(to_toml(back), text);  // a fixed point
}

TEST(config_to_toml, RoundTripsPluginProblem) { expect_round_trip(parse(kMinimal)); }
TEST(config_to_toml, RoundTripsConstrainedPluginProblem) {
  expect_round_trip(parse(kWithConstraint));
}
TEST(config_to_toml, RoundTripsCommandProblemWithEverything) {
  expect_round_trip(parse(kCommandPipeline));
}
// [problem] executor = "slurm" and [problem.slurm] (issue 27): read, written only for Slurm (a
// local pipeline's text is unchanged), and read back.
TEST(config_to_toml, RoundTripsSlurmExecutor) {
  const Pipeline local = parse(kCommandPipeline);
  EXPECT_EQ(local.problem.executor, arbo::kernel::Executor::Local);
  EXPECT_EQ(to_toml(local).find("slurm"), std::string::npos);
  std::string text = kCommandPipeline;
  const std::string head = "[problem]\n";
  ASSERT_NE(text.find(head), std::string::npos);
  text.insert(text.find(head) + head.size(), "executor = \"slurm\"\n");
  const Pipeline defaults = parse(text);
  EXPECT_EQ(defaults.problem.executor, arbo::kernel::Executor::Slurm);
  EXPECT_EQ(defaults.problem.slurm.job_name, "arbo");
  EXPECT_EQ(defaults.problem.slurm.poll_seconds, 10.0);
  EXPECT_FALSE(defaults.problem.slurm.cancel_on_exit);
  expect_round_trip(defaults);
  const Pipeline full =
      parse(text +
            "\n[problem.slurm]\npartition = \"short\"\nmemory = \"4G\"\ncpus = 2\n"
            "job_name = \"wing\"\nsbatch_args = [\"--account=a b\", \"--qos=q\"]\npoll = 30\n"
            "cancel_on_exit = true\n");
  EXPECT_EQ(full.problem.slurm.partition, "short");
  EXPECT_EQ(full.problem.slurm.memory, "4G");
  EXPECT_EQ(full.problem.slurm.cpus, 2);
  EXPECT_EQ(full.problem.slurm.job_name, "wing");
  EXPECT_EQ(full.problem.slurm.sbatch_args, (std::vector<std::string>{"--account=a b", "--qos=q"}));
  EXPECT_EQ(full.problem.slurm.poll_seconds, 30.0);
  EXPECT_TRUE(full.problem.slurm.cancel_on_exit);
  expect_round_trip(full);
}

TEST(config_to_toml, RoundTripsOverriddenPipeline) {
  expect_round_trip(parse(kWithConstraint, {"study.name=x y", "inner_solver.samples=3"}));
}

// [study] workers and [proposal] pending (issue 27): defaults, and read back from to_toml.
TEST(config_to_toml, RoundTripsWorkersAndPendingRule) {
  using Rule = arbo::kernel::ProposalOptions::Pending;
  const Pipeline defaults = parse(kMinimal);
  EXPECT_EQ(defaults.workers, 1);
  EXPECT_EQ(defaults.proposal.pending, Rule::ConstantLiarWorst);
  const std::pair<const char*, Rule> rules[] = {{"constant_liar_worst", Rule::ConstantLiarWorst},
                                                {"constant_liar_best", Rule::ConstantLiarBest},
                                                {"constant_liar_mean", Rule::ConstantLiarMean},
                                                {"ignore", Rule::Ignore}};
  for (const auto& [name, rule] : rules) {
    const Pipeline p = parse(std::string("[study]\nworkers = 7\n") + kMinimal +
                             "\n[proposal]\npending = \"" + name + "\"\n");
    EXPECT_EQ(p.workers, 7);
    EXPECT_EQ(p.proposal.pending, rule) << name;
    expect_round_trip(p);
  }
}

// [proposal] is read, written only when it changes something, and read back.
TEST(config_to_toml, RoundTripsProposalOptions) {
  const Pipeline off = parse(kMinimal);
  EXPECT_FALSE(off.proposal.representative);
  EXPECT_EQ(off.proposal.known_penalty, 0.0);
  EXPECT_EQ(to_toml(off).find("[proposal]"), std::string::npos);
  const Pipeline on =
      parse(std::string(kMinimal) + "\n[proposal]\nrepresentative = true\nknown_penalty = 12.5\n");
  EXPECT_TRUE(on.proposal.representative);
  EXPECT_EQ(on.proposal.known_penalty, 12.5);
  EXPECT_NE(to_toml(on).find("[proposal]"), std::string::npos);
  expect_round_trip(on);
  const Pipeline integer = parse(std::string(kMinimal) + "\n[proposal]\nknown_penalty = 100\n");
  EXPECT_EQ(integer.proposal.known_penalty, 100.0);
  expect_round_trip(integer);
}

TEST(config_to_toml, RoundTripsAwkwardValues) {
  Pipeline p = parse(kCommandPipeline);
  p.name = "tab\there \"quoted\" back\\slash \x01 ünïcode";
  p.seed = 9007199254740993ull;  // not representable as a double
  p.time_limit_seconds = 0.1 + 0.2;
  p.problem.command = {"prog", "arg with spaces", ""};
  p.problem.timeout_seconds = 1e-3;
  p.problem.parameters[1].lower = 1.0 / 3.0;
  p.problem.parameters[1].upper = 3.0;
  p.problem.parameters[1].default_value = 2.0;
  p.black_box[0].threshold = -1e300;
  p.black_box[1].threshold = 5e-324;
  p.known_constraints[0].params.set("coefficients", std::vector<double>{});
  p.known_constraints[1].params.set("rhs", 123456789.0);
  p.surrogate->params.set("jitter", 2.5e-17);
  expect_round_trip(p);
}

TEST(config_to_toml, FloatsAlwaysReadBackAsFloats) {
  const std::string text = to_toml(parse(kCommandPipeline));
  EXPECT_NE(text.find("time_limit = 120.0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("threshold = 16.0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("high = 1.0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("coefficients = [2.0]\n"), std::string::npos) << text;
  EXPECT_NE(text.find("low = 1e-05\n"), std::string::npos) << text;
  EXPECT_NE(text.find("active_if = { layers = [1, 2] }\n"), std::string::npos) << text;
}

TEST(config_to_toml, DoesNotWriteBlackBoxOfAPluginProblem) {
  Pipeline p = parse(kMinimal);
  p.black_box.push_back({"c1", 0.0, true});  // as the engine would fill it
  const std::string text = to_toml(p);
  EXPECT_EQ(text.find("black_box_constraints"), std::string::npos) << text;
  EXPECT_TRUE(parse_pipeline(text, "x.toml", {}, fake_lookup()).black_box.empty());
}

TEST(config_design_method, Names) {
  EXPECT_STREQ(to_string(DesignMethod::Random), "random");
  EXPECT_STREQ(to_string(DesignMethod::LatinHypercube), "lhs");
  EXPECT_STREQ(to_string(DesignMethod::Sobol), "sobol");
}

// --- load_pipeline -----------------------------------------------------------------------------

class config_load : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("arbo_config_test_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path write(const std::string& name, const std::string& text) {
    const fs::path file = dir_ / name;
    std::ofstream(file, std::ios::binary) << text;
    return file;
  }
  fs::path dir_;
};

TEST_F(config_load, ReadsTheFileAndNamesTheStudyAfterIt) {
  const fs::path file = write("branin-random.toml", kMinimal);
  const Pipeline p = arbo::kernel::load_pipeline(file, {"study.budget=9"}, fake_lookup());
  EXPECT_EQ(p.name, "branin-random");
  EXPECT_EQ(p.budget, 9);
  EXPECT_EQ(p.source_path, file.string());
}

TEST_F(config_load, ResolvesTheWorkingDirectoryAgainstTheFile) {
  const char* const text = R"(
[problem]
command = ["./run"]
workdir = "%s"
[[problem.parameters]]
name = "x"
type = "binary"
[inner_solver]
plugin = "random"
)";
  const auto with_workdir = [&](const std::string& w) {
    std::string t = text;
    t.replace(t.find("%s"), 2, w);
    return arbo::kernel::load_pipeline(write("p.toml", t), {}, fake_lookup())
        .problem.working_directory;
  };
  const fs::path base = fs::absolute(dir_).lexically_normal();
  EXPECT_EQ(with_workdir(""), base.string());
  EXPECT_EQ(with_workdir("."), base.string());
  EXPECT_EQ(with_workdir("sub/../runs"), (base / "runs").string());
  EXPECT_EQ(with_workdir("/tmp"), "/tmp");
}

TEST_F(config_load, UnreadableFileIsAConfigError) {
  try {
    arbo::kernel::load_pipeline(dir_ / "missing.toml", {}, fake_lookup());
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot read pipeline file"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("missing.toml"), std::string::npos);
    EXPECT_EQ(e.exit_code(), arbo::kernel::kExitConfig);
  }
  EXPECT_THROW(arbo::kernel::load_pipeline(dir_, {}, fake_lookup()), ConfigError);
}

}  // namespace

// toml11 costs each value the length of its line: 30,000 choices on one line took 20 s, so
// these 200,000 would run far past this test's ctest timeout. The loader breaks long lines for
// toml11 after commas (with a blank after them or without) and gives it back the file's own
// line numbers, so a later error still points at its own line.
TEST(config_limits, CategoricalWithTwoHundredThousandChoicesOnOneLine) {
  for (const std::string separator : {", ", ","}) {
    SCOPED_TRACE("separator '" + separator + "'");
    std::string choices;
    for (int i = 0; i < 200000; ++i) {
      choices += (i == 0 ? "\"c" : separator + "\"c") + std::to_string(i) + "\"";
    }
    const std::string text =
        "[problem]\ncommand = \"./run.sh\"\n[[problem.parameters]]\n"
        "name = \"c\"\ntype = \"categorical\"\nchoices = [" +
        choices + "]\n[inner_solver]\nplugin = \"random\"\n";
    const Pipeline p = parse(text);
    ASSERT_EQ(p.problem.parameters.size(), 1u);
    ASSERT_EQ(p.problem.parameters[0].choices.size(), 200000u);
    EXPECT_EQ(p.problem.parameters[0].choices[123456], "c123456");
    // The stored pipeline (to_toml writes the choices on one line) reads back the same.
    expect_round_trip(p);
    const std::string error = parse_error(text + "[study]\nbudget = 0\n");
    EXPECT_NE(error.find("\n 10 | budget = 0\n"), std::string::npos) << error.substr(0, 1000);
  }
}

// TOML documents are UTF-8. toml11 read past the end of its buffer on a byte that is not
// (0xAA inside a literal string, found by bench/fuzz's pipeline harness under ASan): the
// loader refuses such a byte anywhere, in a file or a --set value, naming line and column,
// and quotes the line only up to it.
TEST(config_limits, BytesThatAreNotUtf8AreRefusedBeforeToml11SeesThem) {
  const std::string head = "[problem]\ncommand = \"./run.sh\"\n";
  for (const std::string bad :
       {std::string("\xAA"), std::string("\xC0\xAF"), std::string("\xED\xA0\x80"),
        std::string("\xF4\x90\x80\x80"), std::string("\xE2\x82")}) {
    const std::string error = parse_error(head + "name = 'ab" + bad + "c'\n");
    EXPECT_NE(error.find("is not UTF-8, which TOML requires"), std::string::npos) << error;
    EXPECT_NE(error.find("\n 3 | name = 'ab\n"), std::string::npos) << error;
    const std::string in_comment = parse_error(head + "# ab" + bad + "\n");
    EXPECT_NE(in_comment.find("is not UTF-8"), std::string::npos) << in_comment;
  }
  const std::string set =
      parse_error(head + "[inner_solver]\nplugin = \"random\"\n", {"problem.command='a\xAA'"});
  EXPECT_NE(set.find("is not UTF-8"), std::string::npos) << set;
  EXPECT_NE(set.find("--set"), std::string::npos) << set;
  // Characters of two, three and four bytes are UTF-8.
  const Pipeline p = parse(head +
                           "[[problem.parameters]]\nname = \"c\"\ntype = \"categorical\"\n"
                           "choices = ['é', \"漢\", '😀'] # ü\n[inner_solver]\n"
                           "plugin = \"random\"\n");
  EXPECT_EQ(p.problem.parameters[0].choices[2], "😀");
}
