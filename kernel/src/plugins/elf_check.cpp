// SPDX-License-Identifier: MIT
// The checks follow what glibc's loader reads, in its order: elf/dl-load.c (header, program
// headers, segments), dl-setup_hash.c and dl-lookup.c (hash tables, symbols, strings),
// dl-version.c (version tables), do-rel.h and dl-machine.h (relocations), dl-init.c
// (initializers). Each check is one the loader does not make and whose failure crashed it, or
// would let it read or write outside the mapped image.
#include "plugins/elf_check.hpp"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "arbo/sdk/excerpt.hpp"

namespace arbo::kernel {
namespace {

using Ehdr = ElfW(Ehdr);
using Phdr = ElfW(Phdr);
using Shdr = ElfW(Shdr);
using Dyn = ElfW(Dyn);
using Sym = ElfW(Sym);
using Rela = ElfW(Rela);
using Rel = ElfW(Rel);
using Addr = ElfW(Addr);
using Verneed = ElfW(Verneed);
using Vernaux = ElfW(Vernaux);
using Verdef = ElfW(Verdef);
using Verdaux = ElfW(Verdaux);

#if __SIZEOF_POINTER__ == 8
constexpr unsigned char kClass = ELFCLASS64;
constexpr std::uint64_t r_sym(std::uint64_t info) { return ELF64_R_SYM(info); }
constexpr std::uint64_t r_type(std::uint64_t info) { return ELF64_R_TYPE(info); }
#else
constexpr unsigned char kClass = ELFCLASS32;
constexpr std::uint64_t r_sym(std::uint64_t info) { return ELF32_R_SYM(info); }
constexpr std::uint64_t r_type(std::uint64_t info) { return ELF32_R_TYPE(info); }
#endif
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
constexpr unsigned char kData = ELFDATA2LSB;
#else
constexpr unsigned char kData = ELFDATA2MSB;
#endif

// The relocation types whose value is an address inside the library itself; 0 where unknown.
#if defined(__x86_64__)
constexpr int kMachine = EM_X86_64;
constexpr std::uint64_t kRelative = R_X86_64_RELATIVE;
constexpr std::uint64_t kIrelative = R_X86_64_IRELATIVE;
#elif defined(__aarch64__)
constexpr int kMachine = EM_AARCH64;
constexpr std::uint64_t kRelative = R_AARCH64_RELATIVE;
constexpr std::uint64_t kIrelative = R_AARCH64_IRELATIVE;
#else
constexpr int kMachine = EM_NONE;  // not checked
constexpr std::uint64_t kRelative = 0;
constexpr std::uint64_t kIrelative = 0;
#endif

struct Damage {
  std::string why;
};

[[noreturn]] void damaged(std::string why) { throw Damage{std::move(why)}; }

/// a + b, or damage when it overflows (an offset plus a size read from the file).
std::uint64_t sum(std::uint64_t a, std::uint64_t b, const char* what) {
  if (b > UINT64_MAX - a)
    damaged(fmt::format("{}: offset {:#x} plus size {:#x} overflows", what, a, b));
  return a + b;
}

std::uint64_t product(std::uint64_t count, std::uint64_t size, const char* what) {
  if (size != 0 && count > UINT64_MAX / size) {
    damaged(fmt::format("{}: {} entries of {} bytes overflow", what, count, size));
  }
  return count * size;
}

class Checker {
 public:
  Checker(const unsigned char* data, std::uint64_t size) : data_(data), size_(size) {}

  void run() {
    header();
    program_headers();
    section_headers();
    dynamic();
  }

 private:
  // ---- reading -------------------------------------------------------------------------------

  bool in_file(std::uint64_t offset, std::uint64_t length) const {
    return offset <= size_ && length <= size_ - offset;
  }

  void need_file(std::uint64_t offset, std::uint64_t length, const char* what) const {
    if (!in_file(offset, length)) {
      damaged(
          fmt::format("{} (offset {:#x}, {} bytes) extends past the end of the file "
                      "({} bytes): truncated?",
                      what, offset, length, size_));
    }
  }

  template <class T>
  T at(std::uint64_t offset, const char* what) const {
    need_file(offset, sizeof(T), what);
    T value;
    std::memcpy(&value, data_ + offset, sizeof(T));  // no alignment assumed
    return value;
  }

  /// The load segment holding [addr, addr + length) in memory, or null.
  const Phdr* segment_of(std::uint64_t addr, std::uint64_t length) const {
    for (const Phdr& p : loads_) {
      if (addr >= p.p_vaddr && addr - p.p_vaddr <= p.p_memsz &&
          length <= p.p_memsz - (addr - p.p_vaddr)) {
        return &p;
      }
    }
    return nullptr;
  }

