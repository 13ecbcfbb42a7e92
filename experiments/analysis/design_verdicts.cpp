#include "experiments/analysis/design_verdicts.h"

#include <cmath>

#include "experiments/analysis/adaptive_schedule.h"
#include "experiments/analysis/point_results.h"
#include "experiments/analysis/report_text.h"

namespace ablate::experiments {

namespace {

std::string bound_text(double v) {
  return std::isinf(v) ? std::string(v > 0 ? "+∞" : "−∞") : short_number(v);
}

// The part's sequence of the difference point − baseline, in the metric's own sign
// (the schedule keeps it of the gain, positive = better).
std::string interval_text(const ScheduledQuestion& q, const ScheduledPart& p) {
  if (!p.state.no_sequence.empty()) return "none: " + p.state.no_sequence;
  const double low = q.higher_is_better ? p.state.low : -p.state.high;
  const double high = q.higher_is_better ? p.state.high : -p.state.low;
  std::string out = "[";  // (appended: GCC 12's -Wrestrict misreads "[" + string)
  return out.append(bound_text(low)).append(", ").append(bound_text(high)).append("]");
}

// A part's own verdict, in the words of its question: a claim's "agrees"/"disagrees",
// else the fixed design's ("worse", "equivalent within ±0.03"); open at the end of the
// design, inconclusive at the budget.
std::string part_verdict(const AdaptiveSchedule& s, const ScheduledQuestion& q,
                         const ScheduledPart& p) {
  if (p.state.status == stats::PartStatus::open)
    return s.complete ? "inconclusive at the budget (n = " + std::to_string(s.seeds[p.point]) + ")"
                      : "open (round " + std::to_string(s.round) + ")";
  if (q.claim) return p.state.status == stats::PartStatus::agrees ? "agrees" : "disagrees";
  return stats::part_verdict(p.state, q.question);
}

std::string label(const RunPoints& run, std::size_t point) {
  return run.points[point].label.empty() ? "the point" : run.points[point].label;
}

}  // namespace

DesignVerdicts design_verdicts(const RunPoints& run, const AdaptiveSchedule& s) {
  DesignVerdicts d;
  d.status = schedule_status(s);
  d.first_block = s.first_block;
  d.block = int(s.design.block);
  d.budget = int(s.design.max_seeds);
  d.group_sequential = s.sequential.method == stats::SequentialMethod::group_sequential;
  d.fallback = s.fallback;
  for (const ScheduledQuestion& q : s.questions) {
    DesignQuestion out;
    out.question = q.claim ? q.claim->claim : "differs from its baseline";
    out.metric = q.metric;
    out.verdict = question_verdict(s, q);
    out.decided_round = q.decided_round;
    // A claim's interval bounds two one-sided tests at its level; the difference question's
    // and the sequence's are two-sided at it.
    out.level = 1 - (d.group_sequential && q.claim ? 2 : 1) * q.alpha;
    for (std::size_t point = 0; point < run.points.size(); ++point) {
      const ScheduledPart* p = part_at(q, point);
      if (!p) continue;
      out.parts.push_back({label(run, p->point), label(run, p->baseline), part_verdict(s, q, *p),
                           s.seeds[p->point], int(p->state.n), interval_text(q, *p)});
    }
    d.questions.push_back(std::move(out));
  }
  return d;
}

std::string futility_words(const ScheduledQuestion& q, int seeds) {
  return "inconclusive: stopped for futility in round " + std::to_string(q.futile_round) +
         " (n = " + std::to_string(seeds) + "), no verdict reachable within the budget";
}

std::string question_verdict(const AdaptiveSchedule& s, const ScheduledQuestion& q) {
  if (q.status == stats::PartStatus::agrees)
    return q.claim ? "agrees" : stats::part_verdict(q.parts.front().state, q.question);
  if (q.status == stats::PartStatus::disagrees) return "disagrees";
  int most = 0;
  for (const ScheduledPart& p : q.parts) most = std::max(most, s.seeds[p.point]);
  if (q.futile) return futility_words(q, most);
  if (!s.complete) return "open (round " + std::to_string(s.round) + ")";
  return "inconclusive at the budget (n = " + std::to_string(most) + ")";
}

std::string schedule_status(const AdaptiveSchedule& s) {
  int decided = 0, futile = 0;
  for (const ScheduledQuestion& q : s.questions) {
    decided += q.status != stats::PartStatus::open;
    futile += q.status == stats::PartStatus::open && q.futile;
  }
  const int open = int(s.questions.size()) - decided - futile;
  const std::string questions =
      std::to_string(decided) + " of " + std::to_string(s.questions.size()) + " questions decided" +
      (futile ? ", " + std::to_string(futile) + " stopped for futility" : "");
  if (s.complete)
    return "complete after round " + std::to_string(s.round) + ": " + questions +
           (open ? ", " + std::to_string(open) + " inconclusive at the budget" : "");
  return "round " + std::to_string(s.round) + ": " + questions + ", " +
         std::to_string(s.waiting.size()) + " trials of the round without a result";
}

std::string level_text(double level) {
  return short_number(100 * level) + "%";
}

std::string verdict_word(const std::string& verdict) {
  return verdict.substr(0, verdict.find_first_of(" (:"));
}

}  // namespace ablate::experiments
