#include "experiments/io/csv_cells.h"

namespace ablate::experiments {

std::string trim_blanks(const std::string& s) {
  std::size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::vector<std::string> split_csv_cells(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  bool quoted = false, was_quoted = false;
  auto finish = [&] {
    cells.push_back(was_quoted ? cell : trim_blanks(cell));
    cell.clear();
    was_quoted = false;
  };
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"')
        cell += '"', ++i;
      else if (c == '"')
        quoted = false;
      else
        cell += c;
    } else if (c == '"' && trim_blanks(cell).empty()) {
      quoted = was_quoted = true;
      cell.clear();
    } else if (c == ',') {
      finish();
    } else if (!(was_quoted && (c == ' ' || c == '\t'))) {
      cell += c;
    }
  }
  finish();
  return cells;
}

}  // namespace ablate::experiments
