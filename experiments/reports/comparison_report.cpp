// comparison_report.h: comparisons.csv, and summary.md's test table with the
// notes, claims, validation curves and tuning that follow it.
#include "experiments/reports/comparison_report.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "experiments/analysis/design_verdicts.h"
#include "experiments/config/report_spec.h"
#include "experiments/reports/adaptive_report.h"
#include "experiments/reports/claims_report.h"
#include "experiments/reports/comparison_tables.h"
#include "experiments/reports/design_verdicts_section.h"
#include "experiments/reports/run_rows.h"

namespace ablate::experiments {

namespace {

// The metrics compared: the test metrics with [report] metric first, then the curve
// metrics.
ComparisonSettings comparison_settings(const RunPoints& run) {
  ComparisonSettings settings;
  settings.metrics = run.test_metrics;
  if (!run.metric.empty()) {
    std::erase(settings.metrics, run.metric);
    settings.metrics.insert(settings.metrics.begin(), run.metric);
  }
  settings.equivalence_margin = run.equivalence_margin;
  settings.metrics.insert(settings.metrics.end(), run.curve_metrics.begin(),
                          run.curve_metrics.end());
  return settings;
}

// The heading of the test table and how to read it.
std::string test_table_intro(const RunPoints& run, const std::string& metric,
                             const std::string& baseline_text) {
  std::ostringstream md;
  md << "## Test " << metric << "\n\n";
  md << "Each trial's model is the one validation selected; its test set was evaluated once. Mean "
        "over seeds "
        "with its 95% t interval, clipped to the metric's range"
     << (higher_is_better(metric) ? " (higher is better)" : " (lower is better)") << ". ";
  if (!baseline_text.empty())
    md << "Each point is compared with its baseline — " << baseline_text
       << (run.baseline.size() < run.keys.size() ? ", the point's other swept values unchanged"
                                                 : "")
       << " — by a paired t-test over seeds when every seed of both finished, Welch's t-test "
          "otherwise, with the "
          "permutation test's p beside it (sign flips when paired); the effect size is Cohen's d "
          "(d_z when "
          "paired); the last numeric column is the difference this design detects with 80% power "
          "at α = 0.05 "
          "(a post-hoc estimate, from the observed spread). **These rows are exploratory**: their "
          "p-values are "
          "not adjusted for the table's many comparisons"
       << (run.claims.empty()
               ? "; an experiment file's [[report.claims]] are what get confirmatory verdicts. "
               : "; the confirmatory verdicts are the claims' (below). ");
  if (run.equivalence_margin)
    md << "Equivalence margin ±" << *run.equivalence_margin << " (two one-sided tests). ";
  md << "All metrics: comparisons.csv.\n\n";
  return md.str();
}

// How many comparisons of `metric` are between points tested on different data; "" for none.
std::string other_data_note(const std::vector<ComparisonRow>& rows, const std::string& metric) {
  std::size_t other_data = 0;
  for (const ComparisonRow& r : rows)
    other_data += r.metric == metric && r.comparison && !r.same_data;
  if (!other_data) return "";
  std::ostringstream md;
  md << "\n**" << other_data
     << " of these comparisons are between points evaluated on different data** (another "
        "task or data seed, so other test sets): their differences mix the variant with the "
        "data.\n";
  return md.str();
}

// The evaluation noise beside the seed spread: which of the two limits the design.
std::string evaluation_noise_note(const std::vector<ComparisonRow>& rows,
                                  const std::string& metric) {
  std::vector<double> noise, spread;
  for (const ComparisonRow& r : rows)
    if (r.metric == metric && r.summary.n >= 2 && std::isfinite(r.eval_se)) {
      noise.push_back(r.eval_se);
      spread.push_back(r.summary.sd);
    }
  if (noise.empty()) return "";
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  };
  std::ostringstream n;
  n << std::setprecision(2) << "\nEvaluation noise: a trial's test " << metric
    << " has a standard error of " << median(noise)
    << " over its test set; the standard deviation over seeds is " << median(spread)
    << " (medians over points).\n";
  return n.str();
}

// A table of one curve metric (analysis/curve_metrics.h), compared as the test metrics are.
std::string curve_section(const RunPoints& run, const std::vector<ComparisonRow>& rows,
                          const std::string& metric, const std::string& curve,
                          const AdaptiveSchedule* rounds) {
  const bool steps = curve.starts_with("steps_to_");
  std::ostringstream md;
  md << "\n### Validation curve: " << curve << "\n\n"
     << (steps ? "The first evaluation step at which the validation " + metric + " reached " +
                     summary_value_text(*run.threshold) +
                     " (a trial that never did counts as its training length)."
               : "The mean validation " + metric +
                     " over training (the area under its curve per step): "
                     "sample efficiency, beside the final quality above.")
     << " Compared as above.\n\n";
  md << comparisons_markdown(run.points, rows, run.keys, curve, rounds);
  if (steps) {
    int censored = 0, total = 0;
    for (const PointResults& p : run.points) {
      censored += p.not_reached.count(curve) ? p.not_reached.at(curve) : 0;
      for (const auto& [seed, m] : p.test) total += m.count(curve);
    }
    if (censored) md << "\n" << censored << " of " << total << " trials never reached it.\n";
  }
  return md.str();
}

// A row of the tuning table: the point's settings, the chosen one in bold; counts in
// `at_edge` a point whose one tuned key chose the grid's first or last value.
std::string tuning_row(const RunPoints& run, const PointResults& p, int& at_edge) {
  std::ostringstream md;
  md << "|";
  for (const std::string& k : run.keys)
    md << " " << (p.values.count(k) ? p.values.at(k) : "") << " |";
  std::string cells;
  for (const TuningSetting& t : p.settings) {
    std::ostringstream c;
    c << std::setprecision(4) << t.label << ": ";
    if (t.stopped_at > 0)  // never chosen; its loss is the rung's, not a finished trial's
      c << t.loss_at_stop << " at step " << t.stopped_at << ", stopped by halving";
    else
      c << t.validation_loss;
    cells +=
        (cells.empty() ? " " : "; ") + (t.label == p.setting ? "**" + c.str() + "**" : c.str());
  }
  if (p.chose_grid_edge()) {
    cells += " (at the edge of the grid: the best may lie beyond it)";
    ++at_edge;
  }
  md << cells << " |\n";
  return md.str();
}

// Each point's [tune] settings with the one chosen; "" without [tune].
std::string tuning_section(const RunPoints& run) {
  bool tuned = false;
  for (const PointResults& p : run.points) tuned |= !p.settings.empty();
  if (!tuned) return "";
  std::ostringstream md;
  std::string over = "over its seeds";
  std::string judged;
  if (!run.tune_seeds.empty()) {
    over = "over the tuning stage's seeds, tune.seeds =";
    for (std::size_t i = 0; i < run.tune_seeds.size(); ++i)
      over += (i ? ", " : " ") + std::to_string(run.tune_seeds[i]);
    judged =
        " The comparisons and claims use only the sweep's seeds, each point at its chosen "
        "setting: the trials that chose a setting do not judge it.";
  }
  md << "\n### Tuning\n\nEach point is reported at the [tune] setting with the lowest mean "
        "validation loss "
     << over << " (of the model each trial kept; diverged trials count as infinite)." << judged
     << " Mean validation loss per setting, the chosen one in bold:\n\n|";
  for (const std::string& k : run.keys) md << " " << k << " |";
  md << " settings |\n|";
  for (std::size_t i = 0; i <= run.keys.size(); ++i) md << "---|";
  md << "\n";
  int at_edge = 0, stopped = 0;
  for (const PointResults& p : run.points) {
    md << tuning_row(run, p, at_edge);
    for (const TuningSetting& t : p.settings) stopped += t.stopped_at > 0;
  }
  if (stopped)
    md << "\n"
       << stopped
       << " settings were stopped by successive halving ([tune.halving]): ranked at a rung by "
          "the mean best validation loss so far, they trained no further and are never chosen.\n";
  if (at_edge)
    md << "\n"
       << at_edge << " of " << run.points.size()
       << " points chose a setting at the edge of the grid; widen it to know whether a better one "
          "lies beyond.\n";
  return md.str();
}

}  // namespace

