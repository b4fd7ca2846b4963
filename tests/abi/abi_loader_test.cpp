// SPDX-License-Identifier: MIT
// The loader against the broken-plugin corpus in plugins/: every way a library can be wrong is
// refused with a message naming the file and the mismatch, and the good ones still work.
// The executable is named "abi", so `ctest -R '^abi\.'` selects exactly these tests.
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <Eigen/Core>

#include "arbo/kernel/errors.hpp"
#include "arbo/kernel/plugin_registry.hpp"
#include "arbo/sdk/constraint.hpp"
#include "arbo/sdk/context.hpp"
#include "arbo/sdk/params.hpp"
#include "arbo/sdk/space.hpp"

namespace {

namespace fs = std::filesystem;
using arbo::kernel::ComponentEntry;
using arbo::kernel::LoadFailure;
using arbo::kernel::PluginError;
using arbo::kernel::PluginRegistry;
using arbo::sdk::Kind;

const fs::path kPluginDir = ARBO_ABI_TEST_PLUGIN_DIR;

fs::path plugin(const std::string& name) {
  return fs::canonical(kPluginDir / ("libarbo_test_abi_" + name + ".so"));
}

class TestContext final : public arbo::sdk::Context {
 public:
  void log(arbo::sdk::LogLevel /*level*/, std::string_view /*message*/) override {}
  std::mt19937_64& rng() override { return rng_; }
  bool cancelled() const override { return false; }
  double seconds_left() const override { return std::numeric_limits<double>::infinity(); }
  arbo::sdk::ModelSolver* model_solver() override { return nullptr; }

