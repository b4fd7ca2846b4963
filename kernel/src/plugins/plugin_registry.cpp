// SPDX-License-Identifier: MIT
// The plugin loader: inspect, load, check the two-phase handshake, register components, and
// create instances that keep their library loaded (anchors-style.md §2(a) 5-7, P1-P10).
#include "arbo/kernel/plugin_registry.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <map>
#include <set>
#include <system_error>
#include <utility>

#include <fmt/format.h>
#include <boost/dll/library_info.hpp>
#include <boost/dll/shared_library.hpp>

#include "arbo/kernel/errors.hpp"
#include "arbo/kernel/guarded_call.hpp"
#include "arbo/sdk/excerpt.hpp"
#include "arbo/sdk/params.hpp"
#include "plugins/elf_check.hpp"

namespace arbo::kernel {
namespace {

namespace fs = std::filesystem;
using Library = boost::dll::shared_library;

/// Every library that was ever dlopen'ed, leaked on purpose so that nothing is unloaded at
/// exit: static destruction order, thread_local destructors and atexit handlers registered by
/// plugin code (function-local statics in `params()`) all need the code to stay mapped (P2-P4).
/// Rejected libraries are kept too, because their entry and `params()` may already have run.
std::vector<std::shared_ptr<Library>>& kept_libraries() {
  static auto* keep = new std::vector<std::shared_ptr<Library>>;
  return *keep;
}

/// Deleter of every component instance. It lives in kernel code so that the shared_ptr control
/// block does too; `delete p` runs the plugin's virtual destructor while `library` still holds
/// the code (it is destroyed after the call returns) (P1).
struct ComponentDeleter {
  std::shared_ptr<void> library;
  void operator()(sdk::Component* p) const noexcept { delete p; }
};

bool implements_kind(sdk::Component* c, sdk::Kind kind) {
  switch (kind) {
    case sdk::Kind::Surrogate: return dynamic_cast<sdk::Surrogate*>(c) != nullptr;
    case sdk::Kind::Acquisition: return dynamic_cast<sdk::Acquisition*>(c) != nullptr;
    case sdk::Kind::InnerSolver: return dynamic_cast<sdk::InnerSolver*>(c) != nullptr;
    case sdk::Kind::Constraint: return dynamic_cast<sdk::Constraint*>(c) != nullptr;
    case sdk::Kind::Problem: return dynamic_cast<sdk::Problem*>(c) != nullptr;
  }
  return false;
}

const char* interface_name(sdk::Kind kind) {
  switch (kind) {
    case sdk::Kind::Surrogate: return "arbo::sdk::Surrogate";
    case sdk::Kind::Acquisition: return "arbo::sdk::Acquisition";
    case sdk::Kind::InnerSolver: return "arbo::sdk::InnerSolver";
    case sdk::Kind::Constraint: return "arbo::sdk::Constraint";
    case sdk::Kind::Problem: return "arbo::sdk::Problem";
  }
  return "an unknown interface";
}

bool valid_kind(sdk::Kind kind) {
  const auto v = static_cast<std::uint32_t>(kind);
  return v >= static_cast<std::uint32_t>(sdk::Kind::Surrogate) &&
         v <= static_cast<std::uint32_t>(sdk::Kind::Problem);
}

/// Names become the second half of "kind/name" and TOML keys, so a separator or blank in them
/// would make the id ambiguous.
bool valid_name(std::string_view name) {
  if (name.empty()) return false;
  return std::none_of(name.begin(), name.end(), [](char ch) {
    const auto u = static_cast<unsigned char>(ch);
    return ch == '/' || u <= 0x20 || u == 0x7f;
  });
}

std::string component_id(sdk::Kind kind, std::string_view name) {
  return fmt::format("{}/{}", sdk::to_string(kind), name);
}

/// What pre-inspection found out about a file, without running any of its code.
enum class Inspection { NotPlugin, Candidate, MissingEntry };

struct InspectResult {
  Inspection kind = Inspection::NotPlugin;
  std::string detail;  ///< why it is not a plugin, or what the section holds instead
};

InspectResult inspect(const fs::path& file) {
  InspectResult result;
  try {
    boost::dll::library_info info(boost::dll::fs::path(file.string()));
    const std::vector<std::string> sections = info.sections();
    if (std::find(sections.begin(), sections.end(), ARBO_PLUGIN_SECTION_NAME) == sections.end()) {
      result.detail = fmt::format("no '{}' section", ARBO_PLUGIN_SECTION_NAME);
      return result;
    }
    // The symbol list comes from the static symbol table, which a stripped library lacks; an
    // empty list therefore proves nothing and the dynamic lookup after loading decides.
    const std::vector<std::string> symbols = info.symbols(ARBO_PLUGIN_SECTION_NAME);
    if (!symbols.empty() &&
        std::find(symbols.begin(), symbols.end(), ARBO_PLUGIN_ENTRY_NAME) == symbols.end()) {
      result.kind = Inspection::MissingEntry;
      result.detail = fmt::format("found: {}", fmt::join(symbols, ", "));
      return result;
    }
    result.kind = Inspection::Candidate;
  } catch (const std::exception& e) {
    // Unreadable, truncated or not a native binary: not something we could load anyway.
    result.detail = e.what();
  }
  return result;
}

std::string missing_entry_message(std::string_view detail) {
  std::string message = fmt::format("missing entry: no '{}' alias in section '{}'",
                                    ARBO_PLUGIN_ENTRY_NAME, ARBO_PLUGIN_SECTION_NAME);
  if (!detail.empty()) message += fmt::format(" ({})", detail);
  return message;
}

const char* or_empty(const char* s) { return s != nullptr ? s : ""; }

}  // namespace

struct PluginRegistry::Impl {
  /// Keyed by id, so iteration is sorted and entry addresses are stable.
  std::map<std::string, ComponentEntry, std::less<>> entries;
  std::vector<LoadFailure> failures;
  /// Canonical path -> whether it was accepted; a second load of the same file is a no-op.
  std::map<std::string, bool, std::less<>> seen;

