#include "experiments/reports/adaptive_report.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "experiments/analysis/design_verdicts.h"
#include "experiments/analysis/report_text.h"

namespace ablate::experiments {

const char* const kSequentialCsvColumns =
    ",sequential_method,sequential_level,seeds,sequential_pairs,sequential_mean,sequential_low,"
    "sequential_high,sequential_verdict,decided_round";

namespace {

// The sequential_method column.
std::string method_of(const AdaptiveSchedule& s) {
  if (s.sequential.method == stats::SequentialMethod::confidence_sequence)
    return "t confidence sequence (g = 4)";
  return std::string("group-sequential t (") + stats::spending_key(s.sequential.plan.spending) +
         " spending" + (s.sequential.plan.futility ? ", futility)" : ")");
}

std::string bound_text(double v) {
  return std::isinf(v) ? (v > 0 ? "+inf" : "-inf") : exact_number(v);
}

// "inconclusive at the budget (n = 40)" for a part still open when the design ended;
// a decided part in the fixed design's words ("worse", "not worse by 0.03"), or a
// claim's ("agrees", "disagrees") when `claim_words`.
std::string part_words(const AdaptiveSchedule& s, const ScheduledQuestion& q,
                       const ScheduledPart& part, bool claim_words = false) {
  if (part.state.status != stats::PartStatus::open)
    return !claim_words ? stats::part_verdict(part.state, q.question)
           : part.state.status == stats::PartStatus::agrees ? "agrees"
                                                            : "disagrees";
  if (q.futile) return futility_words(q, s.seeds[part.point]);
  if (!s.complete) return "open (round " + std::to_string(s.round) + ")";
  return "inconclusive at the budget (n = " + std::to_string(s.seeds[part.point]) + ")";
}

// The gain's sequence, "[low, high]" with the metric's sign: the difference point −
// baseline, as the fixed design's columns show it.
std::pair<double, double> difference_interval(const ScheduledQuestion& q, const ScheduledPart& p) {
  return q.higher_is_better ? std::pair(p.state.low, p.state.high)
                            : std::pair(-p.state.high, -p.state.low);
}

}  // namespace

std::string sequential_csv_fields(const AdaptiveSchedule& s, const ScheduledQuestion& q,
                                  const ScheduledPart* part, bool claim_words) {
  if (!part) return ",,,,,,,,,";
  const auto [low, high] = difference_interval(q, *part);
  const double mean = q.higher_is_better ? part->state.mean : -part->state.mean;
  std::ostringstream csv;
  csv << "," << csv_field(method_of(s)) << "," << exact_number(q.alpha) << ","
      << s.seeds[part->point] << "," << part->state.n << "," << exact_number(mean) << ","
      << bound_text(low) << "," << bound_text(high) << ","
      << csv_field(part_words(s, q, *part, claim_words)) << ","
      << (part->state.decided_round >= 0 ? std::to_string(part->state.decided_round) : "");
  return csv.str();
}

std::string sequential_question_csv_fields(const AdaptiveSchedule& s, const ScheduledQuestion& q) {
  return "," + csv_field(method_of(s)) + "," + exact_number(q.alpha) + ",,,,,," +
         csv_field(question_verdict(s, q)) + "," +
         (q.decided_round >= 0 ? std::to_string(q.decided_round) : "");
}

}  // namespace ablate::experiments

