// SPDX-License-Identifier: MIT
// libFuzzer harness of the reader of an external command's stdout, which is also the reader of
// `arbo tell --json`: kernel::read_evaluation_result (kernel/src/engine/evaluation_output.cpp),
// with no black-box constraint and with two.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "arbo/kernel/evaluator.hpp"
#include "engine/evaluation_output.hpp"
#include "fuzz_strict.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  static const std::vector<arbo::kernel::BlackBoxConstraint> none;
  static const std::vector<arbo::kernel::BlackBoxConstraint> two{{"acc", 0.9, false},
                                                                 {"mem", 8.0, true}};
  for (const auto* cons : {&none, &two}) {
    try {
      const arbo::kernel::EvaluationResult r = arbo::kernel::read_evaluation_result(text, *cons);
      const arbo::kernel::EvalOutcome& o = r.outcome;
      if (o.ok != (r.kind == arbo::kernel::ResultKind::Complete)) {
        arbo::fuzz::finding("a result whose kind disagrees with its outcome", text.c_str());
      }
      // What the study stores for a success: finite values only.
      if (o.ok && !std::isfinite(o.objective)) {
        arbo::fuzz::finding("accepted a non-finite objective", text.c_str());
      }
      if (o.ok && !o.constraints.allFinite()) {
        arbo::fuzz::finding("accepted a non-finite constraint", text.c_str());
      }
      if (!o.ok && o.reason.empty()) arbo::fuzz::finding("a failure without a reason", "");
    } catch (const std::exception& e) {
      // Every outcome, even for garbage, is a failed observation, never an exception.
      arbo::fuzz::unexpected(e);
    }
  }
  return 0;
}
