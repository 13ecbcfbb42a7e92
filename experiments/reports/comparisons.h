#pragma once
// The comparison table of a report (comparisons.csv, and the headline table of
// summary.md): for every sweep point and test metric, the mean over seeds with its
// 95% interval (clipped to the metric's range), and against the point's baseline the
// difference with its interval — paired t when every seed of both points finished
// (seeds pair trials: the same batches and, where shapes allow, the same initial
// weights), Welch's t otherwise — the two-sided p-value, the permutation test's and a
// bootstrap interval beside it (stats/resampling.h), Cohen's d (d_z when paired), the
// difference the design could detect at 80% power, and the verdict those numbers give
// (stats/verdicts.h). These rows are exploratory: their p-values are not adjusted for
// the table's many comparisons — the confirmatory verdicts are the claims'
// (claims_report.h). Diverged trials have no test metrics: they are left out of the
// statistics and counted.
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "experiments/stats/comparison.h"

namespace ablate::experiments {

// A [tune] setting of a sweep point: its mean validation loss over the seeds that
// finished (diverged: infinite), which chooses the point's setting.
struct TuningSetting {
  std::string label;  // "train.lr=0.001"
  double validation_loss = 0;
  int trials = 0;
  // [tune.halving]: the rung step the setting was stopped at (0: it trained to the end),
  // and its mean best validation loss there, which ranked it.
  std::int64_t stopped_at = 0;
  double loss_at_stop = 0;
};

// One sweep point's trials, as the report read them (with [tune]: those of its chosen
// setting).
struct PointResults {
  std::string run;       // the run directory's name (several in `ablate compare`)
  std::string point_id;  // Trial::point_id
  std::string data_id;   // Trial::data_id: points with another one were tested on other data
  std::string label;     // "model.attention.qk=shared ..." ("" for an unswept run)
  std::map<std::string, std::string> values;  // swept key → value
  // Seed → metric → value, for every finished trial: the test metrics and the curve
  // metrics of validation (curve_metrics.h); and seed → that trial's standard error
  // of each test metric over the test set (its evaluation noise).
  std::map<std::uint64_t, std::map<std::string, double>> test, test_se;
  int trials = 0, diverged = 0, failed = 0, missing = 0;
  // The seeds whose trial has its result (ok or diverged: it will not run again).
  std::set<std::uint64_t> finished_seeds;
  std::string setting;  // the [tune] setting chosen ("" without [tune])
  // Per curve metric, how many trials never reached the threshold (censored).
  std::map<std::string, int> not_reached;
  std::vector<TuningSetting> settings;  // every setting searched (empty without [tune])

  // One tuned key whose chosen value is its grid's first or last: the best may lie
  // beyond the grid (the reports flag it).
  bool chose_grid_edge() const {
    return !setting.empty() && std::count(setting.begin(), setting.end(), '=') == 1 &&
           settings.size() >= 2 &&
           (setting == settings.front().label || setting == settings.back().label);
  }
};

struct ComparisonRow {
  std::size_t point = 0;                // index into the points compared
  std::optional<std::size_t> baseline;  // its baseline's index (none for a baseline itself)
  std::string metric, split = "test";
  stats::MeanSummary summary;  // over seeds
  double eval_se = 0;          // mean over seeds of the trials' test-set standard error
  // With ≥ 2 seeds on each side (without a test when they do not vary, or the point
  // was tested on other data than its baseline: Comparison::no_test says which).
  std::optional<stats::Comparison> comparison;
  double p_permutation = 1;   // two-sided, when the comparison has a test
  stats::Interval bootstrap;  // 95% percentile interval of the difference
  std::string verdict;        // "baseline", stats::exploratory_verdict, or why there is none
  // False when the point and its baseline were evaluated on different data (another
  // task or data seed): their difference then mixes the variant with the data, and the
  // verdict says so.
  bool same_data = true;
};

struct ComparisonSettings {
  std::vector<std::string> metrics;  // primary first
  std::optional<double>
      equivalence_margin;  // in the primary metric's units; other metrics get none
};

// The baseline of each point: the point with the values `baseline` names and the
// point's own values for every other key, in the same run; none when the sweep has no
// such point (or the point is its own baseline).
std::vector<std::optional<std::size_t>> find_baselines(
    const std::vector<PointResults>& points,
    const std::vector<std::pair<std::string, std::string>>& baseline);

// Rows in point order, metrics innermost.
std::vector<ComparisonRow> compare_points(const std::vector<PointResults>& points,
                                          const std::vector<std::optional<std::size_t>>& baselines,
                                          const ComparisonSettings& settings);

struct AdaptiveSchedule;

// comparisons.csv: a header and one line per row (columns in docs/reference/statistics.md);
// with an adaptive design's `schedule`, its sequential columns after them.
std::string comparisons_csv(const std::vector<PointResults>& points,
                            const std::vector<ComparisonRow>& rows,
                            const AdaptiveSchedule* schedule = nullptr);

// A table's "seeds" cell: the seeds counted, then how many of the point's trials
// diverged ("8 (2 of 10 diverged)"), failed or are missing.
std::string seeds_cell(int counted, int trials, int diverged, int failed, int missing);

// The headline table of summary.md: one line per point for `metric`, sorted best first.
// With an adaptive schedule the fixed-n verdict's column is labelled as a reference
// (kFixedNReference, design_verdicts.h), and when the schedule's questions are these
// comparisons (a run without claims) a "design verdict" column before it gives each
// point's sequential verdict, the run's.
std::string comparisons_markdown(const std::vector<PointResults>& points,
                                 const std::vector<ComparisonRow>& rows,
                                 const std::vector<std::string>& keys, const std::string& metric,
                                 const AdaptiveSchedule* schedule = nullptr);

}  // namespace ablate::experiments
