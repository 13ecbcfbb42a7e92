// The folders of experiments/ are floors (docs/ARCHITECTURE.md, "Inside experiments/"):
// a source file includes headers of its own folder and of the folders listed above
// it, never of a folder listed below. The list is read from the document, so the
// document and the code cannot drift apart: a new folder must be placed in it, and an
// include that points down the list (plain data in the room of the code that fills
// it, or a loop between folders) fails here with its file and line.
#include <catch2/catch.hpp>

#include "tests/build_paths.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

const fs::path kRoot = fs::path(ABLATE_SOURCE_DIR).lexically_normal();

// The folder names of the fenced block after the "include floors" marker, lowest first.
std::vector<std::string> declared_floors() {
  std::ifstream in(kRoot / "docs" / "ARCHITECTURE.md");
  std::string line;
  while (std::getline(in, line) && line.find("<!-- include floors") == std::string::npos) {
  }
  std::getline(in, line);  // the opening fence
  std::vector<std::string> floors;
  while (std::getline(in, line) && line.rfind("```", 0) != 0)
    if (!line.empty() && line[0] != ' ') floors.push_back(line.substr(0, line.find(' ')));
  return floors;
}

struct Include {
  std::string file;  // relative to the repository root
  int line = 0;
  std::string from, to;  // the including and the included folder
};

// Every `#include "experiments/<folder>/..."` of a source file under experiments/<folder>/.
std::vector<Include> folder_includes() {
  static const std::regex include_re(R"re(^\s*#\s*include\s*"experiments/([^/"]+)/[^"]+")re");
  std::vector<Include> includes;
  for (const auto& entry : fs::recursive_directory_iterator(kRoot / "experiments")) {
    const std::string ext = entry.path().extension().string();
    if (!entry.is_regular_file() || (ext != ".h" && ext != ".cpp" && ext != ".in")) continue;
    const fs::path rel = entry.path().lexically_relative(kRoot);
    auto part = rel.begin();
    ++part;  // "experiments"
    const std::string from = part->string();
    if (from == rel.filename().string()) continue;  // a file at the top of experiments/
    std::ifstream in(entry.path());
    std::string text;
    std::smatch m;
    for (int n = 1; std::getline(in, text); ++n)
      if (std::regex_search(text, m, include_re) && m[1] != from)
        includes.push_back({rel.string(), n, from, m[1]});
  }
  return includes;
}

}  // namespace

TEST_CASE(
    "experiments/ folders include only their own and lower floors, as ARCHITECTURE.md lists them",
    "[docs]") {
  const std::vector<std::string> floors = declared_floors();
  REQUIRE(floors.size() >= 10);
  std::map<std::string, std::size_t> level;
  for (std::size_t i = 0; i < floors.size(); ++i) level[floors[i]] = i;

  // Every code folder of experiments/ has its place on the list.
  for (const auto& entry : fs::directory_iterator(kRoot / "experiments")) {
    if (!entry.is_directory()) continue;
    bool has_code = false;
    for (const auto& f : fs::directory_iterator(entry.path()))
      has_code |= f.path().extension() == ".h" || f.path().extension() == ".cpp";
    if (has_code) {
      INFO("experiments/" << entry.path().filename().string() << " holds code");
      CHECK(level.count(entry.path().filename().string()) == 1);
    }
  }

  const std::vector<Include> includes = folder_includes();
  REQUIRE(includes.size() > 50);  // the scan sees the code
  std::ostringstream upward;
  for (const Include& i : includes) {
    if (!level.count(i.from) || !level.count(i.to)) continue;  // reported above
    if (level.at(i.to) > level.at(i.from))
      upward << i.file << ":" << i.line << ": " << i.from << "/ includes " << i.to
             << "/, a higher floor\n";
  }
  INFO(upward.str());
  CHECK(upward.str().empty());
}
