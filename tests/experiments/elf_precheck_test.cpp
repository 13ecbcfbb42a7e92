// experiments/plugins/elf_precheck.h: what a plugin file must be before dlopen sees
// it. A real plugin passes; every prefix of it (a copy cut short) is refused with the
// reason, as is one for another machine or class, or not a shared library at all —
// never a read outside the bytes (the sanitizer build would see one).
#include <catch2/catch.hpp>

#include "tests/build_paths.h"

#include <elf.h>

#include <cstring>

#include "experiments/plugins/elf_precheck.h"
#include "tests/experiments/experiment_files.h"

using ablate::experiments::elf_precheck_problem;
using namespace ablate::experiments::testing;

namespace {

const std::string& plugin_bytes() {
  static const std::string bytes = read_text(ABLATE_PLUGIN_SCALE_NORM);
  return bytes;
}

// The plugin with its ELF header changed by `edit`.
template <typename Edit>
std::string with_header(Edit edit) {
  std::string bytes = plugin_bytes();
  Elf64_Ehdr header;
  std::memcpy(&header, bytes.data(), sizeof header);
  edit(header);
  std::memcpy(bytes.data(), &header, sizeof header);
  return bytes;
}

}  // namespace

TEST_CASE("a plugin built here passes the ELF pre-check", "[plugins][elf]") {
  CHECK(elf_precheck_problem(plugin_bytes()) == "");
}

TEST_CASE("every truncation of a plugin is refused before dlopen", "[plugins][elf]") {
  const std::string& bytes = plugin_bytes();
  REQUIRE(bytes.size() > 4096);
  std::size_t refused = 0, total = 0;
  for (std::size_t n = 0; n < bytes.size(); n += (n < 256 ? 1 : 61)) {
    const std::string problem = elf_precheck_problem(std::string_view(bytes).substr(0, n));
    INFO(n << ": " << problem);
    CHECK_FALSE(problem.empty());
    refused += !problem.empty();
    ++total;
  }
  CHECK(refused == total);
  // The section headers come last: a file one byte short has lost them.
  CHECK(elf_precheck_problem(std::string_view(bytes).substr(0, bytes.size() - 1)) ==
        "is " + std::to_string(bytes.size() - 1) +
            " bytes long, but its section headers end beyond it (truncated?)");
  // Cut inside the segments (where dlopen died with SIGBUS), the segment is named.
  CHECK_THAT(elf_precheck_problem(std::string_view(bytes).substr(0, 4096)),
             Catch::Contains("is 4096 bytes long, but its loadable segment") &&
                 Catch::Contains("(truncated?)"));
}

TEST_CASE("a library for another machine or class, or not a library, is refused with the reason",
          "[plugins][elf]") {
  CHECK_THAT(elf_precheck_problem("not a shared object\n"), Catch::Contains("no ELF header"));
  CHECK_THAT(elf_precheck_problem(""), Catch::Contains("no ELF header"));
  CHECK_THAT(elf_precheck_problem(with_header([](Elf64_Ehdr& h) {
               h.e_machine = h.e_machine == EM_AARCH64 ? EM_X86_64 : EM_AARCH64;
             })),
             Catch::Contains("is built for another machine (ELF e_machine "));
  CHECK_THAT(
      elf_precheck_problem(with_header([](Elf64_Ehdr& h) { h.e_ident[EI_CLASS] = ELFCLASS32; })),
      Catch::Contains("is not a 64-bit ELF file"));
  CHECK_THAT(
      elf_precheck_problem(with_header([](Elf64_Ehdr& h) { h.e_ident[EI_DATA] = ELFDATA2MSB; })),
      Catch::Contains("is not a little-endian ELF file"));
  CHECK_THAT(elf_precheck_problem(with_header([](Elf64_Ehdr& h) { h.e_type = ET_EXEC; })),
             Catch::Contains("is not a shared library (ELF type 2, not ET_DYN)"));
  CHECK_THAT(elf_precheck_problem(with_header([](Elf64_Ehdr& h) { h.e_phoff = ~0ull - 8; })),
             Catch::Contains("its program headers end beyond it"));
  CHECK_THAT(elf_precheck_problem(with_header([](Elf64_Ehdr& h) { h.e_phnum = 0xffff; })),
             Catch::Contains("its program headers end beyond it"));
  CHECK_THAT(elf_precheck_problem(with_header([](Elf64_Ehdr& h) { h.e_phentsize = 32; })),
             Catch::Contains("program headers of 32 bytes"));
}
