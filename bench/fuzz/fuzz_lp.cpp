// SPDX-License-Identifier: MIT
// libFuzzer harness of the CPLEX-LP reader (sdk/model_io, what `arbo solve FILE` reads), with
// the round trip its header promises: after one write/read cycle, writing is a fixed point.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <arbo/sdk/error.hpp>
#include <arbo/sdk/model_io.hpp>

#include "fuzz_strict.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  arbo::sdk::Model model;
  try {
    model = arbo::sdk::read_lp(text, "fuzz.lp");
  } catch (const arbo::sdk::InvalidArgument&) {
    return 0;
  } catch (const std::exception& e) {
    arbo::fuzz::unexpected(e);
    return 0;
  }
  try {
    const std::string once = arbo::sdk::write_lp(arbo::sdk::read_lp(arbo::sdk::write_lp(model)));
    const std::string twice = arbo::sdk::write_lp(arbo::sdk::read_lp(once));
    if (once != twice && arbo::fuzz::strict()) {
      arbo::fuzz::finding("write_lp(read_lp(.)) is not a fixed point", once.c_str());
    }
  } catch (const arbo::sdk::InvalidArgument& e) {
    // A model read from a file must be writable and read back.
    if (arbo::fuzz::strict()) arbo::fuzz::finding("round trip failed", e.what());
  } catch (const std::exception& e) {
    arbo::fuzz::unexpected(e);
  }
  return 0;
}