  /// File offset of [addr, addr + length) when it lies in the file-backed part of one load
  /// segment: the loader reads these tables through the mapping.
  std::uint64_t file_offset(std::uint64_t addr, std::uint64_t length, const char* what) const {
    for (const Phdr& p : loads_) {
      if (addr >= p.p_vaddr && addr - p.p_vaddr <= p.p_filesz &&
          length <= p.p_filesz - (addr - p.p_vaddr)) {
        return p.p_offset + (addr - p.p_vaddr);
      }
    }
    damaged(fmt::format("{} (address {:#x}, {} bytes) is outside the loaded segments", what, addr,
                        length));
  }

  // Inside a load segment or at its end (a one-past-the-end pointer, _end). The gaps between
  // segments are reserved but not mapped, and a segment whose header was damaged into another
  // type is not mapped at all: an address there faults when used.
  bool mapped(std::uint64_t addr) const { return segment_of(addr, 0) != nullptr; }

  bool executable(std::uint64_t addr) const {
    const Phdr* p = segment_of(addr, 1);
    return p != nullptr && (p->p_flags & PF_X) != 0;
  }

  /// The NUL-terminated string at `offset` of the dynamic string table.
  // The string at `offset` of the dynamic string table, which need_string checked and which
  // is terminated.
  std::string_view string_at(std::uint64_t offset) const {
    return std::string_view(reinterpret_cast<const char*>(data_) + strings_at_ + offset);
  }

  void need_string(std::uint64_t offset, const char* what) const {
    if (offset >= strsz_) {
      damaged(fmt::format("{} names string {:#x} past the end of the string table ({} bytes)", what,
                          offset, strsz_));
    }
  }

  // ---- tables --------------------------------------------------------------------------------

  void header() {
    eh_ = at<Ehdr>(0, "the ELF header");
    if (eh_.e_ident[EI_CLASS] != kClass || eh_.e_ident[EI_DATA] != kData) {
      damaged(
          fmt::format("not a library for this machine: ELF class {}, byte order {} "
                      "(expected {}, {})",
                      eh_.e_ident[EI_CLASS], eh_.e_ident[EI_DATA], kClass, kData));
    }
    if (eh_.e_ident[EI_VERSION] != EV_CURRENT || eh_.e_version != EV_CURRENT) {
      damaged(fmt::format("unknown ELF version {}", eh_.e_version));
    }
    if (kMachine != EM_NONE && eh_.e_machine != kMachine) {
      damaged(fmt::format("not a library for this machine: ELF machine {} (expected {})",
                          eh_.e_machine, kMachine));
    }
    if (eh_.e_type != ET_DYN) {
      damaged(fmt::format("not a shared library: ELF type {} (expected {})", eh_.e_type, ET_DYN));
    }
    if (eh_.e_ehsize != sizeof(Ehdr)) damaged(fmt::format("ELF header size {}", eh_.e_ehsize));
  }

  void program_headers() {
    if (eh_.e_phentsize != sizeof(Phdr)) {
      damaged(fmt::format("program header size {} (expected {})", eh_.e_phentsize, sizeof(Phdr)));
    }
    if (eh_.e_phnum == 0 || eh_.e_phnum == PN_XNUM) {
      damaged(fmt::format("{} program headers", eh_.e_phnum));
    }
    const std::uint64_t table = product(eh_.e_phnum, sizeof(Phdr), "program header table");
    need_file(eh_.e_phoff, table, "the program header table");
    int dynamics = 0;
    std::vector<Phdr> others;
    for (std::uint64_t i = 0; i < eh_.e_phnum; ++i) {
      const Phdr p = at<Phdr>(eh_.e_phoff + i * sizeof(Phdr), "a program header");
      if (p.p_type == PT_LOAD) {
        load(p, loads_.size());
        loads_.push_back(p);
      } else {
        if (p.p_type == PT_DYNAMIC) {
          ++dynamics;
          dynamic_ = p;
        }
        others.push_back(p);
      }
    }
    if (loads_.empty()) damaged("no loadable segment");
    if (dynamics != 1) damaged(fmt::format("{} dynamic segments (expected 1)", dynamics));
    for (const Phdr& p : others) {
      // The loader reads these through the mapping (PT_NOTE, PT_GNU_PROPERTY, the dynamic
      // section) or copies them from it (PT_TLS).
      if (p.p_type == PT_DYNAMIC || p.p_type == PT_NOTE || p.p_type == PT_GNU_PROPERTY ||
          p.p_type == PT_TLS) {
        if (p.p_filesz > p.p_memsz)
          damaged(fmt::format("segment type {:#x}: file size above memory size", p.p_type));
        need_file(p.p_offset, p.p_filesz, "a segment");
        file_offset(p.p_vaddr, p.p_filesz, "a note, TLS or dynamic segment");
      }
      if (p.p_type == PT_TLS) tls_size_ = p.p_memsz;
      if (p.p_type == PT_GNU_RELRO && segment_of(p.p_vaddr, p.p_memsz) == nullptr) {
        damaged("the read-only-after-relocation range is outside the loaded segments");
      }
    }
  }

