// The folders of experiments/ are floors (docs/ARCHITECTURE.md, "Inside experiments/"):
// a source file includes headers of its own folder and of the folders listed above
// it, never of a folder listed below. The list is read from the document, so the
// document and the code cannot drift apart: a new folder must be placed in it, and an
// include that points down the list (plain data in the room of the code that fills
// it, or a loop between folders) fails here with its file and line.
//
// Inside a folder, the components (x.h together with x.cpp) are levelizable (Lakos): the
// graph whose edges run from a component to every header of its folder that its .h or
// .cpp includes has no cycle, and a cycle fails naming the files and lines that make it.
#include <catch2/catch.hpp>

#include "tests/build_paths.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
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

// An include of a header of the same folder, from one component to another.
struct Edge {
  std::string to;    // the included component: the header's name without ".h"
  std::string file;  // the including file, relative to the repository root
  int line = 0;
};

// The components of experiments/<folder>/ (x.h and x.cpp are component x), each with its
// edges to the other components of the folder, in file and line order.
std::map<std::string, std::vector<Edge>> component_graph(const fs::path& folder) {
  const std::string name = folder.filename().string();
  const std::regex include_re("^\\s*#\\s*include\\s*\"experiments/" + name + "/([^/\"]+)\\.h\"");
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(folder))
    if (entry.is_regular_file() &&
        (entry.path().extension() == ".h" || entry.path().extension() == ".cpp"))
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  std::map<std::string, std::vector<Edge>> graph;
  for (const fs::path& file : files) {
    const std::string from = file.stem().string();
    std::vector<Edge>& edges = graph[from];
    std::ifstream in(file);
    std::string text;
    std::smatch m;
    for (int n = 1; std::getline(in, text); ++n)
      if (std::regex_search(text, m, include_re) && m[1] != from)
        edges.push_back({m[1], file.lexically_relative(kRoot).string(), n});
  }
  return graph;
}

// Each cycle of the graph a depth-first search meets, as its edges in order.
std::vector<std::vector<Edge>> component_cycles(
    const std::map<std::string, std::vector<Edge>>& graph) {
  enum class Mark { unseen, open, done };
  std::map<std::string, Mark> mark;
  std::vector<std::pair<std::string, const Edge*>> path;  // the components open, the edge taken
  std::vector<std::vector<Edge>> cycles;
  std::function<void(const std::string&)> visit = [&](const std::string& c) {
    mark[c] = Mark::open;
    auto it = graph.find(c);
    if (it != graph.end())
      for (const Edge& e : it->second) {
        if (mark[e.to] == Mark::open) {
          std::vector<Edge> cycle;
          auto start = std::find_if(path.begin(), path.end(),
                                    [&](const auto& p) { return p.first == e.to; });
          for (auto p = start; p != path.end(); ++p)
            if (p->second) cycle.push_back(*p->second);
          cycle.push_back(e);
          cycles.push_back(cycle);
        } else if (mark[e.to] == Mark::unseen) {
          path.back().second = &e;
          path.push_back({e.to, nullptr});
          visit(e.to);
          path.pop_back();
          path.back().second = nullptr;
        }
      }
    mark[c] = Mark::done;
  };
  for (const auto& [c, edges] : graph)
    if (mark[c] == Mark::unseen) {
      path.push_back({c, nullptr});
      visit(c);
      path.pop_back();
    }
  return cycles;
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

TEST_CASE(
    "inside each experiments/ folder the components (x.h with x.cpp) include each other "
    "without a cycle",
    "[docs]") {
  std::ostringstream cycles;
  std::size_t components = 0;
  for (const auto& entry : fs::directory_iterator(kRoot / "experiments")) {
    if (!entry.is_directory()) continue;
    const auto graph = component_graph(entry.path());
    components += graph.size();
    for (const std::vector<Edge>& cycle : component_cycles(graph)) {
      cycles << "a cycle in experiments/" << entry.path().filename().string() << "/:\n";
      for (const Edge& e : cycle)
        cycles << "  " << e.file << ":" << e.line << ": includes " << e.to << ".h\n";
    }
  }
  REQUIRE(components > 100);  // the scan sees the code
  INFO(cycles.str());
  CHECK(cycles.str().empty());
}
