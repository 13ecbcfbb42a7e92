#include "experiments/plugins/elf_precheck.h"

#include <elf.h>

#include <cstdint>
#include <cstring>

namespace ablate::experiments {

namespace {

// The machine this ablate was compiled for: a plugin for another cannot be loaded.
#if defined(__x86_64__)
constexpr std::uint16_t kMachine = EM_X86_64;
constexpr const char* kMachineName = "x86-64";
#elif defined(__aarch64__)
constexpr std::uint16_t kMachine = EM_AARCH64;
constexpr const char* kMachineName = "AArch64";
#else
#error "elf_precheck: name this machine's EM_ constant"
#endif
static_assert(sizeof(void*) == 8, "elf_precheck checks ELFCLASS64 plugins for a 64-bit ablate");

// `count` records of `size` bytes from `offset` fit in `file_size` (no overflow).
bool fits(std::uint64_t offset, std::uint64_t count, std::uint64_t size, std::uint64_t file_size) {
  if (offset > file_size) return false;
  if (size != 0 && count > (file_size - offset) / size) return false;
  return true;
}

}  // namespace

std::string elf_precheck_problem(std::string_view bytes) {
  const std::uint64_t file_size = bytes.size();
  const std::string size_text = "is " + std::to_string(file_size) + " bytes long";
  if (file_size < EI_NIDENT || std::memcmp(bytes.data(), ELFMAG, SELFMAG) != 0)
    return "is not a shared library (no ELF header; build it with ablate_add_plugin)";
  if (bytes[EI_CLASS] != ELFCLASS64) return "is not a 64-bit ELF file (this ablate is 64-bit)";
  if (bytes[EI_DATA] != ELFDATA2LSB) return "is not a little-endian ELF file";
  if (file_size < sizeof(Elf64_Ehdr))
    return size_text + ", shorter than an ELF header (truncated?)";
  Elf64_Ehdr header;
  std::memcpy(&header, bytes.data(), sizeof header);
  if (header.e_machine != kMachine)
    return "is built for another machine (ELF e_machine " + std::to_string(header.e_machine) +
           "; this ablate is " + kMachineName + ", " + std::to_string(kMachine) + ")";
  if (header.e_type != ET_DYN)
    return "is not a shared library (ELF type " + std::to_string(header.e_type) + ", not ET_DYN)";
  if (header.e_phnum == 0) return "has no program headers, so nothing dlopen could map";
  if (header.e_phentsize != sizeof(Elf64_Phdr))
    return "has program headers of " + std::to_string(header.e_phentsize) + " bytes, not " +
           std::to_string(sizeof(Elf64_Phdr));
  if (!fits(header.e_phoff, header.e_phnum, sizeof(Elf64_Phdr), file_size))
    return size_text + ", but its program headers end beyond it (truncated?)";
  for (std::uint16_t i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr segment;
    std::memcpy(&segment, bytes.data() + header.e_phoff + std::uint64_t(i) * sizeof(Elf64_Phdr),
                sizeof segment);
    if (segment.p_type != PT_LOAD) continue;
    if (!fits(segment.p_offset, 1, segment.p_filesz, file_size))
      return size_text + ", but its loadable segment " + std::to_string(i) + " ends at byte " +
             (segment.p_offset > UINT64_MAX - segment.p_filesz
                  ? std::string("beyond 2^64")
                  : std::to_string(segment.p_offset + segment.p_filesz)) +
             " (truncated?)";
  }
  // dlopen does not read the section headers, but a file cut short loses them last:
  // checking them makes every truncation an error, not only one into a segment.
  if (header.e_shnum != 0 && !fits(header.e_shoff, header.e_shnum, header.e_shentsize, file_size))
    return size_text + ", but its section headers end beyond it (truncated?)";
  return "";
}

}  // namespace ablate::experiments
