#include "experiments/reports/comparison_tables.h"

#include <algorithm>
#include <sstream>

#include "experiments/analysis/adaptive_schedule.h"
#include "experiments/analysis/design_verdicts.h"
#include "experiments/analysis/report_text.h"
#include "experiments/config/report_spec.h"
#include "experiments/reports/adaptive_report.h"

namespace ablate::experiments {

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
