#pragma once
// What built this binary, compiled into it: the git state of the source tree at build
// time and how the build compiles. provenance.h puts them into every summary.json and
// trials.json.
namespace ablate::experiments {

// The source tree at the last build (cmake/gitState.cmake computes it at every build,
// into the generated git_state.cpp). Each field is "unknown" when git could not tell
// (no git, not a repository).
struct GitState {
  const char* commit;       // HEAD's id, 40 hex digits
  const char* describe;     // `git describe --always --tags`
  const char* dirty;        // "true" (the working tree differs from HEAD), "false", "unknown"
  const char* diff_sha256;  // when dirty: SHA-256 of the difference from HEAD; "" when clean
  const char* tree;         // the git tree id of the working tree as built
};
GitState git_state();

// The compiler and the flags every C++ file was compiled with (generated at configure
// time into build_facts.cpp: they change only there).
struct BuildFacts {
  const char* compiler_id;       // CMake's: GNU, Clang, ...
  const char* compiler_version;  // e.g. 12.2.0
  const char* build_type;        // Release, Debug, ...
  const char* cxx_flags;         // CMAKE_CXX_FLAGS, the build type's, add_compile_options()'s
};
BuildFacts build_facts();

}  // namespace ablate::experiments
