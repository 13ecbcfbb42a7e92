#include "experiments/reports/markdown_sections.h"

#include <set>
#include <sstream>
#include <vector>

namespace ablate::experiments {

namespace {

struct Heading {
  std::size_t line = 0;
  int level = 0;
};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

int heading_level(const std::string& line) {
  const std::size_t hashes = line.find_first_not_of('#');
  if (hashes == 0 || hashes == std::string::npos || line[hashes] != ' ') return 0;
  return int(hashes);
}

// Headings outside ``` fences, in order.
std::vector<Heading> headings_of(const std::vector<std::string>& lines) {
  std::vector<Heading> out;
  bool fenced = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].starts_with("```"))
      fenced = !fenced;
    else if (!fenced)
      if (const int level = heading_level(lines[i]); level > 0) out.push_back({i, level});
  }
  return out;
}

}  // namespace

std::string sections_missing_from(const std::string& original, const std::string& rebuilt) {
  const std::vector<std::string> lines = lines_of(original), rebuilt_lines = lines_of(rebuilt);
  std::set<std::string> present;
  for (const Heading& h : headings_of(rebuilt_lines)) present.insert(rebuilt_lines[h.line]);
  const std::vector<Heading> headings = headings_of(lines);
  std::set<std::size_t> heading_lines;
  for (const Heading& h : headings) heading_lines.insert(h.line);
  std::string kept;
  std::size_t kept_until = 0;  // lines before it are in a kept section already
  for (std::size_t k = 0; k < headings.size(); ++k) {
    const Heading& h = headings[k];
    if (h.level < 2 || h.line < kept_until || present.count(lines[h.line])) continue;
    std::size_t end = lines.size();
    for (std::size_t j = k + 1; j < headings.size(); ++j)
      if (headings[j].level <= h.level) {
        end = headings[j].line;
        break;
      }
    for (std::size_t i = h.line; i < end; ++i)
      kept += (heading_lines.count(i) ? "#" : "") + lines[i] + "\n";
    kept_until = end;
  }
  if (kept.empty()) return "";
  return "\n## Not rebuilt: from the original report\n\nWhat follows needs what this folder's "
         "record does not hold "
         "(validation curves, per-layer values, samples, the plots' data): it is the report made "
         "from the run "
         "directory, not recomputed by the statistics above.\n\n" +
         kept;
}

}  // namespace ablate::experiments
