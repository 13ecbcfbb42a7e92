#include "experiments/reports/compare_runs.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "experiments/config/report_reader.h"
#include "experiments/config/report_spec.h"
#include "experiments/io/atomic_file.h"
#include "experiments/records/run_dir.h"
#include "experiments/reports/comparison_report.h"
#include "experiments/reports/provenance_note.h"
#include "experiments/reports/report_figures.h"
#include "experiments/reports/report_html.h"
#include "experiments/reports/run_points.h"
#include "experiments/reports/run_record.h"

namespace ablate::experiments {

namespace {

// Adds `p` to `merged`, or merges its seeds into the point with the same id.
void merge_point(std::vector<PointResults>& merged, const PointResults& p) {
  auto same = std::find_if(merged.begin(), merged.end(), [&](const PointResults& q) {
    return !p.point_id.empty() && q.point_id == p.point_id;
  });
  if (same == merged.end()) {
    merged.push_back(p);
    return;
  }
  // The same config and seed is the same trial: its results are the same in either run.
  for (const auto& [seed, metrics] : p.test) same->test.emplace(seed, metrics);
  for (const auto& [seed, errors] : p.test_se) same->test_se.emplace(seed, errors);
  same->trials = std::max(same->trials, p.trials);
  same->diverged = std::max(same->diverged, p.diverged);
  same->failed = std::max(same->failed, p.failed);
  same->missing = std::min(same->missing, p.missing);
}

std::size_t find_baseline(const std::vector<PointResults>& points, const RunPoints& first,
                          const std::string& wanted) {
  if (!wanted.empty()) {
    std::vector<std::size_t> matches;
    for (std::size_t i = 0; i < points.size(); ++i)
      if (points[i].point_id.rfind(wanted, 0) == 0) matches.push_back(i);
    if (matches.size() == 1) return matches[0];
    std::string ids;
    for (const PointResults& p : points) ids += "\n  " + p.point_id + "  " + p.run + ": " + p.label;
    throw std::invalid_argument("--baseline " + wanted +
                                (matches.empty() ? " names no point" : " is ambiguous") +
                                "; the points (point_id, run, values):" + ids);
  }
  // The first run's baseline: its first point with the [report] baseline's values.
  if (first.points.empty()) throw std::invalid_argument(first.name + ": the run has no trials");
  std::map<std::string, std::string> values = first.points.front().values;
  for (const auto& [k, v] : first.baseline) values[k] = v;
  for (std::size_t i = 0; i < points.size(); ++i)
    if (points[i].run == first.name && points[i].values == values) return i;
  return 0;
}

// The last `n` components of `dir` (absolute), "/"-joined: "b/quick" for n = 2.
std::string path_suffix(const std::vector<std::string>& components, std::size_t n) {
  std::string out;
  for (std::size_t i = components.size() - std::min(n, components.size()); i < components.size();
       ++i)
    out += (out.empty() ? "" : "/") + components[i];
  return out;
}

// What names each run in the tables and the page: its directory's name, as always — or,
// when another run has the same name (runs/a/quick and runs/b/quick), the shortest
// suffix of its path that no other such run shares ("a/quick"), so that their rows and
// `run` column tell them apart. The same directory given twice keeps its name.
std::vector<std::string> run_labels(const std::vector<std::string>& dirs) {
  std::vector<std::string> names;
  std::vector<std::vector<std::string>> paths;
  for (const std::string& dir : dirs) {
    names.push_back(run_name(dir));
    paths.emplace_back();
    for (const auto& c : std::filesystem::absolute(dir).lexically_normal())
      if (!c.empty() && c != "/") paths.back().push_back(c.string());
  }
  std::vector<std::string> labels = names;
  for (std::size_t i = 0; i < dirs.size(); ++i) {
    std::vector<std::size_t> namesakes;
    for (std::size_t j = 0; j < dirs.size(); ++j)
      if (j != i && names[j] == names[i] && paths[j] != paths[i]) namesakes.push_back(j);
    if (namesakes.empty()) continue;
    for (std::size_t n = 2; n <= paths[i].size(); ++n) {
      const std::string mine = path_suffix(paths[i], n);
      if (std::none_of(namesakes.begin(), namesakes.end(),
                       [&](std::size_t j) { return path_suffix(paths[j], n) == mine; })) {
        labels[i] = mine;
        break;
      }
    }
  }
  return labels;
}

// comparisons.md's section on the runs' provenance: "" when no fact differs.
std::string provenance_section(const std::vector<std::string>& differences) {
  if (differences.empty()) return "";
  std::string md =
      "\n## Provenance\n\nThe runs' trials were not all made by the same code, build or machine "
      "(summary.json's `provenance`; a run recorded before ablate kept it is \"not "
      "recorded\"):\n\n";
  for (const std::string& line : differences) md += "- " + line + "\n";
  return md;
}

// <out_dir>/report.html: the comparison's tables and every run's figures, the runs made
// by different code named under its title.
void write_comparison_page(const std::string& out_dir, const std::string& title,
                           const Comparison& comparison, const ComparisonReport& report,
                           const RunPoints& merged, nlohmann::json figures,
                           nlohmann::json provenance) {
  ReportPage page;
  page.title = title;
  page.several_runs = true;
  for (const std::string& d : comparison.provenance_differences)
    page.notes.push_back("Made by different code or builds: " + d);
  page.comparisons_csv = report.csv;
  page.claims_csv = report.claims.csv;
  page.primary = merged.metric;
  page.keys = merged.keys;
  page.figures = std::move(figures);
  page.provenance = std::move(provenance);
  write_file_atomically(out_dir + "/" + RunDir::kReportHtml, report_html(page));
}

}  // namespace

Comparison compare_runs(const CompareOptions& o) {
  if (o.run_dirs.empty()) throw std::invalid_argument("name at least one run directory");
  std::vector<RunPoints> runs;
  // report.html's figures and provenance, read while each run's files are at hand (a
  // results folder is unpacked into a scratch folder only for the loop's iteration).
  nlohmann::json figures = nlohmann::json::array(), provenance = nlohmann::json::array();
  std::vector<std::pair<std::string, ProvenanceCounts>> made_by;
  const std::vector<std::string> labels = run_labels(o.run_dirs);
  for (std::size_t i = 0; i < o.run_dirs.size(); ++i) {
    const std::string& dir = o.run_dirs[i];
    if (!std::filesystem::is_regular_file(RunDir(dir).trial_index()) &&
        !std::filesystem::is_regular_file(RunDir(dir).record()))
      throw std::invalid_argument(
          dir + ": neither a run directory (no trials.json) nor a results folder (no " +
          RunDir::kRecord + ")");
    const RunSource source(dir);
    runs.push_back(read_run_points(source.run_dir()));
    runs.back().name = labels[i];
    for (PointResults& p : runs.back().points) p.run = labels[i];
    for (nlohmann::json& f : report_figures(source.run_dir(), runs.back()))
      figures.push_back(std::move(f));
    for (nlohmann::json& g : provenance_groups(source.run_dir(), runs.back().name))
      provenance.push_back(std::move(g));
    made_by.emplace_back(dir, provenance_counts(read_run(source.run_dir())));
    if (runs.back().forecast != runs.front().forecast)
      throw std::invalid_argument(dir + ": a " +
                                  (runs.back().forecast ? "forecasting" : "sequence") +
                                  " run cannot be compared with " + o.run_dirs.front() + ", a " +
                                  (runs.front().forecast ? "forecasting" : "sequence") + " run");
  }
  RunPoints merged;
  merged.name = "comparison";
  merged.forecast = runs.front().forecast;
  merged.task = runs.front().task;
  merged.test_metrics = runs.front().test_metrics;
  for (const RunPoints& r : runs)
    for (const std::string& m : r.test_metrics)
      if (std::find(merged.test_metrics.begin(), merged.test_metrics.end(), m) ==
          merged.test_metrics.end())
        merged.test_metrics.push_back(m);
  merged.metric = o.metric.empty() ? runs.front().metric : o.metric;
  merged.equivalence_margin =
      o.equivalence_margin ? o.equivalence_margin : runs.front().equivalence_margin;
  // The curve metrics each run computed follow its primary metric: kept unless --metric changes it.
  if (merged.metric == runs.front().metric) {
    merged.curve_metrics = runs.front().curve_metrics;
    merged.threshold = runs.front().threshold;
  }
  ReportSpec check;
  check.metric = merged.metric;
  if (std::string err = check_report_metric(check, merged.task); !err.empty())
    throw std::invalid_argument("--metric " + err);
  for (const RunPoints& r : runs) {
    for (const std::string& k : r.keys)
      if (std::find(merged.keys.begin(), merged.keys.end(), k) == merged.keys.end())
        merged.keys.push_back(k);
    for (const PointResults& p : r.points) merge_point(merged.points, p);
  }
  const std::size_t baseline = find_baseline(merged.points, runs.front(), o.baseline);
  std::vector<std::optional<std::size_t>> baselines(merged.points.size());
  for (std::size_t i = 0; i < merged.points.size(); ++i)
    if (i != baseline) baselines[i] = baseline;
  const PointResults& b = merged.points[baseline];
  merged.baseline.assign(b.values.begin(), b.values.end());
  const ComparisonReport report = comparison_report(
      merged, baselines, b.run + ": " + (b.label.empty() ? "its only point" : b.label));
  std::string runs_list;
  for (const RunPoints& r : runs) runs_list += (runs_list.empty() ? "" : ", ") + r.name;
  Comparison comparison;
  comparison.provenance_differences = provenance_differences(made_by);
  comparison.markdown = "# Comparison of " + runs_list + "\n\n" + report.markdown +
                        provenance_section(comparison.provenance_differences);
  std::filesystem::create_directories(o.out_dir);
  write_file_atomically(o.out_dir + "/comparisons.csv", report.csv);
  write_file_atomically(o.out_dir + "/comparisons.md", comparison.markdown);
  write_comparison_page(o.out_dir, "Comparison of " + runs_list, comparison, report, merged,
                        std::move(figures), std::move(provenance));
  return comparison;
}

}  // namespace ablate::experiments