  void load(const Phdr& p, std::size_t index) {
    const std::string what = fmt::format("load segment {}", index);
    // The loader reads the headers through the first segment's mapping: every segment is
    // readable, and no flag beyond read, write, execute and the reserved ranges is set.
    if ((p.p_flags & PF_R) == 0 ||
        (p.p_flags & ~static_cast<std::uint32_t>(PF_R | PF_W | PF_X | PF_MASKOS | PF_MASKPROC)) !=
            0) {
      damaged(fmt::format("{}: flags {:#x}", what, p.p_flags));
    }
    if (p.p_filesz > p.p_memsz) damaged(what + ": file size above memory size");
    sum(p.p_offset, p.p_filesz, what.c_str());
    sum(p.p_vaddr, p.p_memsz, what.c_str());
    need_file(p.p_offset, p.p_filesz, what.c_str());
    if (p.p_align > 1) {
      if ((p.p_align & (p.p_align - 1)) != 0) damaged(what + ": alignment is not a power of 2");
      if (p.p_offset % p.p_align != p.p_vaddr % p.p_align) {
        damaged(what + ": file offset and address disagree modulo the alignment");
      }
    }
    if (!loads_.empty()) {
      const Phdr& prev = loads_.back();
      if (p.p_vaddr < prev.p_vaddr + prev.p_memsz) {
        damaged(what + ": overlaps or precedes the previous load segment");
      }
    }
    if (p.p_memsz > (std::uint64_t{1} << 40)) damaged(what + ": larger than 1 TiB");
  }

  // Boost.DLL's section reader (the `arboplug` lookup) walks this table before any loading.
  void section_headers() {
    std::uint64_t count = eh_.e_shnum;
    if (eh_.e_shoff == 0) {
      if (count != 0) damaged("section headers counted but not located");
      return;
    }
    if (eh_.e_shentsize != sizeof(Shdr)) {
      damaged(fmt::format("section header size {} (expected {})", eh_.e_shentsize, sizeof(Shdr)));
    }
    if (count == 0) count = at<Shdr>(eh_.e_shoff, "the section header table").sh_size;
    need_file(eh_.e_shoff, product(count, sizeof(Shdr), "section header table"),
              "the section header table");
    std::uint64_t names = eh_.e_shstrndx;
    if (names == SHN_XINDEX) names = at<Shdr>(eh_.e_shoff, "the section header table").sh_link;
    if (names >= count) damaged(fmt::format("section name table index {} of {}", names, count));
    const Shdr name_table = at<Shdr>(eh_.e_shoff + names * sizeof(Shdr), "a section header");
    need_file(name_table.sh_offset, name_table.sh_size, "the section name table");
    for (std::uint64_t i = 0; i < count; ++i) {
      const Shdr s = at<Shdr>(eh_.e_shoff + i * sizeof(Shdr), "a section header");
      if (s.sh_type != SHT_NOBITS && s.sh_type != SHT_NULL) {
        need_file(s.sh_offset, s.sh_size, "a section");
      }
      if (i != 0 && s.sh_name >= name_table.sh_size) {
        damaged(fmt::format("section {} has its name past the end of the name table", i));
      }
      if (s.sh_link >= count) damaged(fmt::format("section {} links to section {}", i, s.sh_link));
      if ((s.sh_type == SHT_SYMTAB || s.sh_type == SHT_DYNSYM) && s.sh_entsize != sizeof(Sym)) {
        damaged(fmt::format("section {}: symbol size {}", i, s.sh_entsize));
      }
      if (s.sh_type == SHT_DYNSYM) dynsym_section_count_ = s.sh_size / sizeof(Sym);
    }
    if (name_table.sh_size == 0 || data_[name_table.sh_offset + name_table.sh_size - 1] != '\0') {
      damaged("the section name table is not terminated");
    }
  }