 private:
  std::mt19937_64 rng_{42};
};

/// Everything a factory needs, alive for the whole test.
struct Creation {
  TestContext context;
  arbo::sdk::ParamSet params;
  arbo::sdk::Space space;
  arbo::sdk::CreateArgs args() { return {context, params, space}; }
};

std::vector<const LoadFailure*> failures_for(const PluginRegistry& registry, const fs::path& file) {
  std::vector<const LoadFailure*> out;
  for (const LoadFailure& f : registry.failures()) {
    if (f.path == file.string()) out.push_back(&f);
  }
  return out;
}

std::set<std::string> component_ids(const PluginRegistry& registry) {
  std::set<std::string> ids;
  for (const ComponentEntry* e : registry.components()) ids.insert(e->id);
  return ids;
}

/// A fresh directory, removed at the end of the test.
class TempDir {
 public:
  explicit TempDir(const std::string& tag) {
    path_ = fs::temp_directory_path() /
            ("arbo_abi_" + tag + "_" + std::to_string(static_cast<long>(::getpid())));
    fs::remove_all(path_);
    fs::create_directories(path_);
    path_ = fs::canonical(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

TEST(abi_loader, DirectoryRejectsExactlyTheBrokenLibraries) {
  PluginRegistry registry;
  registry.load_directory(kPluginDir);

  std::set<std::string> rejected;
  for (const LoadFailure& f : registry.failures()) rejected.insert(f.path);
  std::set<std::string> expected;
  for (const char* name :
       {"bad_abi", "bad_fingerprint", "bad_kind", "bad_sdk_major", "bad_size", "dup_within",
        "empty_table", "good_dup", "missing_entry", "null_table", "throwing_params"}) {
    expected.insert(plugin(name).string());
  }
  EXPECT_EQ(rejected, expected);
  EXPECT_EQ(registry.failures().size(), expected.size()) << "one failure per rejected file";

  // good_dup sorts after good, so it is the one refused and good keeps its components.
  EXPECT_EQ(component_ids(registry),
            (std::set<std::string>{"constraint/abi_sum", "constraint/abi_zero",
                                   "constraint/abi_throwing_factory", "surrogate/abi_wrong_kind"}));
  EXPECT_EQ(registry.find(Kind::Constraint, "abi_sum")->library_path, plugin("good").string());
}

struct ExpectedFailure {
  const char* library;
  std::vector<std::string> fragments;
};

TEST(abi_loader, EachRejectionNamesThePathAndTheMismatch) {
  PluginRegistry registry;
  registry.load_directory(kPluginDir);
  const std::vector<ExpectedFailure> cases = {
      {"bad_abi",
       {"ABI version mismatch",
        "plugin has 999, host expects " + std::to_string(ARBO_PLUGIN_ABI_VERSION)}},
      {"bad_size", {"struct size", std::to_string(sizeof(arbo_plugin_header_v1) + 8)}},
      {"bad_fingerprint",
       {"fingerprint", "gcc-0;libstdc++-cxx11abi0", arbo::sdk::kBuildFingerprint}},
      {"bad_sdk_major", {"SDK version", "7."}},
      {"null_table", {"no component table"}},
      {"empty_table", {"component table is empty"}},
      {"bad_kind", {"invalid kind", "42"}},
      {"missing_entry", {"missing entry", "arbo_plugin_entry_v1"}},
      {"dup_within", {"duplicate", "constraint/abi_twice"}},
      {"good_dup", {"duplicate", "constraint/abi_sum", plugin("good").string()}},
      {"throwing_params",
       {"constraint/abi_throwing_params", "params", "params exploded on purpose"}},
  };
  for (const ExpectedFailure& c : cases) {
    SCOPED_TRACE(c.library);
    const fs::path file = plugin(c.library);
    const auto found = failures_for(registry, file);
    ASSERT_EQ(found.size(), 1u);
    const std::string& message = found.front()->message;
    EXPECT_EQ(message.rfind("plugin " + file.string() + " rejected: ", 0), 0u) << message;
    for (const std::string& fragment : c.fragments) {
      EXPECT_NE(message.find(fragment), std::string::npos)
          << "missing '" << fragment << "' in: " << message;
    }
  }
}

TEST(abi_loader, ExactAbiMessage) {
  PluginRegistry registry;
  EXPECT_FALSE(registry.load_library(plugin("bad_abi")));
  ASSERT_EQ(registry.failures().size(), 1u);
  EXPECT_EQ(registry.failures()[0].message,
            "plugin " + plugin("bad_abi").string() +
                " rejected: ABI version mismatch: plugin has 999, host expects " +
                std::to_string(ARBO_PLUGIN_ABI_VERSION));
  EXPECT_TRUE(registry.components().empty());
}

TEST(abi_loader, RejectedLibraryContributesNothing) {
  PluginRegistry registry;
  EXPECT_FALSE(registry.load_library(plugin("throwing_params")));
  // Its first component is valid, but the library is refused as a whole.
  EXPECT_EQ(registry.find(Kind::Constraint, "abi_fine"), nullptr);
  EXPECT_TRUE(registry.components().empty());
  // A later, valid library is unaffected.
  EXPECT_TRUE(registry.load_library(plugin("good")));
  EXPECT_EQ(registry.components().size(), 2u);
  EXPECT_EQ(registry.failures().size(), 1u);
}

TEST(abi_loader, PlainSharedObjectIsSkippedSilently) {
  TempDir dir("plain");
  fs::copy_file(plugin("not_a_plugin"), dir.path() / "libplain.so");
  PluginRegistry registry;
  registry.load_directory(dir.path());
  EXPECT_TRUE(registry.failures().empty());
  EXPECT_TRUE(registry.components().empty());

  // Named explicitly, it is reported instead: the user asked for a plugin and got none.
  EXPECT_FALSE(registry.load_library(plugin("not_a_plugin")));
  ASSERT_EQ(registry.failures().size(), 1u);
  EXPECT_NE(registry.failures()[0].message.find("not an arbo plugin"), std::string::npos);
}

TEST(abi_loader, GoodComponentsAreFoundCreatedAndUsed) {
  PluginRegistry registry;
  ASSERT_TRUE(registry.load_library(plugin("good")));
  EXPECT_TRUE(registry.failures().empty());

  const auto all = registry.components();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0]->id, "constraint/abi_sum");
  EXPECT_EQ(all[1]->id, "constraint/abi_zero");
  EXPECT_EQ(registry.names(Kind::Constraint), (std::vector<std::string>{"abi_sum", "abi_zero"}));
  EXPECT_TRUE(registry.names(Kind::Surrogate).empty());
  EXPECT_EQ(registry.find(Kind::Surrogate, "abi_sum"), nullptr);

  const ComponentEntry* sum = registry.find(Kind::Constraint, "abi_sum");
  ASSERT_NE(sum, nullptr);
  EXPECT_EQ(sum->plugin_name, "arbo-test-abi-good");
  EXPECT_EQ(sum->plugin_version, "1.2.3");
  EXPECT_EQ(sum->library_path, plugin("good").string());
  EXPECT_STREQ(sum->info.summary, "sum(x) <= limit");
  EXPECT_NE(sum->library, nullptr);
  const arbo::sdk::ParamSpecList& specs = sum->info.params();
  ASSERT_EQ(specs.size(), 1u);
  EXPECT_EQ(specs[0].name, "limit");

  Creation creation;
  creation.params = arbo::sdk::validate_params(specs, {{"limit", 2.0}}, sum->id);
  auto constraint = registry.create_as<arbo::sdk::Constraint>(*sum, creation.args());
  ASSERT_NE(constraint, nullptr);
  EXPECT_DOUBLE_EQ(constraint->violation(Eigen::Vector3d(1.0, 1.0, 1.5)), 1.5);
  EXPECT_DOUBLE_EQ(constraint->violation(Eigen::Vector3d(0.5, 0.5, 0.5)), 0.0);
  EXPECT_EQ(constraint->describe(), "sum(x) <= limit (abi test)");

  const ComponentEntry* zero = registry.find(Kind::Constraint, "abi_zero");
  ASSERT_NE(zero, nullptr);
  Creation plain;
  auto component = registry.create(*zero, plain.args());
  auto* zero_constraint = dynamic_cast<arbo::sdk::Constraint*>(component.get());
  ASSERT_NE(zero_constraint, nullptr);
  EXPECT_EQ(zero_constraint->violation(Eigen::Vector2d(5.0, 5.0)), 0.0);
  EXPECT_EQ(zero_constraint->describe(), "known constraint");  // the SDK's default
}

TEST(abi_loader, DuplicateAcrossLibrariesKeepsTheFirst) {
  PluginRegistry registry;
  ASSERT_TRUE(registry.load_library(plugin("good")));
  EXPECT_FALSE(registry.load_library(plugin("good_dup")));
  ASSERT_EQ(registry.failures().size(), 1u);
  const std::string& message = registry.failures()[0].message;
  EXPECT_NE(message.find(plugin("good_dup").string()), std::string::npos) << message;
  EXPECT_NE(message.find("already provided by " + plugin("good").string()), std::string::npos)
      << message;
  EXPECT_NE(message.find("duplicate component id 'constraint/abi_sum'"), std::string::npos);

  EXPECT_EQ(registry.find(Kind::Constraint, "abi_dup_unique"), nullptr);
  const ComponentEntry* sum = registry.find(Kind::Constraint, "abi_sum");
  ASSERT_NE(sum, nullptr);
  EXPECT_EQ(sum->library_path, plugin("good").string());
  Creation creation;
  auto constraint = registry.create_as<arbo::sdk::Constraint>(*sum, creation.args());
  ASSERT_NE(constraint, nullptr);
  EXPECT_DOUBLE_EQ(constraint->violation(Eigen::Vector2d(1.0, 1.0)), 1.0);
}

TEST(abi_loader, DuplicateRefusesWhicheverComesSecond) {
  PluginRegistry registry;
  ASSERT_TRUE(registry.load_library(plugin("good_dup")));
  EXPECT_FALSE(registry.load_library(plugin("good")));
  ASSERT_EQ(registry.failures().size(), 1u);
  EXPECT_EQ(registry.failures()[0].path, plugin("good").string());
  EXPECT_NE(registry.failures()[0].message.find(plugin("good_dup").string()), std::string::npos);
  EXPECT_EQ(registry.find(Kind::Constraint, "abi_zero"), nullptr);
  EXPECT_EQ(component_ids(registry),
            (std::set<std::string>{"constraint/abi_dup_unique", "constraint/abi_sum"}));
}

TEST(abi_loader, SameLibraryTwiceIsANoOp) {
  PluginRegistry registry;
  ASSERT_TRUE(registry.load_library(plugin("good")));
  // Another spelling of the same file.
  EXPECT_TRUE(registry.load_library(kPluginDir / "." / "libarbo_test_abi_good.so"));
  registry.load_directory(kPluginDir);
  EXPECT_EQ(failures_for(registry, plugin("good")).size(), 0u);
  EXPECT_EQ(registry.find(Kind::Constraint, "abi_sum")->library_path, plugin("good").string());

  // A rejected library is reported once, however often it is named.
  const std::size_t before = registry.failures().size();
  EXPECT_FALSE(registry.load_library(plugin("bad_abi")));
  EXPECT_EQ(registry.failures().size(), before);
  EXPECT_EQ(failures_for(registry, plugin("bad_abi")).size(), 1u);
}

TEST(abi_loader, ThrowingFactoryBecomesPluginError) {
  PluginRegistry registry;
  ASSERT_TRUE(registry.load_library(plugin("throwing_factory")));
  const ComponentEntry* entry = registry.find(Kind::Constraint, "abi_throwing_factory");
  ASSERT_NE(entry, nullptr);
  Creation creation;
  try {
    registry.create(*entry, creation.args());
    FAIL() << "create() should have thrown";
  } catch (const PluginError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("constraint/abi_throwing_factory"), std::string::npos) << message;
    EXPECT_NE(message.find("create"), std::string::npos) << message;
    EXPECT_NE(message.find("factory exploded on purpose"), std::string::npos) << message;
    EXPECT_EQ(e.exit_code(), arbo::kernel::kExitPlugin);
  }
}

TEST(abi_loader, FactoryReturningTheWrongKindIsRefused) {
  PluginRegistry registry;
  ASSERT_TRUE(registry.load_library(plugin("wrong_kind")));
  const ComponentEntry* entry = registry.find(Kind::Surrogate, "abi_wrong_kind");
  ASSERT_NE(entry, nullptr);
  const long holders = entry->library.use_count();
  Creation creation;
  try {
    registry.create(*entry, creation.args());
    FAIL() << "create() should have thrown";
  } catch (const PluginError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("surrogate/abi_wrong_kind"), std::string::npos) << message;
    EXPECT_NE(message.find("arbo::sdk::Surrogate"), std::string::npos) << message;
  }
  EXPECT_EQ(entry->library.use_count(), holders) << "the refused object was not released";
}