ComparisonReport comparison_report(const RunPoints& run,
                                   const std::vector<std::optional<std::size_t>>& baselines,
                                   const std::string& baseline_text) {
  const ComparisonSettings settings = comparison_settings(run);
  const std::string& metric = settings.metrics.front();
  const std::vector<ComparisonRow> rows = compare_points(run.points, baselines, settings);
  ComparisonReport out;
  out.metric = metric;
  out.rows = rows;
  // An adaptive design's rounds, replayed from the results: its verdicts are the run's.
  const std::optional<AdaptiveSchedule> schedule =
      run.adaptive ? std::optional(replay_schedule(run)) : std::nullopt;
  const AdaptiveSchedule* rounds = schedule ? &*schedule : nullptr;
  out.csv = comparisons_csv(run.points, rows, rounds);
  out.claims = claims_report(run, rows, rounds);
  // An adaptive run opens with its design's verdicts, before any table.
  std::string md = rounds ? design_verdicts_markdown(design_verdicts(run, *rounds)) + "\n" : "";
  md += test_table_intro(run, metric, baseline_text) +
        comparisons_markdown(run.points, rows, run.keys, metric, rounds) +
        other_data_note(rows, metric) + evaluation_noise_note(rows, metric);
  if (rounds) md += adaptive_section(run, *rounds);
  // The claims next: the verdicts a replication is read for, after the table they come from.
  md += out.claims.markdown;
  for (const std::string& curve : run.curve_metrics)
    md += curve_section(run, rows, metric, curve, rounds);
  out.markdown = md + tuning_section(run);
  return out;
}

}  // namespace ablate::experiments