  void dynamic() {
    const std::uint64_t count = dynamic_.p_filesz / sizeof(Dyn);
    bool terminated = false;
    std::vector<Dyn> entries;
    for (std::uint64_t i = 0; i < count; ++i) {
      const Dyn d = at<Dyn>(dynamic_.p_offset + i * sizeof(Dyn), "a dynamic entry");
      if (d.d_tag == DT_NULL) {
        terminated = true;
        break;
      }
      entries.push_back(d);
    }
    if (!terminated) damaged("the dynamic section has no terminating entry");
    for (const Dyn& d : entries) {
      const std::uint64_t v = d.d_un.d_val;
      seen_.insert(d.d_tag);
      switch (d.d_tag) {
        case DT_STRTAB: strtab_ = v; break;
        case DT_STRSZ: strsz_ = v; break;
        case DT_SYMTAB: symtab_ = v; break;
        case DT_SYMENT: syment_ = v; break;
        case DT_HASH: hash_ = v; break;
        case DT_GNU_HASH: gnu_hash_ = v; break;
        case DT_RELA: rela_ = v; break;
        case DT_RELASZ: relasz_ = v; break;
        case DT_RELAENT: relaent_ = v; break;
        case DT_REL: rel_ = v; break;
        case DT_RELSZ: relsz_ = v; break;
        case DT_RELENT: relent_ = v; break;
        case DT_JMPREL: jmprel_ = v; break;
        case DT_PLTRELSZ: pltrelsz_ = v; break;
        case DT_PLTREL: pltrel_ = v; break;
        case DT_INIT: init_ = v; break;
        case DT_FINI: fini_ = v; break;
        case DT_INIT_ARRAY: init_array_ = v; break;
        case DT_INIT_ARRAYSZ: init_arraysz_ = v; break;
        case DT_FINI_ARRAY: fini_array_ = v; break;
        case DT_FINI_ARRAYSZ: fini_arraysz_ = v; break;
        case DT_PREINIT_ARRAY:
        case DT_PREINIT_ARRAYSZ: damaged("a shared library with a pre-initializer array");
        case DT_VERSYM: versym_ = v; break;
        case DT_VERNEED: verneed_ = v; break;
        case DT_VERDEF: verdef_ = v; break;
        case DT_RELACOUNT: relacount_ = v; break;
        case DT_RELCOUNT: relcount_ = v; break;
        case DT_PLTGOT: pltgot_ = v; break;
        case DT_TEXTREL: textrel_ = true; break;
        case DT_FLAGS: textrel_ = textrel_ || (v & DF_TEXTREL) != 0; break;
        case DT_NEEDED:
        case DT_SONAME:
          libraries_.push_back(v);
          strings_.push_back(v);
          break;
        case DT_RPATH:
        case DT_RUNPATH: strings_.push_back(v); break;
#ifdef DT_RELR
        case DT_RELR: relr_ = v; break;
        case DT_RELRSZ: relrsz_ = v; break;
        case DT_RELRENT: relrent_ = v; break;
#endif
        default: break;
      }
    }
    if (!strtab_ || !symtab_ || strsz_ == 0) damaged("no dynamic symbol or string table");
    // A table without its size is read as empty by the loader, which then runs unrelocated code.
    const auto sized = [&](const std::optional<std::uint64_t>& table, bool has_size,
                           const char* what) {
      if (table && !has_size) damaged(fmt::format("the {} has no size", what));
    };
    sized(rela_, seen_.count(DT_RELASZ) != 0, "relocation table");
    sized(rel_, seen_.count(DT_RELSZ) != 0, "relocation table");
    sized(jmprel_, seen_.count(DT_PLTRELSZ) != 0 && seen_.count(DT_PLTREL) != 0,
          "PLT relocation table");
    sized(init_array_, seen_.count(DT_INIT_ARRAYSZ) != 0, "initializer array");
    // A PLT relocation kind makes the loader read the PLT table's address and size through
    // their entries without checking that there are any.
    if (seen_.count(DT_PLTREL) != 0 && (!jmprel_ || seen_.count(DT_PLTRELSZ) == 0)) {
      damaged("a PLT relocation kind without a PLT relocation table or its size");
    }
    // Lazy binding (the loader's default for dlopen) writes the resolver into the PLT's GOT.
    if (jmprel_ && !pltgot_) damaged("a PLT relocation table without a PLT GOT");
    // The loader asserts each relocation table's entry size through its entry without checking
    // that there is one (a null pointer).
    sized(rela_, seen_.count(DT_RELAENT) != 0, "relocation table's entry");
    sized(rel_, seen_.count(DT_RELENT) != 0, "relocation table's entry");
#ifdef DT_RELR
    sized(relr_, seen_.count(DT_RELRENT) != 0 && seen_.count(DT_RELRSZ) != 0,
          "packed relocation table");
#endif
    sized(fini_array_, seen_.count(DT_FINI_ARRAYSZ) != 0, "finalizer array");
    // The other way round: a size, count or kind whose table is gone. The loader then skips
    // the table (relocations, initializers), and the library's first call runs on unrelocated
    // pointers or unconstructed objects. A linker never writes one without the other.
    const auto orphan = [&](std::initializer_list<std::int64_t> tags, bool has_table,
                            const char* what) {
      for (const std::int64_t tag : tags) {
        if (seen_.count(tag) != 0 && !has_table) {
          damaged(fmt::format("dynamic entry {:#x} describes a {} that is not there", tag, what));
        }
      }
    };
    orphan({DT_RELASZ, DT_RELAENT, DT_RELACOUNT}, rela_.has_value(), "relocation table");
    orphan({DT_RELSZ, DT_RELENT, DT_RELCOUNT}, rel_.has_value(), "relocation table");
    orphan({DT_PLTRELSZ}, jmprel_.has_value(), "PLT relocation table");
    orphan({DT_INIT_ARRAYSZ}, init_array_.has_value(), "initializer array");
    orphan({DT_FINI_ARRAYSZ}, fini_array_.has_value(), "finalizer array");
    orphan({DT_VERNEEDNUM}, verneed_.has_value(), "version needs table");
    orphan({DT_VERDEFNUM}, verdef_.has_value(), "version definitions table");
    orphan({DT_STRSZ}, strtab_.has_value(), "string table");
    orphan({DT_SYMENT}, symtab_.has_value(), "symbol table");
#ifdef DT_RELR
    orphan({DT_RELRSZ, DT_RELRENT}, relr_.has_value(), "packed relocation table");
#endif
    // The loader stores its own link map and resolver in the first words of the PLT's GOT.
    if (pltgot_) {
      const Phdr* got = segment_of(*pltgot_, 3 * sizeof(Addr));
      if (got == nullptr || (got->p_flags & PF_W) == 0) {
        damaged("the PLT's global offset table is outside the writable segments");
      }
    }
    if (syment_ && *syment_ != sizeof(Sym)) damaged(fmt::format("symbol size {}", *syment_));
    strings_at_ = file_offset(*strtab_, strsz_, "the dynamic string table");
    if (data_[strings_at_ + strsz_ - 1] != '\0') {
      damaged("the dynamic string table is not terminated");
    }
    for (const std::uint64_t s : strings_) need_string(s, "a dynamic entry");

    nsyms_ = symbol_count();
    symbols();
    versions();
    relocations();
    initializers();
  }

