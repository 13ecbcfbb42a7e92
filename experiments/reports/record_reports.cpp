#include "experiments/reports/record_reports.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>

#include "experiments/config/experiment.h"
#include "experiments/io/atomic_file.h"
#include "experiments/io/csv_cells.h"
#include "experiments/io/scratch_folder.h"
#include "experiments/records/run_dir.h"
#include "experiments/reports/markdown_sections.h"
#include "experiments/reports/report.h"
#include "experiments/reports/run_record.h"
#include "experiments/reports/trial_index.h"
#include "nn/excerpt.h"

namespace ablate::experiments {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// ---- results.csv → summaries ----

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

}  // namespace

void derive_run_record(const std::string& results_dir, const Experiment& experiment) {
  const std::string csv_path = RunDir(results_dir).results();
  const std::string csv = read_file(csv_path);
  std::istringstream in(csv);
  std::string line;
  if (!std::getline(in, line)) throw std::runtime_error(csv_path + ": empty");
  const std::vector<std::string> header = split_csv_cells(line);
  if (header.size() < 2 || header[0] != "trial")
    throw std::runtime_error(csv_path +
                             ":1: not an ablate results.csv (its first column is not \"trial\")");
  const auto seed_column = std::find(header.begin(), header.end(), "seed");
  if (seed_column == header.end()) throw std::runtime_error(csv_path + ":1: no \"seed\" column");
  std::set<std::string> telemetry;
  for (const std::string& name : header)
    if (is_telemetry_column(name)) telemetry.insert(name);
  std::map<std::string, std::vector<std::string>> rows;
  for (int number = 2; std::getline(in, line); ++number)
    if (!line.empty()) {
      std::vector<std::string> cells = split_csv_cells(line);
      if (!rows.emplace(cells[0], cells).second)
        throw std::runtime_error(csv_path + ":" + std::to_string(number) + ": trial " +
                                 excerpt(cells[0]) + " twice");
    }
  const json index = trial_index_json(experiment);
  std::set<std::string> defined;
  for (const json& t : index["trials"]) defined.insert(t["id"].get<std::string>());
  for (const auto& [id, row] : rows)
    if (!defined.count(id))
      throw std::runtime_error(csv_path + ": trial " + excerpt(id) +
                               " is not one the experiment file defines now");
  for (const std::string& id : defined)
    if (!rows.count(id))
      throw std::runtime_error(csv_path + ": the experiment file defines trial " + id +
                               ", which it does not have");

  const std::size_t first_value = std::size_t(seed_column - header.begin()) + 1;
  std::string record_trials;
  for (const json& t : index["trials"]) {
    const std::vector<std::string>& row = rows.at(t["id"].get<std::string>());
    const std::size_t status = first_value;
    if (row.size() <= status || row[status] == "missing") continue;
    record_trials += record_trial_line(
        t["id"], summary_from_row(header, row, telemetry, first_value), json::object(), nullptr);
  }

  // Rebuild in a scratch folder: first to learn which sections of the original
  // summary.md the record cannot make, then with them, to check results.csv.
  const ScratchFolder scratch("ablate-record");
  {
    const RunDir copy(scratch.path() + "/" + folder_name(results_dir)), results(results_dir);
    fs::create_directories(copy.path());
    write_file_atomically(copy.experiment(), experiment.text_as_run());
    auto write_record = [&](const std::string& kept) {
      write_file_atomically(copy.record(), record_header_line(RunDir::kResults, index, copy.path(),
                                                              kept, json::object()) +
                                               record_trials);
    };
    write_record("");
    rebuild_reports_from_record(copy.path());
    const std::string original =
        fs::exists(results.summary_table()) ? read_file(results.summary_table()) : "";
    const std::string kept = sections_missing_from(original, read_file(copy.summary_table()));
    write_record(kept);
    rebuild_reports_from_record(copy.path());
    if (const std::string d = first_difference(csv, read_file(copy.results())); !d.empty())
      throw std::runtime_error(csv_path + ": the derived record does not rebuild it: " + d);
    write_file_atomically(results.record(), read_file(copy.record()));
  }
}

ReportSummary rebuild_reports_from_record(const std::string& results_dir) {
  const RunSource source(results_dir);
  if (!source.from_record())
    throw std::invalid_argument(results_dir +
                                " is a run directory: its reports are written from its trials");
  const RunDir run(source.run_dir()), results(results_dir);
  ReportSummary summary;
  try {
    summary = write_reports(run.path(), &source.origin());
  } catch (const nlohmann::json::exception& e) {  // a value of the wrong type in the record
    throw std::invalid_argument(results.record() + ": " + excerpt(e.what()));
  }
  for (const char* name :
       {RunDir::kResults, RunDir::kComparisons, RunDir::kSummaryTable, RunDir::kReportHtml})
    write_file_atomically(results.file(name), read_file(run.file(name)));
  if (fs::exists(run.claims()))
    write_file_atomically(results.claims(), read_file(run.claims()));
  else
    fs::remove(results.claims());
  // The images, their scripts and the data the scripts read (plots/data/): a script
  // beside data of an earlier report would redraw another picture.
  if (source.origin().draw_plots && fs::is_directory(run.plots()))
    for (const std::string sub : {"", "/data"}) {
      if (!fs::is_directory(run.plots() + sub)) continue;
      fs::create_directories(results.plots() + sub);
      for (const auto& f : fs::directory_iterator(run.plots() + sub))
        if (f.is_regular_file())
          write_file_atomically(results.plots() + sub + "/" + f.path().filename().string(),
                                read_file(f.path().string()));
    }
  return summary;
}

}  // namespace ablate::experiments
