#pragma once
// Where the tests find the source tree, the `ablate` CLI and the test plugins. CMake
// compiles in each as a path relative to the test executable's directory
// (ABLATE_*_FROM_BINARY, tests/CMakeLists.txt), resolved here at run time: absolute
// paths in compile definitions would make every clone's objects differ, so a fresh
// clone could never reuse the compiler cache.
#include <cstdlib>
#include <filesystem>
#include <string>

namespace ablate::test_paths {

// `relative` resolved against the directory of the running test executable.
inline std::string from_test_binary(const char* relative) {
  static const std::filesystem::path dir =
      std::filesystem::canonical("/proc/self/exe").parent_path();
  return (dir / relative).lexically_normal().string();
}

}  // namespace ablate::test_paths

#ifdef ABLATE_TEST_DATA_DIR_FROM_BINARY  // tests/ of the source tree
#define ABLATE_TEST_DATA_DIR \
  ::ablate::test_paths::from_test_binary(ABLATE_TEST_DATA_DIR_FROM_BINARY)
#endif
#ifdef ABLATE_SOURCE_DIR_FROM_BINARY  // the source tree's root
#define ABLATE_SOURCE_DIR ::ablate::test_paths::from_test_binary(ABLATE_SOURCE_DIR_FROM_BINARY)
#endif
#ifdef ABLATE_CLI_FROM_BINARY  // the `ablate` executable of this build
// ... or the one $ABLATE_CLI_UNDER_TEST names: the command-line tests run against an
// older build to show that they fail there (tests/README.md, "Against an older build").
#define ABLATE_CLI                                         \
  (std::getenv("ABLATE_CLI_UNDER_TEST")                    \
       ? std::string(std::getenv("ABLATE_CLI_UNDER_TEST")) \
       : ::ablate::test_paths::from_test_binary(ABLATE_CLI_FROM_BINARY))
#endif
#ifdef ABLATE_PLUGIN_SCALE_NORM_FROM_BINARY
#define ABLATE_PLUGIN_SCALE_NORM \
  ::ablate::test_paths::from_test_binary(ABLATE_PLUGIN_SCALE_NORM_FROM_BINARY)
#endif
#ifdef ABLATE_PLUGIN_CLASH_FROM_BINARY
#define ABLATE_PLUGIN_CLASH ::ablate::test_paths::from_test_binary(ABLATE_PLUGIN_CLASH_FROM_BINARY)
#endif
#ifdef ABLATE_PLUGIN_UNRESOLVED_FROM_BINARY
#define ABLATE_PLUGIN_UNRESOLVED \
  ::ablate::test_paths::from_test_binary(ABLATE_PLUGIN_UNRESOLVED_FROM_BINARY)
#endif