TEST(abi_loader, ObjectsOutliveTheRegistryAndHoldTheirLibrary) {
  auto registry = std::make_unique<PluginRegistry>();
  ASSERT_TRUE(registry->load_library(plugin("good")));
  const ComponentEntry* sum = registry->find(Kind::Constraint, "abi_sum");
  ASSERT_NE(sum, nullptr);
  const std::shared_ptr<void> library = sum->library;

  Creation creation;
  const long before = library.use_count();
  std::shared_ptr<arbo::sdk::Constraint> constraint =
      registry->create_as<arbo::sdk::Constraint>(*sum, creation.args());
  ASSERT_NE(constraint, nullptr);
  EXPECT_EQ(library.use_count(), before + 1) << "the instance's deleter holds the library";

  registry.reset();
  EXPECT_DOUBLE_EQ(constraint->violation(Eigen::Vector2d(1.0, 0.5)), 0.5);
  EXPECT_EQ(constraint->describe(), "sum(x) <= limit (abi test)");
  const long with_instance = library.use_count();
  constraint.reset();  // runs the plugin's destructor through the kernel's deleter
  EXPECT_EQ(library.use_count(), with_instance - 1);
}

TEST(abi_loader, GarbageFilesDoNotCrashTheLoader) {
  TempDir dir("garbage");
  {
    std::mt19937 rng(12345);
    std::uniform_int_distribution<int> printable(0x20, 0x7e);
    std::ofstream out(dir.path() / "libgarbage.so", std::ios::binary);
    for (int i = 0; i < 8192; ++i) out.put(static_cast<char>(printable(rng)));
  }
  std::ofstream(dir.path() / "libempty.so").close();
  {
    // A real ELF header followed by nothing: section headers point past the end of the file.
    std::ifstream in(plugin("good"), std::ios::binary);
    std::array<char, 256> head{};
    in.read(head.data(), head.size());
    std::ofstream out(dir.path() / "libtruncated.so", std::ios::binary);
    out.write(head.data(), in.gcount());
  }
  {
    std::ofstream out(dir.path() / "libelfmagic.so", std::ios::binary);
    out << "\x7f"
           "ELF\x02";
  }
  fs::create_directory(dir.path() / "libdirectory.so");
  fs::copy_file(plugin("good"), dir.path() / "libzz_good_copy.so");
  std::ofstream(dir.path() / "README.txt") << "not a library\n";

  PluginRegistry registry;
  registry.load_directory(dir.path());
  for (const LoadFailure& f : registry.failures()) {
    // Reporting garbage is acceptable; it must only ever be about the garbage.
    EXPECT_EQ(fs::path(f.path).parent_path(), dir.path()) << f.message;
    EXPECT_NE(fs::path(f.path).filename(), "libzz_good_copy.so") << f.message;
  }
  const ComponentEntry* sum = registry.find(Kind::Constraint, "abi_sum");
  ASSERT_NE(sum, nullptr);
  EXPECT_EQ(sum->library_path, (dir.path() / "libzz_good_copy.so").string());
}

