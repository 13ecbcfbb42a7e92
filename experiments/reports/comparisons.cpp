#include "experiments/reports/comparisons.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>

#include "experiments/config/report_spec.h"
#include "experiments/reports/adaptive_report.h"
#include "experiments/reports/design_verdicts.h"
#include "experiments/reports/report_text.h"
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

namespace {

// The question of a point's comparison at `metric` in a run without claims, if any.
const ScheduledQuestion* comparison_question(const AdaptiveSchedule& s, std::size_t point,
                                             const std::string& metric) {
  for (const ScheduledQuestion& q : s.questions)
    if (!q.claim && q.metric == metric && part_at(q, point)) return &q;
  return nullptr;
}

}  // namespace

// The sequential columns of a row: those of the comparison question asked of its point
// on its metric (a run without claims), else blank.
std::string sequential_fields(const AdaptiveSchedule& s, const ComparisonRow& r) {
  if (const ScheduledQuestion* q = comparison_question(s, r.point, r.metric))
    return sequential_csv_fields(s, *q, part_at(*q, r.point));
  static const ScheduledQuestion none;
  return sequential_csv_fields(s, none, nullptr);  // blank columns
}

std::string comparisons_csv(const std::vector<PointResults>& points,
                            const std::vector<ComparisonRow>& rows,
                            const AdaptiveSchedule* schedule) {
  std::ostringstream csv;
  csv << "run,point_id,point,baseline_point_id,baseline_point,metric,split,n,mean,sd,ci_low,ci_"
         "high,eval_se,"
         "diff,diff_ci_low,diff_ci_high,p_value,p_permutation,bootstrap_ci_low,bootstrap_ci_high,"
         "effect_size,mde,method,"
         "verdict,trials,diverged,failed,"
         "missing,tuned,same_test_data"
      << (schedule ? kSequentialCsvColumns : "") << "\n";
  for (const ComparisonRow& r : rows) {
    const PointResults& p = points[r.point];
    csv << csv_field(p.run) << "," << p.point_id << "," << csv_field(p.label) << ",";
    if (r.baseline)
      csv << points[*r.baseline].point_id << "," << csv_field(points[*r.baseline].label);
    else
      csv << ",";
    csv << "," << r.metric << "," << r.split << "," << r.summary.n << ","
        << exact_number(r.summary.mean) << "," << exact_number(r.summary.sd) << ","
        << exact_number(r.summary.ci_low) << "," << exact_number(r.summary.ci_high) << ","
        << exact_number(r.eval_se) << ",";
    if (const auto& c = r.comparison; c && c->tested())
      csv << exact_number(c->diff) << "," << exact_number(c->diff_ci_low) << ","
          << exact_number(c->diff_ci_high) << "," << exact_number(c->p_value) << ","
          << exact_number(r.p_permutation) << "," << exact_number(r.bootstrap.low) << ","
          << exact_number(r.bootstrap.high) << "," << exact_number(c->effect_size) << ","
          << exact_number(c->mde) << "," << c->method;
    else if (c)  // no test: the difference alone
      csv << exact_number(c->diff) << ",,,,,,,,," << c->method;
    else
      csv << ",,,,,,,,,";
    csv << "," << csv_field(r.verdict) << "," << p.trials << "," << p.diverged << "," << p.failed
        << "," << p.missing << "," << csv_field(p.setting) << ","
        << (r.baseline ? (r.same_data ? "yes" : "no") : "")
        << (schedule ? sequential_fields(*schedule, r) : "") << "\n";
  }
  return csv.str();
}

std::string seeds_cell(int counted, int trials, int diverged, int failed, int missing) {
  std::string out = std::to_string(counted);
  if (diverged)
    out += " (" + std::to_string(diverged) + " of " + std::to_string(trials) + " diverged)";
  if (failed) out += " (+" + std::to_string(failed) + " failed)";
  if (missing) out += " (+" + std::to_string(missing) + " missing)";
  return out;
}

