#pragma once
// The committed Markdown the docs tests read: every *.md of the source tree.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/build_paths.h"

namespace ablate::testing {

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every *.md file of the source tree, outside .git, build directories (build*) and
// ablate's default output directory runs/ (none of them is committed).
inline std::vector<std::filesystem::path> markdown_files(const std::filesystem::path& root) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator();
       ++it) {
    const std::string name = it->path().filename().string();
    if (it->is_directory() && (name == ".git" || name == "runs" || name.rfind("build", 0) == 0)) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file() && it->path().extension() == ".md") files.push_back(it->path());
  }
  return files;
}

inline const std::filesystem::path kSourceRoot =
    std::filesystem::path(ABLATE_SOURCE_DIR).lexically_normal();

}  // namespace ablate::testing
