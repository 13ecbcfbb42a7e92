#include "experiments/reports/report.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "experiments/analysis/point_tuning.h"
#include "experiments/io/atomic_file.h"
#include "experiments/records/run_dir.h"
#include "experiments/reports/by_length_report.h"
#include "experiments/reports/forecast_baselines_report.h"
#include "experiments/reports/lm_samples_report.h"
#include "experiments/reports/plot_gnuplot.h"
#include "experiments/reports/plots.h"
#include "experiments/reports/report_html.h"
#include "experiments/reports/results_csv.h"
#include "experiments/reports/run_points.h"
#include "experiments/reports/run_record.h"
#include "experiments/reports/summary_table.h"
#include "experiments/reports/telemetry_report.h"

namespace ablate::experiments {

namespace fs = std::filesystem;

namespace {

std::string join_point(const std::vector<std::pair<std::string, std::string>>& values) {
  std::string out;
  for (const auto& [k, v] : values) out += (out.empty() ? "" : " ") + k + "=" + v;
  return out;
}

// claims.csv, and a line on stderr for each claim warning.
void write_claims(const std::string& run_dir, const ClaimsReport& claims) {
  // Without claims, none: a claims.csv of an earlier version of the file would
  // describe claims it no longer makes.
  if (!claims.csv.empty())
    write_file_atomically(RunDir(run_dir).claims(), claims.csv);
  else
    fs::remove(RunDir(run_dir).claims());
  for (const std::string& w : claims.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
}

// summary.md before its plots: the table, then the sections of the run's kind, then (in
// a run unpacked from a record) what of the original it cannot rebuild.
std::string summary_sections(const std::string& run_dir, const RunRows& run,
                             const RunPoints& points, const ComparisonReport& comparisons,
                             const RecordOrigin* origin) {
  std::ostringstream md;
  std::string table = summary_table(run, comparisons);
  if (origin && !origin->note.empty())  // after the title line
    table.insert(std::min(table.size(), table.find('\n') + 1), "\n" + origin->note + "\n");
  md << table << forecast_baselines_section(run_dir, points) << by_length_section(points)
     << lm_samples_section(run_dir, points) << init_grad_norms_section(run_dir, points)
     << norm_drift_section(run_dir, points);
  if (origin) md << origin->kept_sections;
  return md.str();
}

// Draws the plots and returns summary.md's part on them. The table matters more than
// the pictures: a plotting failure is reported in the summary (and rethrown after it is
// written, from `plot_error`), not allowed to lose it.
std::string plots_section(const std::string& run_dir, const RunRows& run, const RunPoints& points,
                          const ComparisonReport& comparisons, const RecordOrigin* origin,
                          std::string& plot_error) {
  std::ostringstream md;
  std::vector<std::string> plots;
  try {
    if (!origin || origin->draw_plots)
      plots = write_plots(run_dir, chosen_settings_only(run), points, comparisons);
  } catch (const GnuplotMissing&) {
    // Not a failure of the run: its results are all there. One warning, the same exit
    // status, and the data and scripts to draw the plots later.
    std::fprintf(stderr,
                 "warning: gnuplot is not installed (Debian: gnuplot-nox), so %s/plots/ has the "
                 "plots' data and scripts but no images; the results are complete\n",
                 run_dir.c_str());
    md << "\nPlots skipped: gnuplot is not installed. `plots/` holds their data and scripts "
          "(`cd plots && gnuplot <name>.gp` draws one).\n";
  } catch (const std::exception& e) {
    plot_error = e.what();
  }
  if (!plots.empty()) {
    md << "\n## Plots\n";
    for (const std::string& p : plots) md << "\n![" << p << "](" << p << ")\n";
  }
  if (!plot_error.empty()) md << "\nPlots could not be drawn: " << plot_error << "\n";
  return md.str();
}

// A note written for summary.md, as plain text for the page: without backticks.
std::string strip_markdown(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), '`'), s.end());
  return s;
}

}  // namespace

ReportSummary write_reports(const std::string& run_dir, const RecordOrigin* origin) {
  const RunRows run = read_run(run_dir);
  write_file_atomically(RunDir(run_dir).results(), results_csv(run));
  const RunPoints points = points_of(run, run_name(run_dir));
  const ComparisonReport comparisons = comparison_report(
      points, find_baselines(points.points, points.baseline), join_point(points.baseline));
  write_file_atomically(RunDir(run_dir).comparisons(), comparisons.csv);
  write_claims(run_dir, comparisons.claims);
  std::string plot_error;
  std::string md = summary_sections(run_dir, run, points, comparisons, origin);
  md += plots_section(run_dir, run, points, comparisons, origin, plot_error);
  write_file_atomically(RunDir(run_dir).summary_table(), md);
  std::vector<std::string> notes;
  if (origin && !origin->note.empty()) notes.push_back(strip_markdown(origin->note));
  write_run_report_html(run_dir, points, points.metric.empty() ? run.primary : points.metric,
                        notes);
  if (!origin) write_run_record(run_dir, chosen_settings_only(run));
  if (!plot_error.empty()) throw std::runtime_error(plot_error);
  return run.report;
}

}  // namespace ablate::experiments
