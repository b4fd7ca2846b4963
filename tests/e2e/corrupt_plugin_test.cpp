// SPDX-License-Identifier: MIT
// Damaged copies of a real stock plugin in a plugin folder: truncated at many offsets, and with
// bytes of the tables the dynamic loader reads (headers, the dynamic section, hash, string and
// version tables) overwritten from a fixed seed.
// `arbo plugins` must never crash, and names each copy it refuses. One damaged copy crashed
// the loader inside dlopen (SIGSEGV, SIGBUS) before the ELF check (kernel/src/plugins/
// elf_check.cpp).
//
// Copies are loaded many at once (one `arbo plugins` per batch) to keep the test fast; when a
// batch fails, each of its copies is run alone to name the ones at fault.
#include <elf.h>
#include <link.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/cli_harness.hpp"

namespace {

namespace fs = std::filesystem;
using arbo::test::CliResult;

const fs::path kStock = fs::path(ARBO_PLUGIN_DIR) / "libarbo_inner_solver_random.so";

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

template <class T>
T at(const std::string& bytes, std::uint64_t offset) {
  T v{};
  if (offset + sizeof(T) <= bytes.size()) std::memcpy(&v, bytes.data() + offset, sizeof(T));
  return v;
}

/// Byte ranges [begin, end) of the tables that describe the library to the loader rather than
/// hold its code, data or addresses: the ELF header, the program and section header tables,
/// the dynamic section, the hash tables, the dynamic string table and the version tables.
/// Left out: code and data, and the addresses in the symbol and relocation tables, since a
/// changed address that still points inside the library is as undetectable as changed code
/// (see kernel/src/plugins/elf_check.hpp).
std::vector<std::pair<std::uint64_t, std::uint64_t>> table_ranges(const std::string& so) {
  const auto eh = at<ElfW(Ehdr)>(so, 0);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  out.emplace_back(0, sizeof(ElfW(Ehdr)));
  out.emplace_back(eh.e_phoff, eh.e_phoff + std::uint64_t{eh.e_phnum} * sizeof(ElfW(Phdr)));
  out.emplace_back(eh.e_shoff, eh.e_shoff + std::uint64_t{eh.e_shnum} * sizeof(ElfW(Shdr)));
  const auto section = [&](std::uint64_t i) {
    return at<ElfW(Shdr)>(so, eh.e_shoff + i * sizeof(ElfW(Shdr)));
  };
  const auto names = section(eh.e_shstrndx);
  for (std::uint64_t i = 0; i < eh.e_shnum; ++i) {
    const auto sh = section(i);
    const std::string name = so.c_str() + names.sh_offset + sh.sh_name;
    if (sh.sh_type == SHT_DYNAMIC || sh.sh_type == SHT_GNU_HASH || sh.sh_type == SHT_HASH ||
        sh.sh_type == SHT_GNU_versym || sh.sh_type == SHT_GNU_verneed ||
        sh.sh_type == SHT_GNU_verdef || name == ".dynstr") {
      out.emplace_back(sh.sh_offset, sh.sh_offset + sh.sh_size);
    }
  }
  return out;
}

class CorruptPlugin : public arbo::test::CliTest {
 protected:
  CorruptPlugin() : CliTest("arbo_corrupt_plugin") {}

  /// Writes the copies into a fresh folder, runs `arbo plugins` on it, and checks that it
  /// neither crashed nor failed as a bug, and that every copy in `must_reject` is named as
  /// rejected. Returns the number of copies named as rejected.
  std::size_t check_batch(const std::string& name,
                          const std::vector<std::pair<std::string, std::string>>& copies,
                          bool must_reject) {
    const fs::path dir = dir_ / name;
    fs::create_directories(dir);
    for (const auto& [file, bytes] : copies) {
      std::ofstream(dir / file, std::ios::binary)
          .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    }
    const CliResult r = arbo("--plugin-path '" + dir.string() + "' plugins");
    const fs::path canonical = fs::canonical(dir);
    std::size_t rejected = 0;
    for (const auto& [file, bytes] : copies) {
      // A copy that loads makes the next ones duplicates: those do not count as caught.
      const std::string named = "plugin " + (canonical / file).string() + " rejected: ";
      const std::size_t at_named = r.err.find(named);
      const bool found = at_named != std::string::npos &&
                         r.err.compare(at_named + named.size(), 9, "duplicate") != 0;
      rejected += found ? 1 : 0;
      if (must_reject) {
        EXPECT_TRUE(found) << file << " is not named as rejected:\n" << r.err;
      }
    }
    if (r.code == 0 || r.code == 4) return rejected;
    ADD_FAILURE() << name << ": `arbo plugins` exited " << r.code << "\n" << r.err;
    for (const auto& [file, bytes] : copies) {
      const fs::path alone = dir_ / (name + "_alone");
      fs::remove_all(alone);
      fs::create_directories(alone);
      fs::copy_file(dir / file, alone / file);
      const CliResult a = arbo("--plugin-path '" + alone.string() + "' plugins");
      EXPECT_TRUE(a.code == 0 || a.code == 4) << file << " alone: exit " << a.code << "\n" << a.err;
    }
    return rejected;
  }

