// write_run_report_html (report_html.h): a run directory's report.html.
#include <toml++/toml.h>
#include <filesystem>

#include "experiments/analysis/adaptive_schedule.h"
#include "experiments/io/atomic_file.h"
#include "experiments/records/run_dir.h"
#include "experiments/reports/report.h"
#include "experiments/reports/report_figures.h"
#include "experiments/reports/report_html.h"

namespace ablate::experiments {

namespace fs = std::filesystem;

namespace {

std::string read_if_present(const std::string& path) {
  return fs::exists(path) ? read_file(path) : std::string();
}

// The experiment file's description, for the page's first line ("" when it has none).
std::string description_of(const RunDir& run) {
  if (!fs::exists(run.experiment())) return "";
  try {
    return toml::parse(read_file(run.experiment()), run.experiment())["description"].value_or(
        std::string());
  } catch (const toml::parse_error&) {
    return "";  // the description is a courtesy; the run's own reports say what it is
  }
}

}  // namespace

void write_run_report_html(const std::string& run_dir, const RunPoints& points,
                           const std::string& primary, const std::vector<std::string>& notes) {
  const RunDir run(run_dir);
  ReportPage page;
  page.title = points.name;
  page.description = description_of(run);
  page.notes = notes;
  page.comparisons_csv = read_if_present(run.comparisons());
  page.claims_csv = read_if_present(run.claims());
  page.results_csv = read_if_present(run.results());
  page.primary = primary;
  page.keys = points.keys;
  page.figures = report_figures(run_dir, points);
  page.provenance = provenance_groups(run_dir, points.name);
  // An adaptive run's rounds, replayed from its results as its summary.md's are.
  if (points.adaptive) page.design = design_verdicts(points, replay_schedule(points));
  page.claim_family = points.claims.size();
  write_file_atomically(run.report_html(), report_html(page));
}

}  // namespace ablate::experiments
