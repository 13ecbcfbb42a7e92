#pragma once
// report.html: one self-contained page per run (and per `ablate compare`) that opens
// from the file system with no network. The tables are written as HTML, so the page
// reads without JavaScript; the figures are Vega-Lite charts drawn by the libraries
// inlined in it (report_libraries.h) from the JSON the page carries. The tables are
// comparisons.csv and claims.csv themselves, cell for cell: the numbers a reader sees
// are the files' numbers, never recomputed. A Content-Security-Policy forbids every
// load from outside the page, so nothing it shows can come from elsewhere.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "experiments/analysis/design_verdicts.h"

namespace ablate::experiments {

struct ReportPage {
  std::string title;               // the run's name, or "Comparison of a, b"
  bool several_runs = false;       // `ablate compare`: the tables keep their "run" column
  std::string description;         // the experiment file's description ("" = none)
  std::vector<std::string> notes;  // paragraphs under the title (plain text)
  std::string comparisons_csv, claims_csv, results_csv;  // as written beside the page
  std::string primary;                                   // the metric the headline table is about
  std::vector<std::string> keys;                         // swept keys
  nlohmann::json figures;     // report_figures (several runs' concatenated)
  nlohmann::json provenance;  // provenance_groups
  // An adaptive run's design verdicts: the page opens with them, coloured, and the
  // tables' fixed-n verdicts are then a plain reference under a label saying so. None:
  // the tables' verdicts are the run's, coloured.
  std::optional<DesignVerdicts> design;
  std::size_t claim_family = 0;  // the file's claims: the level of claims.csv's intervals
};

std::string report_html(const ReportPage& page);

// The largest report.html of a committed results folder, stated in docs/reference/run-directory.md
// and checked by the browser test: the ~0.85 MB of libraries and the run's own data.
inline constexpr std::size_t kReportHtmlMaxBytes = 4 * 1024 * 1024;

}  // namespace ablate::experiments

namespace ablate::experiments {

struct RunPoints;

// Writes <run_dir>/report.html from what write_reports wrote beside it (comparisons.csv,
// claims.csv, results.csv) and the run's trials; `notes` are shown under the title.
void write_run_report_html(const std::string& run_dir, const RunPoints& points,
                           const std::string& primary, const std::vector<std::string>& notes);

}  // namespace ablate::experiments
