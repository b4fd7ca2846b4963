// SPDX-License-Identifier: MIT
/// @file
/// @brief Loads plugin libraries (Boost.DLL), checks the two-phase handshake, and creates
/// components whose lifetime keeps their library loaded.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arbo/sdk/plugin.hpp"

namespace arbo::kernel {

/// One component found in a loaded library.
struct ComponentEntry {
  sdk::ComponentInfo info;        ///< kind, name, summary, params(), create()
  std::string id;                 ///< "kind/name", e.g. "inner_solver/random"
  std::string library_path;       ///< absolute path of the .so
  std::string plugin_name;        ///< header's plugin_name
  std::string plugin_version;     ///< header's plugin_version
  std::shared_ptr<void> library;  ///< keeps the library loaded (a boost::dll::shared_library)
};

/// A library that was rejected, and why.
struct LoadFailure {
  std::string path;
  std::string message;  ///< names the mismatch: ABI, size, fingerprint, entry, duplicate id...
};

/// The set of loaded plugins. Load from the main thread before any worker starts.
/// Libraries are never unloaded (they are held by entries and by a leaked registry).
class PluginRegistry {
 public:
  PluginRegistry();
  ~PluginRegistry();
  PluginRegistry(PluginRegistry&&) noexcept;
  PluginRegistry& operator=(PluginRegistry&&) noexcept;

  /// Loads every `*.so` in `dir` (non-recursive, sorted by name). Files without the `arboplug`
  /// section are skipped silently (they are not plugins). Problems are recorded, not thrown.
  void load_directory(const std::filesystem::path& dir);
  /// Loads one library. Returns false and records a LoadFailure when it is rejected; a
  /// rejected library contributes no component, the others are unaffected.
  bool load_library(const std::filesystem::path& file);
  /// Loads the directories of `search_path(...)` in order.
  void load_search_path(const std::vector<std::filesystem::path>& dirs);

  const std::vector<LoadFailure>& failures() const noexcept;
  /// All components, sorted by id.
  std::vector<const ComponentEntry*> components() const;
  const ComponentEntry* find(sdk::Kind kind, std::string_view name) const;
  /// Names of the components of one kind, sorted (for "did you mean").
  std::vector<std::string> names(sdk::Kind kind) const;

  /// Creates an instance through the component's factory, inside `guarded_call`, checks that
  /// it implements the kind's interface, and returns a shared_ptr whose deleter (kernel code)
  /// holds the library. @throws PluginError.
  std::shared_ptr<sdk::Component> create(const ComponentEntry& entry,
                                         const sdk::CreateArgs& args) const;

  /// Typed convenience over `create`.
  template <class T>
  std::shared_ptr<T> create_as(const ComponentEntry& entry, const sdk::CreateArgs& args) const {
    return std::dynamic_pointer_cast<T>(create(entry, args));
  }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// A component's parameters as `arbo plugins --params` prints them, one entry per parameter:
/// "    NAME = DEFAULT  (DOMAIN[, advanced])\n        DESCRIPTION\n", or "    (no
/// parameters)\n" when it has none; advanced parameters only when `advanced` (`--all`). The
/// Python package's `arbo.plugins()` hands out the same text as each entry's "doc".
/// @throws PluginError naming the component when its plugin's `params()` throws.
std::string format_parameters(const ComponentEntry& entry, bool advanced);

/// The plugin search path, in priority order: `cli_paths`, then the entries of the
/// `ARBO_PLUGIN_PATH` environment variable (colon-separated), then `<libdir>/arbo/plugins`
/// beside the loaded libarbo_kernel.so (how the Python module finds them), then
/// `<exe>/../lib/arbo/plugins` (for the CLI the same directory: build tree and install tree
/// both have this shape), then the install prefix's plugin directory; of these three built-in
/// entries only the first that exists is searched (one arbo's own plugins, so that a build
/// tree does not also load an installed copy). Entries that are not
/// directories are dropped; `ignored`, when not null, receives one warning per such entry the
/// user gave (`cli_paths` and `ARBO_PLUGIN_PATH`), naming it.
/// `builtin = false` leaves the three built-in entries out (a harness that wants exactly the
/// directories it names).
std::vector<std::filesystem::path> plugin_search_path(const std::vector<std::string>& cli_paths,
                                                      std::vector<std::string>* ignored = nullptr,
                                                      bool builtin = true);

}  // namespace arbo::kernel