  enum class Outcome { Loaded, Skipped, Rejected };

  bool reject(const std::string& path, std::string_view why) {
    failures.push_back({path, fmt::format("plugin {} rejected: {}", path, why)});
    seen[path] = false;
    return false;
  }

  Outcome load(const fs::path& file, bool skip_non_plugins);
};

PluginRegistry::Impl::Outcome PluginRegistry::Impl::load(const fs::path& file,
                                                         bool skip_non_plugins) {
  std::error_code ec;
  fs::path canonical = fs::canonical(file, ec);
  if (ec) {
    const std::string why = fmt::format("cannot resolve path: {}", ec.message());
    const fs::path absolute = fs::absolute(file, ec);
    reject(ec ? file.string() : absolute.string(), why);
    return Outcome::Rejected;
  }
  const std::string path = canonical.string();
  if (auto it = seen.find(path); it != seen.end()) {
    return it->second ? Outcome::Loaded : Outcome::Rejected;
  }

  // dlopen trusts the file's tables, and a damaged copy of a plugin crashed it: a file that
  // starts like a library but whose tables do not hold together is reported, never loaded,
  // even where files that are not plugins are skipped silently.
  if (const ElfCheck elf = check_elf(canonical); elf.verdict == ElfVerdict::Damaged) {
    reject(path, fmt::format("damaged library file: {}", elf.detail));
    return Outcome::Rejected;
  }
  const InspectResult inspected = inspect(canonical);
  if (inspected.kind == Inspection::NotPlugin) {
    if (skip_non_plugins) return Outcome::Skipped;
    reject(path, fmt::format("not an arbo plugin ({})", inspected.detail));
    return Outcome::Rejected;
  }
  if (inspected.kind == Inspection::MissingEntry) {
    reject(path, missing_entry_message(inspected.detail));
    return Outcome::Rejected;
  }

  // Full path, no decorations, throwing overload: the exception carries dlerror's text (P10).
  std::shared_ptr<Library> lib;
  try {
    lib = std::make_shared<Library>(
        boost::dll::fs::path(path),
        boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
  } catch (const std::exception& e) {
    reject(path, fmt::format("cannot be loaded: {}", e.what()));
    return Outcome::Rejected;
  }
  kept_libraries().push_back(lib);

  if (!lib->has(ARBO_PLUGIN_ENTRY_NAME)) {
    reject(path, missing_entry_message({}));
    return Outcome::Rejected;
  }
  // The only place the raw entry type appears.
  const arbo_plugin_header_v1* header = nullptr;
  try {
    auto& entry = lib->get_alias<const arbo_plugin_header_v1*()>(ARBO_PLUGIN_ENTRY_NAME);
    header = entry();
  } catch (const std::exception& e) {
    reject(path, fmt::format("cannot resolve entry '{}': {}", ARBO_PLUGIN_ENTRY_NAME, e.what()));
    return Outcome::Rejected;
  }
  if (std::string mismatch = sdk::check_plugin_header(header); !mismatch.empty()) {
    reject(path, mismatch);
    return Outcome::Rejected;
  }

  // Phase 2: the header is known to match this build, so the C++ table may be read.
  const auto* table = static_cast<const sdk::PluginTable*>(header->cpp_table);
  if (table->count == 0 || table->components == nullptr) {
    reject(path, "component table is empty");
    return Outcome::Rejected;
  }

  std::shared_ptr<void> library_handle = lib;
  std::vector<ComponentEntry> accepted;
  std::set<std::string, std::less<>> ids_here;
  for (std::uint32_t i = 0; i < table->count; ++i) {
    const sdk::ComponentInfo& info = table->components[i];
    if (!valid_kind(info.kind)) {
      reject(path, fmt::format("component #{} has an invalid kind value {}", i,
                               static_cast<std::uint32_t>(info.kind)));
      return Outcome::Rejected;
    }
    if (info.name == nullptr || !valid_name(info.name)) {
      reject(path, fmt::format("component #{} ({}) has {} name", i, sdk::to_string(info.kind),
                               info.name == nullptr ? "a null" : "an empty or invalid"));
      return Outcome::Rejected;
    }
    std::string id = component_id(info.kind, info.name);
    if (info.summary == nullptr || info.params == nullptr || info.create == nullptr) {
      reject(path, fmt::format("component '{}' has a null summary, params() or factory", id));
      return Outcome::Rejected;
    }
    if (!ids_here.insert(id).second) {
      reject(path, fmt::format("duplicate component id '{}' (listed twice in {})", id, path));
      return Outcome::Rejected;
    }
    if (auto it = entries.find(id); it != entries.end()) {
      reject(path, fmt::format("duplicate component id '{}': already provided by {}", id,
                               it->second.library_path));
      return Outcome::Rejected;
    }
    // Parameter specs are the documentation and the validation schema; a component whose specs
    // cannot be produced is unusable, so the whole library is refused now, not mid-study.
    try {
      guarded_call(id, "params", [&]() -> const sdk::ParamSpecList& { return info.params(); });
    } catch (const PluginError& e) {
      reject(path, e.what());
      return Outcome::Rejected;
    }
    ComponentEntry entry;
    entry.info = info;
    entry.id = std::move(id);
    entry.library_path = path;
    entry.plugin_name = or_empty(header->plugin_name);
    entry.plugin_version = or_empty(header->plugin_version);
    entry.library = library_handle;
    accepted.push_back(std::move(entry));
  }

  for (ComponentEntry& entry : accepted) {
    std::string id = entry.id;
    entries.emplace(std::move(id), std::move(entry));
  }
  seen[path] = true;
  return Outcome::Loaded;
}

PluginRegistry::PluginRegistry() : impl_(std::make_unique<Impl>()) {}
PluginRegistry::~PluginRegistry() = default;
PluginRegistry::PluginRegistry(PluginRegistry&&) noexcept = default;
PluginRegistry& PluginRegistry::operator=(PluginRegistry&&) noexcept = default;

void PluginRegistry::load_directory(const std::filesystem::path& dir) {
  std::error_code ec;
  std::vector<fs::path> files;
  fs::directory_iterator it(dir, ec);
  if (ec) {
    impl_->failures.push_back({dir.string(), fmt::format("plugin directory {} cannot be read: {}",
                                                         dir.string(), ec.message())});
    return;
  }
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    const fs::path& p = it->path();
    std::error_code type_ec;
    if (p.extension() == ".so" && fs::is_regular_file(p, type_ec)) files.push_back(p);
  }
  if (ec) {
    impl_->failures.push_back({dir.string(), fmt::format("plugin directory {} cannot be listed: {}",
                                                         dir.string(), ec.message())});
  }
  std::sort(files.begin(), files.end(),
            [](const fs::path& a, const fs::path& b) { return a.filename() < b.filename(); });
  for (const fs::path& file : files) impl_->load(file, /*skip_non_plugins=*/true);
}

bool PluginRegistry::load_library(const std::filesystem::path& file) {
  return impl_->load(file, /*skip_non_plugins=*/false) == Impl::Outcome::Loaded;
}

void PluginRegistry::load_search_path(const std::vector<std::filesystem::path>& dirs) {
  for (const fs::path& dir : dirs) load_directory(dir);
}

const std::vector<LoadFailure>& PluginRegistry::failures() const noexcept {
  return impl_->failures;
}

std::vector<const ComponentEntry*> PluginRegistry::components() const {
  std::vector<const ComponentEntry*> out;
  out.reserve(impl_->entries.size());
  for (const auto& [id, entry] : impl_->entries) out.push_back(&entry);
  return out;
}

const ComponentEntry* PluginRegistry::find(sdk::Kind kind, std::string_view name) const {
  auto it = impl_->entries.find(component_id(kind, name));
  return it == impl_->entries.end() ? nullptr : &it->second;
}

std::vector<std::string> PluginRegistry::names(sdk::Kind kind) const {
  std::vector<std::string> out;
  for (const auto& [id, entry] : impl_->entries) {
    if (entry.info.kind == kind) out.emplace_back(entry.info.name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::shared_ptr<sdk::Component> PluginRegistry::create(const ComponentEntry& entry,
                                                       const sdk::CreateArgs& args) const {
  sdk::Component* raw = guarded_call(entry.id, "create", [&] { return entry.info.create(args); });
  if (raw == nullptr) {
    throw PluginError(component_error(entry.id, "create", "the factory returned null"));
  }
  if (!implements_kind(raw, entry.info.kind)) {
    delete raw;
    throw PluginError(component_error(
        entry.id, "create",
        fmt::format("the object does not implement {}", interface_name(entry.info.kind))));
  }
  return std::shared_ptr<sdk::Component>(raw, ComponentDeleter{entry.library});
}

std::vector<std::filesystem::path> plugin_search_path(const std::vector<std::string>& cli_paths,
                                                      std::vector<std::string>* ignored,
                                                      bool builtin) {
  // Each candidate with where it came from; the user's own entries are reported when they are
  // not directories, the built-in ones (which need not exist) are not.
  std::vector<std::pair<fs::path, std::string>> candidates;
  for (const std::string& p : cli_paths) {
    if (!p.empty()) candidates.emplace_back(p, "--plugin-path");
  }
  if (const char* env = std::getenv("ARBO_PLUGIN_PATH"); env != nullptr) {
    std::string_view rest(env);
    while (!rest.empty()) {
      const std::size_t colon = rest.find(':');
      const std::string_view item = rest.substr(0, colon);
      if (!item.empty()) candidates.emplace_back(std::string(item), "ARBO_PLUGIN_PATH entry");
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  }
  std::error_code ec;
  // Build and install trees both put the plugins at <libdir>/arbo/plugins beside
  // libarbo_kernel.so, which is how a process that is not the CLI (python3 loading the arbo
  // module) finds them; it comes first, so that python3's own <exe>/../lib/arbo/plugins (an
  // arbo installed in /usr) does not shadow them. For the CLI both are the same directory.
  if (Dl_info info{}; dladdr(reinterpret_cast<const void*>(&plugin_search_path), &info) != 0 &&
                      info.dli_fname != nullptr) {
    if (fs::path lib = fs::canonical(info.dli_fname, ec); !ec) {
      candidates.emplace_back(lib.parent_path() / "arbo" / "plugins", "");
    }
  }
  // The CLI: <prefix>/lib/arbo/plugins next to bin/, in the build and install trees.
  if (fs::path exe = fs::read_symlink("/proc/self/exe", ec); !ec) {
    candidates.emplace_back(exe.parent_path() / ".." / "lib" / "arbo" / "plugins", "");
  }
#ifdef ARBO_PLUGIN_INSTALL_DIR
  candidates.emplace_back(ARBO_PLUGIN_INSTALL_DIR, "");
#endif

  std::vector<fs::path> out;
  std::set<fs::path> seen;
  std::set<std::string> reported;
  bool builtin_found = false;
  for (const auto& [candidate, origin] : candidates) {
    std::error_code dir_ec;
    const fs::file_status status = fs::status(candidate, dir_ec);
    if (!fs::is_directory(status)) {
      if (ignored != nullptr && !origin.empty() && reported.insert(candidate.string()).second) {
        ignored->push_back(
            fmt::format("{} '{}' is ignored: {}", origin, sdk::excerpt(candidate.string()),
                        fs::exists(status) ? "not a directory" : "no such directory"));
      }
      continue;
    }
    fs::path canonical = fs::canonical(candidate, dir_ec);
    if (dir_ec) continue;
    // The built-in entries are alternatives, not a union: the first that exists is this arbo's
    // own plugin directory. A build tree run on a machine where arbo is also installed
    // (tools/quickstart installs under /usr/local) would otherwise load both copies and warn
    // about every duplicate component.
    if (origin.empty()) {
      if (builtin_found || !builtin) continue;
      builtin_found = true;
    }
    if (seen.insert(canonical).second) out.push_back(std::move(canonical));
  }
  return out;
}

std::string format_parameters(const ComponentEntry& entry, bool advanced) {
  const sdk::ParamSpecList& specs = guarded_call(
      entry.id, "params", [&]() -> const sdk::ParamSpecList& { return entry.info.params(); });
  if (specs.empty()) return "    (no parameters)\n";
  std::string out;
  for (const auto& s : specs) {
    if (s.advanced && !advanced) continue;
    out += fmt::format("    {} = {}  ({}{})\n        {}\n", s.name, sdk::to_string(s.default_value),
                       s.domain(), s.advanced ? ", advanced" : "", s.description);
  }
  return out;
}

}  // namespace arbo::kernel
