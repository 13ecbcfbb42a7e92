#include "experiments/reports/record_summaries.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>
#include <sstream>
#include <stdexcept>

#include "experiments/io/csv_cells.h"
#include "experiments/records/run_dir.h"
#include "nn/excerpt.h"

namespace ablate::experiments {

using json = nlohmann::json;

namespace {

// A results.csv cell as the summary.json value it was printed from (report.cpp's
// number(): six significant digits, or a string such as "inf").
json cell_value(const std::string& cell) {
  if (!cell.empty() && cell.size() < 19 &&
      cell.find_first_not_of("0123456789", cell[0] == '-') == std::string::npos && cell != "-")
    return std::stoll(cell);  // a count: steps, a step, parameters
  const char* begin = cell.c_str();
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(begin, &end);
  if (end != begin && *end == '\0' && errno != ERANGE && std::isfinite(v)) return v;
  return cell;
}

// A results.csv as trial id → column → cell.
std::map<std::string, std::map<std::string, std::string>> csv_cells_by_trial(
    const std::string& csv) {
  std::map<std::string, std::map<std::string, std::string>> out;
  std::istringstream in(csv);
  std::string line;
  if (!std::getline(in, line)) return out;
  const std::vector<std::string> header = split_csv_cells(line);
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const std::vector<std::string> cells = split_csv_cells(line);
    auto& row = out[cells[0]];
    for (std::size_t c = 0; c < header.size(); ++c)
      row[header[c]] = c < cells.size() ? cells[c] : "";
  }
  return out;
}

}  // namespace

// The fields the reports read without asking first (report.cpp's results.csv), null
// where a summary lacks them; a part that is not an object is an error naming `where`.
void complete_summary(json& s, const std::string& where) {
  for (const char* part : {"final", "best", "test"}) {
    if (!s.contains(part))
      s[part] = json::object();
    else if (!s[part].is_object())
      throw std::runtime_error(where + ": summary." + part + " must be an object");
  }
  for (const char* key : {"steps", "params", "wall_seconds", "steps_per_second"})
    if (!s.contains(key)) s[key] = nullptr;
  for (const char* key : {"train_loss", "val_loss"})
    if (!s["final"].contains(key)) s["final"][key] = nullptr;
  for (const char* key : {"step", "val_loss"})
    if (!s["best"].contains(key)) s["best"][key] = nullptr;
}

// A trial's summary.json as far as its results.csv row holds it.
json summary_from_row(const std::vector<std::string>& header, const std::vector<std::string>& row,
                      const std::set<std::string>& telemetry, std::size_t first_value_column) {
  json s = json::object();
  for (std::size_t c = first_value_column; c < header.size() && c < row.size(); ++c) {
    const std::string& name = header[c];
    const std::string& cell = row[c];
    if (cell.empty()) continue;
    if (name == "status")
      s["status"] = cell;
    else if (name == "best_step")
      s["best"]["step"] = cell_value(cell);
    else if (telemetry.count(name))
      s["telemetry"][name] = cell_value(cell);
    else if (name == "attention_path")
      s["computation"]["attention"]["path"] = cell;
    else if (name == "gemm_backend" || name == "precision")
      s["computation"][name] = cell;
    else if (name.starts_with("test_"))
      s["test"][name.substr(5)] = cell_value(cell);
    else if (name.starts_with("final_"))
      s["final"][name.substr(6)] = cell_value(cell);
    else if (name.starts_with("best_"))
      s["best"][name.substr(5)] = cell_value(cell);
    else
      s[name] = cell_value(cell);
  }
  complete_summary(s, RunDir::kResults);
  return s;
}

bool is_telemetry_column(const std::string& name) {
  return name == "init_grad_norm" || name.starts_with("init_grad_ratio_") ||
         name.starts_with("bn_");
}

// Where a rebuilt results.csv says something else than the original, for a message ("" when
// nowhere): the same trials, columns and cells, in whatever column order the ablate that
// wrote each one used.
std::string first_difference(const std::string& original, const std::string& rebuilt) {
  const auto a = csv_cells_by_trial(original), b = csv_cells_by_trial(rebuilt);
  for (const auto& [id, row] : a) {
    auto other = b.find(id);
    if (other == b.end()) return "trial " + excerpt(id) + " is not rebuilt";
    for (const auto& [column, cell] : row) {
      auto c = other->second.find(column);
      if (c == other->second.end()) return "column " + excerpt(column) + " is not rebuilt";
      if (c->second != cell)
        return "trial " + id + ", " + excerpt(column) + ": \"" + excerpt(cell) +
               "\" rebuilt as \"" + excerpt(c->second) + "\"";
    }
    if (other->second.size() != row.size())
      return "the rebuilt file has columns the original does not";
  }
  if (a.size() != b.size()) return "the rebuilt file has trials the original does not";
  return "";
}

}  // namespace ablate::experiments
