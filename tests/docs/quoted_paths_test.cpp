// Every repository path the Markdown names exists: a command a reader copies
// (`ablate run experiments/studies/g2p.toml`), a file a sentence points to
// (bench/README.md), in prose, in backticks and in code blocks alike. A path is a
// word that starts with one of the source tree's top-level folders and ends in a file
// extension or a slash; it resolves against the repository's root or the document's
// folder. Words with a placeholder (<name>, {a,b}, $VAR, *, ...) are patterns, not
// paths, and build/ and runs/ hold outputs, not committed files.
#include <catch2/catch.hpp>

#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/docs/markdown_files.h"

namespace fs = std::filesystem;
using namespace ablate::testing;

namespace {

// (line, path) of every repository path in `text` that exists neither under `root` nor
// under `dir`.
std::vector<std::pair<int, std::string>> missing_paths(const std::string& text, const fs::path& dir,
                                                       const fs::path& root) {
  static const std::regex path(
      R"((?:^|[^A-Za-z0-9_./<>{}$*-])((?:autograd|nn|experiments|bench|scripts|tests|docs|cmake|third_party)/[A-Za-z0-9_./+-]*(?:\.[A-Za-z]+|/))(?=$|[^A-Za-z0-9_/*<>{}-]))");
  std::vector<std::pair<int, std::string>> missing;
  std::istringstream lines(text);
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number)
    for (auto it = std::sregex_iterator(line.begin(), line.end(), path);
         it != std::sregex_iterator(); ++it) {
      std::string p = (*it)[1].str();
      while (!p.empty() && p.back() == '.') p.pop_back();  // a sentence's full stop
      if (p.find("...") != std::string::npos || p.empty()) continue;
      if (!fs::exists(root / p) && !fs::exists(dir / p)) missing.emplace_back(number, p);
    }
  return missing;
}

}  // namespace

TEST_CASE("every repository path the committed Markdown names exists", "[docs]") {
  int documents = 0;
  for (const fs::path& f : markdown_files(kSourceRoot)) {
    ++documents;
    const std::string name = f.lexically_relative(kSourceRoot).generic_string();
    for (const auto& [line, p] : missing_paths(read_text(f), f.parent_path(), kSourceRoot))
      FAIL_CHECK(name + ":" + std::to_string(line) + ": '" + p + "' does not exist");
  }
  CHECK(documents > 20);
}

TEST_CASE("the path check finds a missing file in a command, in prose and in backticks only",
          "[docs]") {
  const std::string sample =
      "build/experiments/ablate run experiments/g2p.toml --jobs 2\n"   // 1: missing
      "Read bench/README.md and docs/NO_SUCH.md.\n"                    // 2: the second
      "`experiments/studies/quickstart.toml` and `scripts/gone.sh`\n"  // 3: the second
      "Patterns: experiments/studies/results/<name>/summary.md, nn/*.h,\n"
      "`$ABLATE_DIR/x.toml`, experiments/studies/.../a.toml, build/x.md, runs/y.md.\n"
      "Folders: experiments/studies/ exists, nn/no_such_folder/ does not.\n";  // 6
  const auto missing = missing_paths(sample, kSourceRoot, kSourceRoot);
  std::vector<std::string> found;
  for (const auto& [line, p] : missing) found.push_back(std::to_string(line) + " " + p);
  CHECK(found == std::vector<std::string>{"1 experiments/g2p.toml", "2 docs/NO_SUCH.md",
                                          "3 scripts/gone.sh", "6 nn/no_such_folder/"});
}
