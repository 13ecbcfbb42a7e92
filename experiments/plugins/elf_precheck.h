#pragma once
// What a plugin file must be before dlopen may see it. dlopen maps the file's
// segments as the ELF headers describe them and runs the loader over them: a
// truncated library (a copy cut short, a build interrupted) dies with SIGBUS inside
// dlopen when a segment lies beyond the end of the file, and a library for another
// machine is at best an obscure dlerror. Both are refused here, from the bytes alone.
#include <string>
#include <string_view>

namespace ablate::experiments {

// "" when `bytes` are a shared library dlopen can map in this process: an ELF file
// of this build's class (64-bit), byte order (little-endian) and machine (x86-64 for
// an x86-64 ablate), of type ET_DYN, whose program headers, section headers and
// every loadable segment's file range lie inside the file. Otherwise the reason, one line ("is 4096
// bytes long, but its segment 2 ends at byte 16384 (truncated?)"). Never reads outside `bytes`.
std::string elf_precheck_problem(std::string_view bytes);

}  // namespace ablate::experiments
