// SPDX-License-Identifier: MIT
// libFuzzer harness of the known-constraint expression parser shared by constraint/polynomial
// and constraint/linear (plugins/constraints/common/expression.cpp): each input is parsed as a
// list of polynomial rows and as one linear row, over a space with every parameter type, and
// what parses is expanded, evaluated and printed.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <Eigen/Core>

#include "expression.hpp"
#include "fuzz_strict.hpp"

namespace {

const arbo::sdk::Space& space() {
  using arbo::sdk::Parameter;
  static const arbo::sdk::Space s({Parameter::real("x", -2.0, 3.0), Parameter::real("y", 0.0, 4.0),
                                   Parameter::integer("n", 0, 8), Parameter::binary("b"),
                                   Parameter::categorical("c", {"red", "green", "blue"}),
                                   Parameter::real("lg", 0.01, 100.0, true),
                                   Parameter::integer("li", 1, 64, true)});
  return s;
}

void parse(std::string_view text, const arbo::plugins::ParseOptions& options) {
  try {
    const auto rows = arbo::plugins::parse_constraints(text, space(), options);
    Eigen::VectorXd x = Eigen::VectorXd::Constant(static_cast<Eigen::Index>(space().size()), 0.5);
    for (const auto& row : rows) {
      (void)row.value(x);
      (void)row.magnitude(x);
      (void)row.normalized(space());
    }
  } catch (const arbo::plugins::ExpressionError& e) {
    (void)arbo::plugins::format_expression_error(text, e);
  } catch (const std::exception& e) {
    arbo::fuzz::unexpected(e);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  parse(text, {arbo::plugins::kMaxExponent, /*allow_list=*/true});
  parse(text, {/*max_degree=*/1, /*allow_list=*/false});
  return 0;
}
