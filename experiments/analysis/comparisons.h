#pragma once
// The comparisons of a run (reports/comparison_tables.h writes them as comparisons.csv
// and summary.md's headline table): for every sweep point and test metric, the mean over seeds with
// its 95% interval (clipped to the metric's range), and against the point's baseline the difference
// with its interval — paired t when every seed of both points finished (seeds pair trials: the same
// batches and, where shapes allow, the same initial weights), Welch's t otherwise — the two-sided
// p-value, the permutation test's and a bootstrap interval beside it (stats/resampling.h), Cohen's
// d (d_z when paired), the difference the design could detect at 80% power, and the verdict those
// numbers give (stats/verdicts.h). These rows are exploratory: their p-values are not adjusted for
// the table's many comparisons — the confirmatory verdicts are the claims'
// (claim_judgement.h). Diverged trials have no test metrics: they are left out of the
// statistics and counted.
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "experiments/analysis/point_results.h"
#include "experiments/stats/comparison.h"

namespace ablate::experiments {

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

}  // namespace ablate::experiments