TEST(abi_loader, StrippedLibrariesAreJudgedByTheirDynamicSymbols) {
  // Installed libraries are often stripped: the static symbol table that pre-inspection reads is
  // gone, but the section and the exported alias remain.
  // binutils comes with build-essential, a declared dependency (tools/install-deps).
  ASSERT_EQ(std::system("command -v strip >/dev/null 2>&1"), 0)
      << "strip not found (Debian package binutils; tools/install-deps installs it)";
  TempDir dir("stripped");
  const fs::path good = dir.path() / "libgood_stripped.so";
  const fs::path missing = dir.path() / "libmissing_stripped.so";
  for (const auto& [from, to] :
       {std::pair{plugin("good"), good}, std::pair{plugin("missing_entry"), missing}}) {
    const std::string command = "strip -o '" + to.string() + "' '" + from.string() + "'";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
  }
  PluginRegistry registry;
  registry.load_directory(dir.path());
  ASSERT_NE(registry.find(Kind::Constraint, "abi_sum"), nullptr);
  EXPECT_EQ(registry.find(Kind::Constraint, "abi_sum")->library_path, good.string());
  const auto found = failures_for(registry, missing);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0]->message.find("missing entry"), std::string::npos) << found[0]->message;
  EXPECT_EQ(registry.failures().size(), 1u);
}

