// SPDX-License-Identifier: MIT
/// @file
/// @brief The one reader of evaluation results written as JSON: an external command's stdout
///        and `arbo tell --json`; and the bounded JSON parser that `arbo problem eval` reads
///        its input lines with.
///
/// Everything here is linear in the text and bounded in depth: nlohmann's parser is iterative
/// and its values are destroyed iteratively, but dump(), copies and comparisons recurse once per
/// level, so a value nested 100,000 deep crashed the first `dump()` of it. `parse_bounded_json`
/// refuses such a text while parsing (through the parser's callback) before any value exists.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "arbo/kernel/evaluator.hpp"
#include "arbo/kernel/pipeline.hpp"

namespace arbo::kernel {

/// Deepest nesting of arrays and objects accepted in JSON that comes from outside.
inline constexpr std::size_t kMaxJsonDepth = 64;
/// Largest JSON text accepted from outside, in bytes.
inline constexpr std::size_t kMaxJsonBytes = std::size_t{8} << 20;

/// One JSON value from outside, parsed within kMaxJsonDepth and kMaxJsonBytes. On failure,
/// nullopt and `error` says why in a sentence that quotes at most an excerpt of the text
/// ("is not valid JSON (...)", "nests arrays and objects deeper than 64 levels", ...).
std::optional<nlohmann::json> parse_bounded_json(std::string_view text, std::string& error);

/// Python's json module prints NaN, Infinity and -Infinity, which are not JSON. Each such
/// token outside a string becomes null, so that the value is reported as non-finite rather
/// than as unparsable output. Linear in the text.
std::string neutralize_non_finite(std::string_view text);

/// What a result text says.
enum class ResultKind {
  Complete,  ///< a finite objective and every constraint: `outcome.ok`
  Reported,  ///< {"error": ...}: the program says the evaluation failed
  Invalid,   ///< not a result: not JSON, too deep or large, a value missing or not finite
};

/// A result text read: its kind, and the outcome a study records for it (`ok` for
/// `Complete`; for the others, failed with the reason).
struct EvaluationResult {
  ResultKind kind = ResultKind::Invalid;
  EvalOutcome outcome;
};

/// Reads a result (configs/README.md): a bare number, an object {"objective": ...,
/// "constraints": {...} or [...]}, or {"error": ...}. The whole text first, else its last
/// non-empty line (programs often log before the result). `constraints` are the study's
/// black-box constraints, which the result must all give. `source` names the text in the
/// reasons about the text as a whole ("command output is not valid JSON: ..."). Never throws
/// for any text; the entry point of the evaluation-output fuzzer.
EvaluationResult read_evaluation_result(std::string_view text,
                                        const std::vector<BlackBoxConstraint>& constraints,
                                        std::string_view source = "command output");

}  // namespace arbo::kernel