  // The GNU hash table counts only the symbols it hashes (undefined ones come first and may be
  // all there is), so the section table's count, when there is one, may be larger.
  std::uint64_t symbol_count() {
    std::uint64_t count = 0;
    if (gnu_hash_) {
      count = gnu_hash_count(*gnu_hash_);
    } else if (hash_) {
      count = sysv_hash_count(*hash_);
    } else {
      damaged("no symbol hash table");
    }
    return std::max(count, dynsym_section_count_);
  }

  // dl-setup_hash.c and dl-lookup.c: nbuckets divides, the Bloom mask indexes the filter, and
  // each chain is walked until an entry with the low bit set.
  std::uint64_t gnu_hash_count(std::uint64_t addr) {
    const std::uint64_t head = file_offset(addr, 16, "the GNU hash table");
    const auto nbuckets = at<std::uint32_t>(head, "the GNU hash table");
    const auto symoffset = at<std::uint32_t>(head + 4, "the GNU hash table");
    const auto bloom = at<std::uint32_t>(head + 8, "the GNU hash table");
    const auto shift = at<std::uint32_t>(head + 12, "the GNU hash table");
    if (nbuckets == 0) damaged("the GNU hash table has no bucket");
    if (bloom == 0 || (bloom & (bloom - 1)) != 0) {
      damaged(fmt::format("the GNU hash table's Bloom filter has {} words", bloom));
    }
    if (shift >= 8 * sizeof(Addr)) damaged(fmt::format("GNU hash Bloom shift {}", shift));
    const std::uint64_t buckets_addr = addr + 16 + std::uint64_t{bloom} * sizeof(Addr);
    file_offset(addr, buckets_addr - addr, "the GNU hash Bloom filter");
    const std::uint64_t buckets =
        file_offset(buckets_addr, std::uint64_t{nbuckets} * 4, "the GNU hash buckets");
    const std::uint64_t chains_addr = buckets_addr + std::uint64_t{nbuckets} * 4;
    // Chains are consecutive runs of the array, each ended by an odd entry; the walk from the
    // highest bucket start ends at the last hashed symbol, and every other walk before it.
    std::uint64_t highest = 0;
    for (std::uint64_t b = 0; b < nbuckets; ++b) {
      const auto first = at<std::uint32_t>(buckets + 4 * b, "a GNU hash bucket");
      if (first == 0) continue;
      if (first < symoffset) {
        damaged(fmt::format("GNU hash bucket {} starts below the first hashed symbol", b));
      }
      highest = std::max<std::uint64_t>(highest, first);
    }
    if (highest == 0) return symoffset;
    for (std::uint64_t i = highest;; ++i) {
      const std::uint64_t entry =
          file_offset(chains_addr + 4 * (i - symoffset), 4, "a GNU hash chain");
      if (at<std::uint32_t>(entry, "a GNU hash chain") & 1u) return i + 1;
    }
  }

  std::uint64_t sysv_hash_count(std::uint64_t addr) {
    const std::uint64_t head = file_offset(addr, 8, "the hash table");
    const auto nbucket = at<std::uint32_t>(head, "the hash table");
    const auto nchain = at<std::uint32_t>(head + 4, "the hash table");
    if (nbucket == 0) damaged("the hash table has no bucket");
    const std::uint64_t table = file_offset(
        addr, 8 + 4 * (std::uint64_t{nbucket} + std::uint64_t{nchain}), "the hash table");
    std::vector<bool> seen(nchain, false);
    for (std::uint64_t b = 0; b < nbucket; ++b) {
      std::uint64_t i = at<std::uint32_t>(table + 8 + 4 * b, "a hash bucket");
      while (i != STN_UNDEF) {
        if (i >= nchain || seen[i]) damaged("a hash chain leaves the table or loops");
        seen[i] = true;
        i = at<std::uint32_t>(table + 8 + 4 * (std::uint64_t{nbucket} + i), "a hash chain");
      }
    }
    return nchain;
  }

