#include "experiments/analysis/comparisons.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "experiments/config/report_spec.h"
#include "experiments/stats/resampling.h"
#include "experiments/stats/verdicts.h"

namespace ablate::experiments {

namespace {

std::vector<double> values_of(const std::map<std::uint64_t, std::map<std::string, double>>& by_seed,
                              const std::string& metric, const std::vector<std::uint64_t>& seeds) {
  std::vector<double> out;
  for (std::uint64_t s : seeds)
    if (auto it = by_seed.find(s); it != by_seed.end())
      if (auto m = it->second.find(metric); m != it->second.end()) out.push_back(m->second);
  return out;
}

// Intervals of a bounded metric stay in its range: a mean in [low, high], a difference
// of two in [low - high, high - low].
void clip_to_range(stats::MeanSummary& s, const MetricRange& range) {
  s.ci_low = std::clamp(s.ci_low, range.low, range.high);
  s.ci_high = std::clamp(s.ci_high, range.low, range.high);
}

void clip_to_range(stats::Comparison& c, const MetricRange& range) {
  const double width = range.high - range.low;
  c.diff_ci_low = std::clamp(c.diff_ci_low, -width, width);
  c.diff_ci_high = std::clamp(c.diff_ci_high, -width, width);
}

std::vector<std::uint64_t> seeds_with(const PointResults& p, const std::string& metric) {
  std::vector<std::uint64_t> seeds;
  for (const auto& [seed, metrics] : p.test)
    if (metrics.count(metric)) seeds.push_back(seed);
  return seeds;
}

}  // namespace

std::vector<std::optional<std::size_t>> find_baselines(
    const std::vector<PointResults>& points,
    const std::vector<std::pair<std::string, std::string>>& baseline) {
  std::vector<std::optional<std::size_t>> out(points.size());
  if (baseline.empty()) return out;
  for (std::size_t i = 0; i < points.size(); ++i) {
    std::map<std::string, std::string> wanted = points[i].values;
    for (const auto& [k, v] : baseline) wanted[k] = v;
    if (wanted == points[i].values) continue;  // the point is a baseline
    for (std::size_t j = 0; j < points.size(); ++j)
      if (points[j].run == points[i].run && points[j].values == wanted) out[i] = j;
  }
  return out;
}

std::vector<ComparisonRow> compare_points(const std::vector<PointResults>& points,
                                          const std::vector<std::optional<std::size_t>>& baselines,
                                          const ComparisonSettings& settings) {
  std::vector<ComparisonRow> rows;
  const std::set<std::size_t> baseline_points = [&] {
    std::set<std::size_t> s;
    for (const auto& b : baselines)
      if (b) s.insert(*b);
    return s;
  }();
  for (std::size_t i = 0; i < points.size(); ++i) {
    const PointResults& p = points[i];
    for (std::size_t m = 0; m < settings.metrics.size(); ++m) {
      const std::string& metric = settings.metrics[m];
      ComparisonRow row;
      row.point = i;
      row.baseline = baselines[i];
      row.metric = metric;
      row.split = metric_split(metric);
      const std::vector<std::uint64_t> seeds = seeds_with(p, metric);
      const std::vector<double> x = values_of(p.test, metric, seeds);
      row.summary = stats::summarize(x);
      clip_to_range(row.summary, metric_range(metric));
      const std::vector<double> se = values_of(p.test_se, metric, seeds);
      for (double v : se) row.eval_se += v / double(se.size());
      if (se.size() < x.size())
        row.eval_se = NAN;  // not every trial's is known (a record from results.csv)
      if (!row.baseline) {
        row.verdict = baseline_points.count(i) ? "baseline" : "";
        rows.push_back(row);
        continue;
      }
      const PointResults& b = points[*row.baseline];
      row.same_data = p.data_id.empty() || b.data_id.empty() || p.data_id == b.data_id;
      const std::vector<std::uint64_t> b_seeds = seeds_with(b, metric);
      // Paired only when nothing is left out on either side: a paired test on the
      // seeds both happen to have would hide a point's diverged or missing trials.
      const bool complete =
          p.diverged + p.failed + p.missing == 0 && b.diverged + b.failed + b.missing == 0;
      const std::vector<double> y = values_of(b.test, metric, b_seeds);
      if (complete && seeds == b_seeds && seeds.size() >= 2)
        row.comparison = stats::paired_t(x, y);
      else if (x.size() >= 2 && y.size() >= 2)
        row.comparison = stats::welch_t(x, y);
      else
        row.verdict = "too few seeds to compare";
      if (row.comparison) {
        stats::Comparison& c = *row.comparison;
        if (!row.same_data)
          stats::withhold_test(
              c,
              "tested on other data than its baseline, so the difference mixes the variant "
              "with the data");
        clip_to_range(c, metric_range(metric));
        row.p_permutation = stats::permutation_p_two_sided(c);
        row.bootstrap = stats::bootstrap_interval(c, 0.025);
        const bool primary = metric == settings.metrics.front();
        row.verdict = stats::exploratory_verdict(
            c, higher_is_better(metric), primary ? settings.equivalence_margin : std::nullopt,
            stats::kAlpha, row.p_permutation);
      }
      rows.push_back(row);
    }
  }
  return rows;
}

}  // namespace ablate::experiments
