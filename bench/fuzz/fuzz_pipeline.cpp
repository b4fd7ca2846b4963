// SPDX-License-Identifier: MIT
// libFuzzer harness of the pipeline loader: a TOML document and `--set` values through
// kernel::parse_pipeline (what `arbo check`, `run` and `init` call after reading the file),
// validated against the real stock plugins' parameter specs.
//
// Input: the TOML text; the lines after a line `#--set` are `--set` values, one a line.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "arbo/kernel/errors.hpp"
#include "arbo/kernel/pipeline.hpp"
#include "arbo/kernel/plugin_registry.hpp"
#include "fuzz_strict.hpp"

namespace {

using arbo::kernel::ComponentLookup;
using arbo::kernel::PluginRegistry;

const ComponentLookup& lookup() {
  static const PluginRegistry* registry = [] {
    auto* r = new PluginRegistry;  // kept for the process: plugins stay loaded
    r->load_directory(ARBO_PLUGIN_DIR);
    return r;
  }();
  static const ComponentLookup l = [] {
    ComponentLookup out;
    out.find = [](arbo::sdk::Kind kind, std::string_view name) -> const arbo::sdk::ComponentInfo* {
      const arbo::kernel::ComponentEntry* e = registry->find(kind, name);
      return e != nullptr ? &e->info : nullptr;
    };
    out.names = [](arbo::sdk::Kind kind) { return registry->names(kind); };
    return out;
  }();
  return l;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  lookup();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  constexpr std::string_view kSet = "\n#--set\n";
  const std::size_t split = input.find(kSet);
  const std::string text(input.substr(0, split));
  std::vector<std::string> overrides;
  if (split != std::string_view::npos) {
    std::string_view rest = input.substr(split + kSet.size());
    while (!rest.empty()) {
      const std::size_t nl = rest.find('\n');
      overrides.emplace_back(rest.substr(0, nl));
      if (nl == std::string_view::npos) break;
      rest.remove_prefix(nl + 1);
    }
  }
  try {
    const arbo::kernel::Pipeline p =
        arbo::kernel::parse_pipeline(text, "fuzz.toml", overrides, lookup());
    // A study stores to_toml() of its pipeline and `--resume` loads that text again.
    const std::string stored = arbo::kernel::to_toml(p);
    try {
      arbo::kernel::parse_pipeline(stored, "stored.toml", {}, lookup());
    } catch (const std::exception& e) {
      if (arbo::fuzz::strict()) arbo::fuzz::finding("the stored pipeline does not load", e.what());
    }
  } catch (const arbo::kernel::KernelError&) {
  } catch (const std::exception& e) {
    arbo::fuzz::unexpected(e);
  }
  return 0;
}