  void symbols() {
    const std::uint64_t table =
        file_offset(*symtab_, product(nsyms_, sizeof(Sym), "symbol table"), "the symbol table");
    for (std::uint64_t i = 1; i < nsyms_; ++i) {
      const Sym s = at<Sym>(table + i * sizeof(Sym), "a symbol");
      need_string(s.st_name, "a symbol");
      if (s.st_shndx == SHN_UNDEF || s.st_shndx == SHN_ABS || s.st_shndx >= SHN_LORESERVE) continue;
      const unsigned type = ELF64_ST_TYPE(s.st_info);
      if (type == STT_TLS) {
        if (s.st_value > tls_size_)
          damaged(fmt::format("thread-local symbol {} is outside the TLS segment", i));
      } else if (!mapped(s.st_value)) {
        damaged(
            fmt::format("symbol {} (address {:#x}) is outside the loaded segments", i, s.st_value));
      } else if (type == STT_FUNC && !executable(s.st_value)) {
        damaged(fmt::format("function symbol {} is outside executable code", i));
      }
    }
  }

  // dl-version.c: version indexes from .gnu.version index the table built from the definitions
  // and the needs, and both lists are followed by byte offsets.
  void versions() {
    // Both lists are walked, as the loader walks them, until a zero link; a loop would never
    // end, so more entries than fit in the file is damage.
    const std::uint64_t cap = size_ / sizeof(Vernaux) + 1;
    std::uint64_t max_index = 1;
    // With needs or definitions, the loader reads the version index table without checking
    // that there is one (a null pointer).
    if ((verneed_ || verdef_) && !versym_) {
      damaged("version needs or definitions without a version index table");
    }
    if (verneed_) {
      std::uint64_t addr = *verneed_;
      for (std::uint64_t n = 0;; ++n) {
        if (n > cap) damaged("the version needs loop");
        const Verneed vn =
            at<Verneed>(file_offset(addr, sizeof(Verneed), "a version need"), "a version need");
        if (vn.vn_version != 1) damaged(fmt::format("version need revision {}", vn.vn_version));
        need_string(vn.vn_file, "a version need");
        // The loader looks the file up among the loaded objects and asserts that it is there
        // (compiled out: it then reads through a null map).
        const std::string_view file = string_at(vn.vn_file);
        if (std::none_of(libraries_.begin(), libraries_.end(),
                         [&](std::uint64_t o) { return string_at(o) == file; })) {
          damaged(fmt::format("a version need names '{}', which is not a needed library",
                              sdk::excerpt(file)));
        }
        std::uint64_t aux = sum(addr, vn.vn_aux, "a version need");
        for (std::uint64_t k = 0; vn.vn_cnt != 0; ++k) {
          if (k > cap) damaged("the needed versions loop");
          const Vernaux va = at<Vernaux>(file_offset(aux, sizeof(Vernaux), "a needed version"),
                                         "a needed version");
          need_string(va.vna_name, "a needed version");
          max_index = std::max<std::uint64_t>(max_index, va.vna_other & 0x7fffu);
          if (va.vna_next == 0) break;
          aux = sum(aux, va.vna_next, "a needed version");
        }
        if (vn.vn_next == 0) break;
        addr = sum(addr, vn.vn_next, "a version need");
      }
    }
    if (verdef_) {
      std::uint64_t addr = *verdef_;
      for (std::uint64_t n = 0;; ++n) {
        if (n > cap) damaged("the version definitions loop");
        const Verdef vd = at<Verdef>(file_offset(addr, sizeof(Verdef), "a version definition"),
                                     "a version definition");
        if (vd.vd_version != 1) {
          damaged(fmt::format("version definition revision {}", vd.vd_version));
        }
        max_index = std::max<std::uint64_t>(max_index, vd.vd_ndx & 0x7fffu);
        const Verdaux va = at<Verdaux>(file_offset(sum(addr, vd.vd_aux, "a version definition"),
                                                   sizeof(Verdaux), "a version name"),
                                       "a version name");
        need_string(va.vda_name, "a version definition");
        if (vd.vd_next == 0) break;
        addr = sum(addr, vd.vd_next, "a version definition");
      }
    }
    if (!versym_) return;
    const std::uint64_t table = file_offset(*versym_, nsyms_ * 2, "the symbol version table");
    for (std::uint64_t i = 0; i < nsyms_; ++i) {
      const std::uint64_t v = at<std::uint16_t>(table + 2 * i, "a symbol version") & 0x7fffu;
      if (v > max_index)
        damaged(fmt::format("symbol {} has version index {} of {}", i, v, max_index));
    }
  }

