// Fuzz target: the plugin pre-check (experiments/plugins/elf_precheck.h), the bytes of
// a file someone passes as a plugin, checked before dlopen may map it. It must never
// read outside the bytes or crash, and must refuse what dlopen could not map: whatever
// it accepts is a 64-bit little-endian ET_DYN ELF file for this machine whose program
// headers and loadable segments lie inside it — checked here again, independently,
// field by field. (dlopen itself is never called: an accepted input is still
// arbitrary code.)
#include <elf.h>

#include <cstring>
#include <string>
#include <string_view>

#include "experiments/plugins/elf_precheck.h"
#include "tests/fuzz/fuzz_input.h"

using ablate::fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const std::string problem = ablate::experiments::elf_precheck_problem(bytes);
  require(problem.find('\n') == std::string::npos && problem.size() < 200,
          "the reason is one short line");
  if (!problem.empty()) return 0;
  require(size >= sizeof(Elf64_Ehdr) && std::memcmp(data, ELFMAG, SELFMAG) == 0,
          "accepted: an ELF header");
  Elf64_Ehdr h;
  std::memcpy(&h, data, sizeof h);
  require(
      h.e_ident[EI_CLASS] == ELFCLASS64 && h.e_ident[EI_DATA] == ELFDATA2LSB && h.e_type == ET_DYN,
      "accepted: 64-bit, little-endian, ET_DYN");
  require(h.e_phoff <= size && h.e_phnum <= (size - h.e_phoff) / sizeof(Elf64_Phdr),
          "accepted: program headers inside");
  for (std::size_t i = 0; i < h.e_phnum; ++i) {
    Elf64_Phdr p;
    std::memcpy(&p, data + h.e_phoff + i * sizeof p, sizeof p);
    if (p.p_type == PT_LOAD)
      require(p.p_offset <= size && p.p_filesz <= size - p.p_offset,
              "accepted: every loadable segment inside");
  }
  return 0;
}