namespace {

// The adaptive verdict cell of a headline row: the baseline says so; a point no
// question asks about (another metric) has none.
std::string adaptive_cell(const AdaptiveSchedule& s, const ComparisonRow& r) {
  if (!r.baseline) return "baseline";
  const ScheduledQuestion* q = comparison_question(s, r.point, r.metric);
  if (!q) return "—";
  const std::string verdict = question_verdict(s, *q);
  return q->decided_round >= 0 ? verdict + " (round " + std::to_string(q->decided_round) + ")"
                               : verdict;
}

}  // namespace

std::string comparisons_markdown(const std::vector<PointResults>& points,
                                 const std::vector<ComparisonRow>& rows,
                                 const std::vector<std::string>& keys, const std::string& metric,
                                 const AdaptiveSchedule* schedule) {
  bool adaptive_column = false;
  if (schedule)
    for (const ComparisonRow& r : rows)
      adaptive_column |= r.metric == metric && comparison_question(*schedule, r.point, metric);
  std::vector<const ComparisonRow*> table;
  for (const ComparisonRow& r : rows)
    if (r.metric == metric) table.push_back(&r);
  const bool higher = higher_is_better(metric);
  std::stable_sort(table.begin(), table.end(), [&](const ComparisonRow* a, const ComparisonRow* b) {
    if (a->summary.n == 0 || b->summary.n == 0) return a->summary.n > b->summary.n;
    return higher ? a->summary.mean > b->summary.mean : a->summary.mean < b->summary.mean;
  });
  bool several_runs = false, tuned = false;
  for (const PointResults& p : points) {
    several_runs |= p.run != points.front().run;
    tuned |= !p.setting.empty();
  }
  std::ostringstream md;
  md << "|";
  if (several_runs) md << " run |";
  for (const std::string& k : keys) md << " " << k << " |";
  if (tuned) md << " tuned |";
  md << " seeds | " << metric_split(metric) << " " << metric
     << " [95% CI] | difference vs baseline [95% CI] | p | p (permutation) | effect size | "
        "detectable at 80% power |"
     << (adaptive_column ? " design verdict |" : "") << " "
     << (schedule ? kFixedNReference : "verdict (exploratory)") << " |\n|";
  for (std::size_t i = 0;
       i < keys.size() + 8 + (several_runs ? 1 : 0) + (tuned ? 1 : 0) + (adaptive_column ? 1 : 0);
       ++i)
    md << "---|";
  md << "\n";
  for (const ComparisonRow* r : table) {
    const PointResults& p = points[r->point];
    md << "|";
    if (several_runs) md << " " << p.run << " |";
    for (const std::string& k : keys)
      md << " " << (p.values.count(k) ? p.values.at(k) : "") << " |";
    if (tuned) md << " " << p.setting << " |";
    md << " " << seeds_cell(r->summary.n, p.trials, p.diverged, p.failed, p.missing) << " | ";
    if (r->summary.n == 0)
      md << "—";
    else if (r->summary.n == 1)
      md << short_number(r->summary.mean);
    else
      md << short_number(r->summary.mean) << " [" << short_number(r->summary.ci_low) << ", "
         << short_number(r->summary.ci_high) << "]";
    md << " | ";
    if (const auto& c = r->comparison; c && c->tested())
      md << difference_text(*c) << " | " << p_text(c->p_value) << " | " << p_text(r->p_permutation)
         << " | " << short_number(c->effect_size) << " | ±" << short_number(c->mde) << " | ";
    else if (c)
      md << (c->diff > 0 ? "+" : "") << short_number(c->diff) << " | — | — | — | — | ";
    else
      md << "| | | | | ";
    if (adaptive_column) md << adaptive_cell(*schedule, *r) << " | ";
    md << (r->verdict.empty() ? "—" : r->verdict) << " |\n";
  }
  return md.str();
}

}  // namespace ablate::experiments