  // do-rel.h: each relocation writes one address-sized word at its target; the loader checks
  // neither the target nor the symbol index.
  void relocations() {
    if (relr_) packed_relative();
    if (rela_) {
      relocation_table<Rela>(*rela_, relasz_, relaent_, "the relocation table", relacount_);
    }
    if (rel_) relocation_table<Rel>(*rel_, relsz_, relent_, "the relocation table", relcount_);
    if (jmprel_) {
      if (pltrel_ == DT_RELA) {
        relocation_table<Rela>(*jmprel_, pltrelsz_, sizeof(Rela), "the PLT relocation table", 0);
      } else if (pltrel_ == DT_REL) {
        relocation_table<Rel>(*jmprel_, pltrelsz_, sizeof(Rel), "the PLT relocation table", 0);
      } else {
        damaged(fmt::format("PLT relocation kind {}", pltrel_));
      }
    }
  }

  // `relative_count` (DT_RELACOUNT): the loader takes that many leading entries as relative
  // ones without looking, and asserts on it.
  template <class R>
  void relocation_table(std::uint64_t addr, std::uint64_t size, std::uint64_t entsize,
                        const char* what, std::uint64_t relative_count) {
    if (entsize != sizeof(R)) damaged(fmt::format("{}: entry size {}", what, entsize));
    if (size % sizeof(R) != 0) damaged(fmt::format("{}: size {} is not whole entries", what, size));
    const std::uint64_t table = file_offset(addr, size, what);
    if (relative_count > size / sizeof(R)) {
      damaged(fmt::format("{}: {} relative entries counted of {}", what, relative_count,
                          size / sizeof(R)));
    }
    for (std::uint64_t i = 0; i < size / sizeof(R); ++i) {
      const R r = at<R>(table + i * sizeof(R), what);
      if (kRelative != 0 && i < relative_count && r_type(r.r_info) != kRelative) {
        damaged(fmt::format("{}: entry {} is counted as relative but is not", what, i));
      }
      const Phdr* target = segment_of(r.r_offset, sizeof(Addr));
      if (target == nullptr || ((target->p_flags & PF_W) == 0 && !textrel_)) {
        damaged(fmt::format("{}: entry {} writes to {:#x}, outside the writable segments", what, i,
                            r.r_offset));
      }
      if (r_sym(r.r_info) >= nsyms_) {
        damaged(
            fmt::format("{}: entry {} names symbol {} of {}", what, i, r_sym(r.r_info), nsyms_));
      }
      if constexpr (std::is_same_v<R, Rela>) {
        const std::uint64_t type = r_type(r.r_info);
        const auto value = static_cast<std::uint64_t>(r.r_addend);
        if (kRelative != 0 && (type == kRelative || type == kIrelative) && !mapped(value)) {
          damaged(fmt::format("{}: entry {} points at {:#x}, outside the loaded segments", what, i,
                              value));
        }
        if (type == kIrelative && !executable(value)) {
          damaged(fmt::format("{}: entry {} resolves through {:#x}, outside executable code", what,
                              i, value));
        }
        if (type == kRelative) relative_.emplace_back(r.r_offset, value);
      }
      targets_.push_back(r.r_offset);
    }
  }

  // Packed relative relocations: an even entry is an address, an odd one a bitmap of the 63
  // words after the last address; each such word holds an address inside the library.
  void packed_relative() {
    if (relrent_ != sizeof(Addr) || relrsz_ % sizeof(Addr) != 0) {
      damaged("the packed relocation table has the wrong entry size");
    }
    const std::uint64_t table = file_offset(*relr_, relrsz_, "the packed relocation table");
    const auto word = [&](std::uint64_t slot) {
      const Phdr* target = segment_of(slot, sizeof(Addr));
      if (target == nullptr || ((target->p_flags & PF_W) == 0 && !textrel_)) {
        damaged(fmt::format("a packed relocation writes to {:#x}, outside the writable segments",
                            slot));
      }
      const auto value = static_cast<std::uint64_t>(
          at<Addr>(file_offset(slot, sizeof(Addr), "a packed relocation's target"),
                   "a packed relocation's target"));
      if (!mapped(value)) {
        damaged(
            fmt::format("a packed relocation points at {:#x}, outside the loaded segments", value));
      }
      relative_.emplace_back(slot, value);
      targets_.push_back(slot);
    };
    std::uint64_t base = 0;
    for (std::uint64_t i = 0; i < relrsz_ / sizeof(Addr); ++i) {
      const auto entry =
          static_cast<std::uint64_t>(at<Addr>(table + i * sizeof(Addr), "a packed relocation"));
      if ((entry & 1u) == 0) {
        word(entry);
        base = entry + sizeof(Addr);
        continue;
      }
      for (std::uint64_t bit = 1; bit < 8 * sizeof(Addr); ++bit) {
        if ((entry >> bit) & 1u) word(base + (bit - 1) * sizeof(Addr));
      }
      base += (8 * sizeof(Addr) - 1) * sizeof(Addr);
    }
  }