namespace ablate::experiments {

namespace {

std::string interval_text(std::pair<double, double> i) {
  auto one = [](double v) {
    return std::isinf(v) ? std::string(v > 0 ? "+∞" : "−∞") : short_number(v);
  };
  return "[" + one(i.first) + ", " + one(i.second) + "]";
}

// The seeds a fixed design needs per point: for a decided part, what gives a two-sided
// t-test at the part's level 80 % power to exclude what its decision excluded (0, or a
// margin's side) when the truth is the observed mean gain; the budget for a part
// still open; the first block for a point no question asks about; a baseline as many
// as its points.
std::vector<int> fixed_design_of_equal_power(const AdaptiveSchedule& s) {
  std::vector<int> need(s.seeds.size(), 0);
  std::vector<bool> asked(s.seeds.size(), false);
  for (const ScheduledQuestion& q : s.questions)
    for (const ScheduledPart& p : q.parts) {
      asked[p.point] = true;
      int n = int(s.design.max_seeds);
      if (p.state.status != stats::PartStatus::open && p.state.sd > 0)
        if (int fixed = stats::fixed_design_seeds(
                stats::decided_distance(p.state, q.question) / p.state.sd, q.alpha);
            fixed > 0)
          n = fixed;
      need[p.point] = std::max(need[p.point], n);
    }
  for (std::size_t p = 0; p < need.size(); ++p)
    if (!asked[p]) need[p] = s.first_block;
  for (const ScheduledQuestion& q : s.questions)
    for (const ScheduledPart& p : q.parts)
      need[p.baseline] = std::max(need[p.baseline], need[p.point]);
  return need;
}

// The |gain| the part's last look would have detected with 80 % power: its boundary
// (the confidence sequence's radius, or the group-sequential interval's half-width at the
// last look) plus 0.84 sd/√n.
double detectable_at_end(const AdaptiveSchedule& s, const ScheduledQuestion& q,
                         const stats::PartState& p) {
  if (s.sequential.method == stats::SequentialMethod::confidence_sequence)
    return stats::sequential_detectable(p.n, p.sd, q.alpha);
  return (p.high - p.low) / 2 + 0.8416212335729143 * p.sd / std::sqrt(p.n);
}

std::string questions_table(const RunPoints& run, const AdaptiveSchedule& s) {
  std::ostringstream md;
  md << "| question | point vs baseline | metric | verdict | decided in round | seeds (pairs) | "
        "sequence of the difference | detectable at the budget |\n"
        "|---|---|---|---|---|---|---|---|\n";
  for (const ScheduledQuestion& q : s.questions) {
    const std::string asked = q.claim ? q.claim->claim : "differs from its baseline";
    for (const ScheduledPart& p : q.parts) {
      const bool open_at_end = s.complete && p.state.status == stats::PartStatus::open &&
                               !q.futile && p.state.no_sequence.empty();
      const double detectable = open_at_end ? detectable_at_end(s, q, p.state) : 0;
      md << "| " << asked << " | " << run.points[p.point].label << " vs "
         << run.points[p.baseline].label << " | " << q.metric << " | "
         << (q.parts.size() > 1 ? part_words(s, q, p) : question_verdict(s, q)) << " | "
         << (p.state.decided_round >= 0 ? std::to_string(p.state.decided_round) : "—") << " | "
         << s.seeds[p.point] << " (" << p.state.n << ") | "
         << (p.state.no_sequence.empty() ? interval_text(difference_interval(q, p))
                                         : "none: " + p.state.no_sequence)
         << " | "
         << (open_at_end ? (std::isinf(detectable) ? "none" : "±" + short_number(detectable)) : "")
         << " |\n";
    }
    if (q.parts.size() > 1)
      md << "| " << asked << " | all " << q.parts.size() << " points | " << q.metric << " | **"
         << question_verdict(s, q) << "** | "
         << (q.decided_round >= 0 ? std::to_string(q.decided_round) : "—") << " | | | |\n";
  }
  return md.str();
}

}  // namespace

// How every round decided, in a sentence or two.
std::string rules_text(const AdaptiveSchedule& s, std::size_t m) {
  std::string out;
  if (!s.fallback.empty())
    out = "The file's group-sequential design was set aside: " + s.fallback + ". ";
  if (s.sequential.method == stats::SequentialMethod::confidence_sequence)
    return out +
           "After each round every question was asked of an anytime-valid confidence sequence "
           "for the paired difference (the safe t-test's mixture sequence, which holds at "
           "every round at once however the rounds went), at α = 0.05 shared over the " +
           std::to_string(m) + " question" + (m == 1 ? "" : "s") +
           " by Bonferroni; a question stays decided once decided.";
  const stats::GroupSequentialPlan& plan = s.sequential.plan;
  std::string looks;
  for (double n : plan.looks) looks += (looks.empty() ? "" : ", ") + short_number(n);
  return "After each round every question was asked of a group-sequential t-test at the looks "
         "planned before the data (" +
         looks + " pairs), its error spent over them by the " +
         stats::spending_name(plan.spending) +
         " function, its interval the repeated "
         "confidence interval (it holds at every look at once)" +
         (plan.futility ? ", and a question that could no longer reach a verdict within the "
                          "budget got no more seeds (non-binding futility)"
                        : "") +
         "; " + stats::family_text(s.sequential, m) + ". A question stays decided once decided.";
}

std::string adaptive_section(const RunPoints& run, const AdaptiveSchedule& s) {
  std::ostringstream md;
  const std::size_t m = s.questions.size();
  md << "\n### Adaptive design\n\nSeeds went where the answer was still open: the first block "
     << run.adaptive->first_seeds.size() << " seeds a point, then " << s.design.block
     << " more a round to every point with an open question, up to " << s.design.max_seeds << ". "
     << rules_text(s, m)
     << " These verdicts are the run's: "
        "the fixed-n p-values and intervals elsewhere in this report assume a number of seeds "
        "fixed in advance, which the rounds were not, and are for reference. "
        "experiments/README.md, \"Adaptive sweeps\", gives the rules.\n\n"
     << "Status: " << schedule_status(s) << ".\n\n"
     << questions_table(run, s);
  int used = 0;
  for (int n : s.seeds) used += n;
  const std::vector<int> fixed = fixed_design_of_equal_power(s);
  int fixed_total = 0;
  for (int n : fixed) fixed_total += n;
  const int budget = int(s.design.max_seeds) * int(s.seeds.size());
  md << "\nSeeds per point: ";
  for (std::size_t p = 0; p < s.seeds.size(); ++p)
    md << (p ? "; " : "") << (run.points[p].label.empty() ? "the point" : run.points[p].label)
       << " " << s.seeds[p];
  md << ".\n\nTrials: " << used << " (" << s.round + 1 << " round" << (s.round ? "s" : "")
     << "); a fixed design at the budget runs " << budget << " ("
     << short_number(100.0 * (budget - used) / std::max(1, budget))
     << "% saved); a fixed design giving each decided comparison 80% power to reach its "
        "verdict were the truth the observed mean (at the same level: a size known only in "
        "hindsight) and the budget to the rest runs "
     << fixed_total << ".\n";
  return md.str();
}

}  // namespace ablate::experiments