TEST(abi_loader, MissingDirectoryIsRecordedNotThrown) {
  PluginRegistry registry;
  const fs::path missing = kPluginDir / "does_not_exist";
  EXPECT_NO_THROW(registry.load_directory(missing));
  ASSERT_EQ(registry.failures().size(), 1u);
  EXPECT_NE(registry.failures()[0].message.find(missing.string()), std::string::npos);
}

TEST(abi_loader, MovedRegistryKeepsItsComponents) {
  PluginRegistry first;
  ASSERT_TRUE(first.load_library(plugin("good")));
  PluginRegistry second(std::move(first));
  EXPECT_NE(second.find(Kind::Constraint, "abi_zero"), nullptr);
  PluginRegistry third;
  third = std::move(second);
  EXPECT_EQ(third.components().size(), 2u);
}

/// Sets an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(abi_search_path, CliFirstThenEnvironmentThenExecutableDir) {
  TempDir root("search");
  for (const char* d : {"a", "b", "c"}) fs::create_directory(root.path() / d);
  const fs::path a = root.path() / "a", b = root.path() / "b", c = root.path() / "c";
  const fs::path missing = root.path() / "missing";

  ScopedEnv env("ARBO_PLUGIN_PATH", b.string() + "::" + missing.string() + ":" +
                                        (root.path() / "a" / ".." / "a").string() + ":" +
                                        c.string());
  const std::vector<fs::path> path =
      arbo::kernel::plugin_search_path({c.string(), missing.string(), a.string(), c.string()});

  ASSERT_GE(path.size(), 3u);
  EXPECT_EQ(path[0], c);
  EXPECT_EQ(path[1], a);
  EXPECT_EQ(path[2], b);
  // The test binary lives in <build>/bin, so <exe>/../lib/arbo/plugins is the build tree's
  // stock plugin directory whenever it exists.
  const fs::path exe_dir = fs::path(ARBO_PLUGIN_DIR);
  std::size_t expected_size = 3;
  if (fs::is_directory(exe_dir)) {
    ASSERT_GE(path.size(), 4u);
    EXPECT_EQ(path[3], fs::canonical(exe_dir));
    ++expected_size;
  }
  std::set<fs::path> unique(path.begin(), path.end());
  EXPECT_EQ(unique.size(), path.size()) << "duplicates must be dropped";
  for (const fs::path& p : path) {
    EXPECT_TRUE(fs::is_directory(p)) << p;
    EXPECT_NE(p, missing);
  }
  EXPECT_LE(path.size(), expected_size + 1) << "at most the install dir follows";
}