  // dl-init.c calls every initializer-array slot as it is after relocation, and DT_INIT as is:
  // each slot must be relocated (as a relative address into executable code, or against a
  // symbol the loader resolves).
  void initializers() {
    if (init_ && !executable(*init_)) damaged("the initializer is outside executable code");
    if (fini_ && !executable(*fini_)) damaged("the finalizer is outside executable code");
    std::sort(relative_.begin(), relative_.end());
    std::sort(targets_.begin(), targets_.end());
    const auto array = [&](const std::optional<std::uint64_t>& addr, std::uint64_t size,
                           const char* what) {
      if (!addr) return;
      if (size % sizeof(Addr) != 0 || segment_of(*addr, size) == nullptr) {
        damaged(fmt::format("the {} array is outside the loaded segments", what));
      }
      if (kRelative == 0) return;
      for (std::uint64_t slot = *addr; slot < *addr + size; slot += sizeof(Addr)) {
        const auto it = std::lower_bound(relative_.begin(), relative_.end(),
                                         std::pair<std::uint64_t, std::uint64_t>(slot, 0));
        const bool relative = it != relative_.end() && it->first == slot;
        if (relative ? !executable(it->second)
                     : !std::binary_search(targets_.begin(), targets_.end(), slot)) {
          damaged(fmt::format("{} array slot {:#x} does not hold an address of executable code",
                              what, slot));
        }
      }
    };
    array(init_array_, init_arraysz_, "initializer");
    array(fini_array_, fini_arraysz_, "finalizer");
  }

  const unsigned char* data_;
  std::uint64_t size_;
  Ehdr eh_{};
  std::vector<Phdr> loads_;
  Phdr dynamic_{};
  std::uint64_t tls_size_ = 0;
  std::optional<std::uint64_t> strtab_, symtab_, syment_, hash_, gnu_hash_, rela_, rel_, jmprel_,
      relr_, init_, fini_, init_array_, fini_array_, versym_, verneed_, verdef_;
  std::uint64_t strsz_ = 0, relasz_ = 0, relaent_ = sizeof(Rela), relsz_ = 0, relent_ = sizeof(Rel),
                relrsz_ = 0, relrent_ = sizeof(Addr), pltrelsz_ = 0, pltrel_ = 0, init_arraysz_ = 0,
                fini_arraysz_ = 0;
  std::uint64_t relacount_ = 0, relcount_ = 0;
  std::optional<std::uint64_t> pltgot_;
  std::set<std::int64_t> seen_;  ///< dynamic tags present
  bool textrel_ = false;
  std::vector<std::uint64_t> strings_;
  std::vector<std::uint64_t> libraries_;  // DT_NEEDED and DT_SONAME strings
  std::uint64_t strings_at_ = 0;          // file offset of the dynamic string table
  std::uint64_t nsyms_ = 0;
  std::uint64_t dynsym_section_count_ = 0;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> relative_;  ///< (slot, address)
  std::vector<std::uint64_t> targets_;                             ///< every relocated slot
};

/// Closes and unmaps on every path.
struct Mapping {
  int fd = -1;
  void* data = MAP_FAILED;
  std::size_t size = 0;
  ~Mapping() {
    if (data != MAP_FAILED) munmap(data, size);
    if (fd >= 0) close(fd);
  }
};

}  // namespace

ElfCheck check_elf(const std::filesystem::path& file) {
  Mapping m;
  m.fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st {};
  if (m.fd < 0 || fstat(m.fd, &st) != 0) {
    // Unreadable: the loader's own error says why.
    return {ElfVerdict::NotElf, std::strerror(errno)};
  }
  const auto size = static_cast<std::uint64_t>(st.st_size);
  static constexpr unsigned char kMagic[SELFMAG] = {ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3};
  unsigned char magic[SELFMAG] = {};
  const ssize_t got = pread(m.fd, magic, SELFMAG, 0);
  if (got < 0) return {ElfVerdict::NotElf, std::strerror(errno)};
  if (std::memcmp(magic, kMagic, static_cast<std::size_t>(got)) != 0)
    return {ElfVerdict::NotElf, {}};
  if (static_cast<std::size_t>(got) < SELFMAG || size < sizeof(Ehdr)) {
    // An empty file, or the first bytes of one: a copy or a download that was cut short.
    return {ElfVerdict::Damaged,
            fmt::format("truncated: {} bytes, shorter than an ELF header", size)};
  }
  m.size = static_cast<std::size_t>(size);
  m.data = mmap(nullptr, m.size, PROT_READ, MAP_PRIVATE, m.fd, 0);
  if (m.data == MAP_FAILED) return {ElfVerdict::NotElf, std::strerror(errno)};
  try {
    Checker(static_cast<const unsigned char*>(m.data), size).run();
  } catch (const Damage& d) {
    return {ElfVerdict::Damaged, d.why};
  }
  return {ElfVerdict::Ok, {}};
}

}  // namespace arbo::kernel
