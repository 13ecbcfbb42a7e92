// The repository's Markdown stands alone: a user's clone holds nothing outside it and
// no access to the project's tracker. So every link target `[text](target)` (and
// reference definition, and HTML href/src) and every `../` path in backticks must be a
// web link, an anchor, or a relative path that stays inside the repository and names a
// file that exists; absolute filesystem paths are refused; and no text may cite a
// tracker number ("issue #5") instead of saying what the change was.
#include <catch2/catch.hpp>

#include "tests/build_paths.h"
#include "tests/docs/markdown_files.h"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using ablate::testing::markdown_files;
using ablate::testing::read_text;

namespace {

struct MarkdownProblem {
  std::string file;  // relative to the repository root
  int line = 0;
  std::string target;  // the link or path as written ("" for a tracker reference)
  std::string message;
  std::string str() const {
    return file + ":" + std::to_string(line) + ": " + (target.empty() ? "" : "'" + target + "' ") +
           message;
  }
};

// "%20" → " "; anything that is not a valid escape stays as written.
std::string percent_decoded(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += char(std::stoi(s.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// Why `target`, written in a file in `dir`, does not stand alone; "" when it does.
std::string target_problem(std::string target, const fs::path& dir, const fs::path& root) {
  if (target.size() >= 2 && target.front() == '<' && target.back() == '>')
    target = target.substr(1, target.size() - 2);
  static const std::regex web("^(https?://|mailto:)", std::regex::icase);
  static const std::regex scheme("^[a-z][a-z0-9+.-]*:", std::regex::icase);
  if (target.empty() || target.front() == '#' || std::regex_search(target, web)) return "";
  if (std::regex_search(target, scheme))
    return "is neither a web link nor a path in the repository";
  std::string path = percent_decoded(target.substr(0, target.find_first_of("#?")));
  if (path.empty()) return "";
  if (path.front() == '/' || path.front() == '~')
    return "is an absolute filesystem path; a clone has only the repository";
  fs::path resolved = (dir / path).lexically_normal();
  fs::path inside = resolved.lexically_relative(root);
  if (inside.empty() || *inside.begin() == "..")
    return "points outside the repository; a clone has none of it";
  if (!fs::exists(resolved)) return "names a file that does not exist";
  return "";
}

// Every problem of one Markdown text; `file` is where it lives (only its directory and
// its name are used, so the text need not be on disk).
std::vector<MarkdownProblem> markdown_problems(const std::string& text, const fs::path& file,
                                               const fs::path& root) {
  static const std::regex code_span("`+([^`]+)`+");
  static const std::regex link(R"(\]\(\s*(<[^>]*>|[^)\s]*))");
  static const std::regex reference(R"(^\s{0,3}\[[^\]]+\]:\s*(\S+))");
  static const std::regex html(R"re(\b(?:href|src)\s*=\s*"([^"]*)")re", std::regex::icase);
  static const std::regex tracker(R"(\bissues? #?[0-9]+)", std::regex::icase);
  const fs::path root_n = root.lexically_normal();
  const fs::path dir = file.parent_path().lexically_normal();
  const std::string name = file.lexically_normal().lexically_relative(root_n).generic_string();
  std::vector<MarkdownProblem> problems;
  auto check = [&](int line, const std::string& target) {
    if (std::string why = target_problem(target, dir, root_n); !why.empty())
      problems.push_back({name, line, target, why});
  };
  std::istringstream in(text);
  std::string line;
  bool fenced = false;
  for (int number = 1; std::getline(in, line); ++number) {
    std::smatch m;
    if (std::regex_search(line, m, tracker))
      problems.push_back(
          {name, number, "",
           "cites the project's tracker (\"" + m.str() + "\"); say what the change was instead"});
    std::size_t start = line.find_first_not_of(" \t");
    if (start != std::string::npos &&
        (line.compare(start, 3, "```") == 0 || line.compare(start, 3, "~~~") == 0)) {
      fenced = !fenced;
      continue;
    }
    if (fenced) continue;
    // Paths in code spans; then the spans are blanked so that code is never read as a link.
    std::string prose = line;
    for (auto it = std::sregex_iterator(line.begin(), line.end(), code_span);
         it != std::sregex_iterator(); ++it) {
      std::string code = (*it)[1].str();
      if (code.rfind("../", 0) == 0) check(number, code.substr(0, code.find_first_of(" \t")));
      prose.replace(std::size_t(it->position()), std::size_t(it->length()),
                    std::size_t(it->length()), ' ');
    }
    for (const std::regex* r : {&link, &reference, &html})
      for (auto it = std::sregex_iterator(prose.begin(), prose.end(), *r);
           it != std::sregex_iterator(); ++it)
        check(number, (*it)[1].str());
  }
  return problems;
}

}  // namespace

const fs::path& kRoot = ablate::testing::kSourceRoot;

TEST_CASE("committed Markdown links only to files inside the repository and cites no tracker",
          "[docs]") {
  std::vector<fs::path> files = markdown_files(kRoot);
  std::set<std::string> names;
  for (const fs::path& f : files) {
    names.insert(f.lexically_relative(kRoot).generic_string());
    for (const MarkdownProblem& p : markdown_problems(read_text(f), f, kRoot)) FAIL_CHECK(p.str());
  }
  // The walk really covers the tree: the top-level and nested documents are in it.
  CHECK(names.count("README.md") == 1);
  CHECK(names.count("docs/ARCHITECTURE.md") == 1);
  CHECK(names.count("experiments/studies/results/scaling_gradient/study.md") == 1);
}

TEST_CASE(
    "the Markdown check reports links outside the repository, missing files and tracker references",
    "[docs]") {
  const std::string sample =
      "See [the notes](../shared/DESIGN.md) for the design.\n"      // 1: outside the repository
      "The plan is in [a plan](docs/NO_SUCH_PLAN.md).\n"            // 2: missing file
      "Fixed in issue #5, and the post is in `../shared/seed/`.\n"  // 3: tracker + outside
      "Or read ![it](/work/shared/DESIGN.md).\n"                    // 4: absolute path
      "Fine: [web](https://example.org/a_(b)), [mail](mailto:a@b.c), [anchor](#layers),\n"
      "[architecture](docs/ARCHITECTURE.md#layers), [readme](<README.md>), `docs/` in code.\n"
      "```sh\n"
      "cat ../shared/DESIGN.md   # code is not a link: [x](../y)\n"
      "```\n";
  std::vector<MarkdownProblem> problems = markdown_problems(sample, kRoot / "SAMPLE.md", kRoot);
  std::vector<std::string> reported;
  for (const MarkdownProblem& p : problems) reported.push_back(p.str());
  INFO(Catch::Detail::stringify(reported));
  REQUIRE(problems.size() == 5);
  CHECK(reported[0] ==
        "SAMPLE.md:1: '../shared/DESIGN.md' points outside the repository; a clone has none of it");
  CHECK(reported[1] == "SAMPLE.md:2: 'docs/NO_SUCH_PLAN.md' names a file that does not exist");
  CHECK(reported[2] ==
        "SAMPLE.md:3: cites the project's tracker (\"issue #5\"); say what the change was instead");
  CHECK(reported[3] ==
        "SAMPLE.md:3: '../shared/seed/' points outside the repository; a clone has none of it");
  CHECK(reported[4] ==
        "SAMPLE.md:4: '/work/shared/DESIGN.md' is an absolute filesystem path; a clone has only "
        "the repository");
}