  const std::string stock_ = read_bytes(kStock);
};

TEST_F(CorruptPlugin, EveryTruncatedCopyIsRejectedByName) {
  ASSERT_GT(stock_.size(), 4096u) << kStock;
  std::vector<std::pair<std::string, std::string>> copies;
  // The first bytes (magic, header, program headers) one by one, then evenly spread cuts.
  std::vector<std::size_t> cuts{0, 1, 3, 4, 5, 16, 52, 63, 64, 65, 100, 200, 500, 1000, 4095};
  for (std::size_t k = 1; k < 48; ++k) cuts.push_back(stock_.size() * k / 48);
  cuts.push_back(stock_.size() - 1);
  for (const std::size_t cut : cuts) {
    copies.emplace_back("libcut_" + std::to_string(cut) + ".so", stock_.substr(0, cut));
  }
  check_batch("truncated", copies, /*must_reject=*/true);
}

// Each entry of the dynamic section taken away in turn (its tag made one the loader ignores),
// and each load segment in turn (its type made PT_NULL). The loader reads some entries through
// a pointer it does not check when another entry is there (the version index table with the
// version needs, a relocation table's entry size, the PLT table with the PLT relocation kind),
// and data in a segment that is not mapped faults: each of these crashed it before the ELF
// check knew them. Every copy must be rejected by name or load; none may crash the CLI.
TEST_F(CorruptPlugin, EveryDynamicEntryOrLoadSegmentTakenAwayNeverCrashesTheCli) {
  const auto eh = at<ElfW(Ehdr)>(stock_, 0);
  std::vector<std::pair<std::string, std::string>> copies;
  for (std::uint64_t i = 0; i < eh.e_shnum; ++i) {
    const auto sh = at<ElfW(Shdr)>(stock_, eh.e_shoff + i * sizeof(ElfW(Shdr)));
    if (sh.sh_type != SHT_DYNAMIC) continue;
    for (std::uint64_t e = 0; e + 1 < sh.sh_size / sizeof(ElfW(Dyn)); ++e) {
      const std::uint64_t offset = sh.sh_offset + e * sizeof(ElfW(Dyn));
      const auto d = at<ElfW(Dyn)>(stock_, offset);
      if (d.d_tag == DT_NULL) break;
      std::string bytes = stock_;
      const ElfW(Sxword) unknown = 0x0fff0000;  // below every range the loader indexes
      std::memcpy(bytes.data() + offset, &unknown, sizeof(unknown));
      copies.emplace_back("libnodyn_" + std::to_string(e) + ".so", std::move(bytes));
    }
  }
  for (std::uint64_t i = 0; i < eh.e_phnum; ++i) {
    const std::uint64_t offset = eh.e_phoff + i * sizeof(ElfW(Phdr));
    if (at<ElfW(Phdr)>(stock_, offset).p_type != PT_LOAD) continue;
    std::string bytes = stock_;
    const ElfW(Word) none = PT_NULL;
    std::memcpy(bytes.data() + offset, &none, sizeof(none));
    copies.emplace_back("libnoload_" + std::to_string(i) + ".so", std::move(bytes));
  }
  ASSERT_GT(copies.size(), 20u);
  // One folder per copy: a copy that loads would make the next ones duplicates.
  for (const auto& copy : copies) check_batch(copy.first + "_dir", {copy}, /*must_reject=*/false);
}

TEST_F(CorruptPlugin, CopiesWithOverwrittenTablesNeverCrashTheCli) {
  std::mt19937_64 rng(23);
  const auto ranges = table_ranges(stock_);
  ASSERT_GE(ranges.size(), 7u);
  std::size_t rejected = 0;
  std::size_t total = 0;
  for (int batch = 0; batch < 3; ++batch) {
    std::vector<std::pair<std::string, std::string>> copies;
    for (int k = 0; k < 40; ++k) {
      std::string bytes = stock_;
      const int writes = 1 + static_cast<int>(rng() % 8);
      for (int w = 0; w < writes; ++w) {
        const auto& [begin, end] = ranges[rng() % ranges.size()];
        if (end <= begin) continue;
        bytes[begin + rng() % (end - begin)] = static_cast<char>(rng() % 256);
      }
      copies.emplace_back("libover_" + std::to_string(batch) + "_" + std::to_string(k) + ".so",
                          std::move(bytes));
    }
    total += copies.size();
    rejected += check_batch("overwritten_" + std::to_string(batch), copies, /*must_reject=*/false);
  }
  // Most such damage is caught by the ELF check (the rest changes a value the loader does not
  // depend on, or one that still makes sense): the test would pass vacuously without it.
  EXPECT_GT(rejected, total / 2) << rejected << " of " << total << " rejected";
}

}  // namespace
