// SPDX-License-Identifier: MIT
// A structural check of a shared object's ELF tables before it is handed to dlopen. The dynamic
// loader trusts every offset, address, size and index in them: a damaged copy of a plugin made
// it crash (SIGSEGV, SIGBUS) inside dlopen, where nothing can be caught.
#pragma once

#include <filesystem>
#include <string>

namespace arbo::kernel {

enum class ElfVerdict {
  NotElf,   ///< no ELF magic (a linker script, a text file): not ours to judge
  Damaged,  ///< starts like an ELF file, but a table the loader reads is broken or missing
  Ok,       ///< every table the loader reads before running code is consistent
};

struct ElfCheck {
  ElfVerdict verdict = ElfVerdict::NotElf;
  std::string detail;  ///< what is wrong, for the rejection message
};

/// Checks what the dynamic loader reads before it runs any of the library's code: the ELF
/// header (class, byte order, machine, type), the program headers (load segments inside the
/// file, ordered, aligned), the section header table, the dynamic section, the dynamic string
/// and symbol tables, the symbol hash tables (GNU and SysV), the symbol version tables, and
/// every relocation (target inside a writable segment, symbol index in range, a relative
/// address inside a load segment, initializers in executable code).
///
/// It cannot tell damaged code or data from intact ones: a library whose instructions or
/// constants were overwritten passes, and so does one whose code addresses (the initializer,
/// a function symbol) were moved elsewhere inside its executable code; either may still crash
/// when that code runs. The file is
/// mapped read-only; nothing in it is executed. O(size of those tables).
ElfCheck check_elf(const std::filesystem::path& file);

}  // namespace arbo::kernel
