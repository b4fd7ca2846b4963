// SPDX-License-Identifier: MIT
// The one reader of evaluation results (a command's stdout, `arbo tell --json`): kinds, limits,
// and inputs that crashed it (regex recursion, deep nesting).
#include <gtest/gtest.h>

#include <string>

#include "engine/evaluation_output.hpp"

namespace arbo::kernel {
namespace {

const std::vector<BlackBoxConstraint> kOne{{"mem", 16.0, true}};

std::string nested(std::size_t depth, std::string_view open, std::string_view inner,
                   std::string_view close) {
  std::string s;
  for (std::size_t i = 0; i < depth; ++i) s += open;
  s += inner;
  for (std::size_t i = 0; i < depth; ++i) s += close;
  return s;
}

TEST(EvaluationOutput, TellsResultsReportedErrorsAndInvalidTextApart) {
  EXPECT_EQ(read_evaluation_result("1.5", {}).kind, ResultKind::Complete);
  EXPECT_EQ(read_evaluation_result(R"({"objective": 1, "constraints": {"mem": 2}})", kOne).kind,
            ResultKind::Complete);
  const EvaluationResult reported = read_evaluation_result(R"({"error": "diverged"})", kOne);
  EXPECT_EQ(reported.kind, ResultKind::Reported);
  EXPECT_FALSE(reported.outcome.ok);
  EXPECT_NE(reported.outcome.reason.find("diverged"), std::string::npos);
  for (const char* text : {"", "garbage", R"({"objective": "1"})", R"({"objective": 1e400})", "NaN",
                           R"({"objective": NaN})", R"({"objective": 1})", "[1]"}) {
    const EvaluationResult r = read_evaluation_result(text, kOne);
    EXPECT_EQ(r.kind, ResultKind::Invalid) << text;
    EXPECT_FALSE(r.outcome.ok) << text;
    EXPECT_FALSE(r.outcome.reason.empty()) << text;
  }
  EXPECT_EQ(read_evaluation_result("", {}, "--json").outcome.reason, "--json is empty");
}

// The regex that mapped NaN to null recursed once per character after the token: 30,000
// spaces crashed `arbo run` and `arbo tell`.
TEST(EvaluationOutput, NaNBeforeALongRunOfSpacesIsReadLinearly) {
  const std::string text = "{\"objective\": NaN" + std::string(300000, ' ') + "}";
  const EvaluationResult r = read_evaluation_result(text, {});
  EXPECT_EQ(r.kind, ResultKind::Invalid);
  EXPECT_NE(r.outcome.reason.find("NaN or infinite"), std::string::npos) << r.outcome.reason;
}

TEST(EvaluationOutput, NonFiniteTokensBecomeNullOutsideStringsOnly) {
  EXPECT_EQ(neutralize_non_finite(R"([NaN, -Infinity, Infinity, "NaN \" Infinity", NaNa, 1])"),
            R"([null, null, null, "NaN \" Infinity", NaNa, 1])");
  const EvaluationResult r = read_evaluation_result(R"({"error": "loss is NaN"})", {});
  EXPECT_NE(r.outcome.reason.find("loss is NaN"), std::string::npos) << r.outcome.reason;
}

// dump() of a value nested 100,000 deep (quoted in the reason) overflowed the stack; the
// depth is now refused while parsing, in the objective and in "error" alike.
TEST(EvaluationOutput, DeepNestingIsRefusedWithoutRecursion) {
  for (const std::string& text : {"{\"objective\": " + nested(100000, "[", "1", "]") + "}",
                                  "{\"error\": " + nested(100000, "{\"a\": ", "1", "}") + "}",
                                  nested(100000, "[", "", "]")}) {
    const EvaluationResult r = read_evaluation_result(text, {});
    EXPECT_EQ(r.kind, ResultKind::Invalid);
    EXPECT_NE(r.outcome.reason.find("deeper than 64 levels"), std::string::npos)
        << r.outcome.reason;
  }
  // 64 levels are fine: the object and 63 arrays.
  const EvaluationResult ok =
      read_evaluation_result("{\"objective\": 2, \"x\": " + nested(63, "[", "", "]") + "}", {});
  EXPECT_EQ(ok.kind, ResultKind::Complete) << ok.outcome.reason;
  std::string error;
  EXPECT_TRUE(parse_bounded_json(nested(64, "[", "", "]"), error)) << error;
  EXPECT_FALSE(parse_bounded_json(nested(65, "[", "", "]"), error));
  EXPECT_NE(error.find("deeper than 64"), std::string::npos) << error;
}

TEST(EvaluationOutput, SizeIsBoundedAndLongValuesAreQuotedShort) {
  std::string error;
  EXPECT_FALSE(parse_bounded_json(std::string(kMaxJsonBytes + 1, ' '), error));
  EXPECT_NE(error.find("more than the limit of 8 MiB"), std::string::npos) << error;
  // A megabyte-long error text or objective is quoted as an excerpt.
  const std::string long_text(1 << 20, 'x');
  for (const std::string& text : {"{\"error\": \"" + long_text + "\"}",
                                  "{\"objective\": \"" + long_text + "\"}", long_text}) {
    const EvaluationResult r = read_evaluation_result(text, {});
    EXPECT_FALSE(r.outcome.ok);
    EXPECT_LT(r.outcome.reason.size(), 2500u) << r.outcome.reason.substr(0, 300);
  }
}

}  // namespace
}  // namespace arbo::kernel