TEST(abi_search_path, EmptyEnvironmentAddsNothing) {
  ScopedEnv env("ARBO_PLUGIN_PATH", "");
  TempDir root("search_empty");
  const std::vector<fs::path> path = arbo::kernel::plugin_search_path({root.path().string()});
  ASSERT_FALSE(path.empty());
  EXPECT_EQ(path[0], root.path());
  EXPECT_EQ(std::count(path.begin(), path.end(), root.path()), 1);
}

TEST(abi_loader, GoodPluginExportsOnlyTheEntry) {
  ASSERT_EQ(std::system("command -v nm >/dev/null 2>&1"), 0)
      << "nm not found (Debian package binutils; tools/install-deps installs it)";
  const std::string command = "nm -D --defined-only '" + plugin("good").string() + "' 2>&1";
  std::FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  std::array<char, 512> buffer{};
  while (std::fgets(buffer.data(), static_cast<int>(buffer.size()), pipe) != nullptr) {
    output += buffer.data();
  }
  ASSERT_EQ(::pclose(pipe), 0) << output;

  std::vector<std::string> arbo_symbols;
  std::size_t start = 0;
  while (start < output.size()) {
    std::size_t end = output.find('\n', start);
    if (end == std::string::npos) end = output.size();
    const std::string line = output.substr(start, end - start);
    start = end + 1;
    const std::size_t space = line.find_last_of(' ');
    const std::string name = space == std::string::npos ? line : line.substr(space + 1);
    // arbo_add_plugin's version script hides everything else, including the Boost.System
    // symbols that header-only Boost would otherwise export.
    if (!name.empty()) arbo_symbols.push_back(name);
  }
  EXPECT_EQ(arbo_symbols, std::vector<std::string>{"arbo_plugin_entry_v1"}) << output;
}

}  // namespace
