#include "experiments/reports/adaptive_schedule.h"

#include <algorithm>

#include "experiments/config/report_spec.h"
#include "experiments/reports/claim_judgement.h"

namespace ablate::experiments {

namespace {

// The file's questions, each part at the family's Bonferroni level.
std::vector<ScheduledQuestion> questions_of(const RunPoints& run) {
  const std::vector<std::optional<std::size_t>> baselines =
      find_baselines(run.points, run.baseline);
  const std::string primary = primary_metric(run.metric, run.task);
  std::vector<ScheduledQuestion> out;
  auto parts_where = [&](auto&& wanted) {
    std::vector<ScheduledPart> parts;
    for (std::size_t i = 0; i < run.points.size(); ++i)
      if (baselines[i] && wanted(run.points[i])) parts.push_back({i, *baselines[i], {}});
    return parts;
  };
  for (const ClaimSpec& spec : run.claims) {
    ScheduledQuestion q;
    q.claim = &spec;
    q.metric = claim_metric(spec, primary);
    q.question.expect = stats::expectation_from(spec.expect);
    q.question.margin = claim_margin(spec, primary, run.equivalence_margin);
    q.parts = parts_where([&](const PointResults& p) { return claim_picks(spec, p); });
    out.push_back(std::move(q));
  }
  if (run.claims.empty())
    for (ScheduledPart& part : parts_where([](const PointResults&) { return true; })) {
      ScheduledQuestion q;
      q.metric = primary;
      q.question.margin = run.equivalence_margin;
      q.parts.push_back(part);
      out.push_back(std::move(q));
    }
  for (ScheduledQuestion& q : out) {
    q.higher_is_better = higher_is_better(q.metric);
    q.alpha = stats::kAlpha / double(out.size()) / double(std::max<std::size_t>(1, q.parts.size()));
  }
  return out;
}

// The trials of the current allocation without a result yet.
std::vector<std::pair<std::size_t, std::uint64_t>> unfinished(const RunPoints& run,
                                                              const AdaptiveSchedule& s) {
  std::vector<std::pair<std::size_t, std::uint64_t>> out;
  for (std::size_t p = 0; p < run.points.size(); ++p)
    for (int k = 0; k < s.seeds[p]; ++k)
      if (!run.points[p].finished_seeds.count(s.seed_sequence[std::size_t(k)]))
        out.emplace_back(p, s.seed_sequence[std::size_t(k)]);
  return out;
}

// Asks every open question of the round's data.
void decide_round(const RunPoints& run, AdaptiveSchedule& s) {
  for (ScheduledQuestion& q : s.questions) {
    if (q.status != stats::PartStatus::open) continue;
    for (ScheduledPart& part : q.parts)
      update_part(part.state,
                  paired_gains(run.points[part.point], run.points[part.baseline], q.metric,
                               q.higher_is_better, s.seed_sequence, s.seeds[part.point]),
                  q.question, q.alpha, s.round);
    std::vector<stats::PartState> states;
    for (const ScheduledPart& part : q.parts) states.push_back(part.state);
    q.status = stats::question_status(states);
    if (q.status != stats::PartStatus::open) q.decided_round = s.round;
  }
}

// The seeds each point has in the next round: a block more for every point with an
// open part of an open question (up to the budget), and its baseline as many.
std::vector<int> next_allocation(const AdaptiveSchedule& s) {
  std::vector<int> next = s.seeds;
  const int budget = int(s.design.max_seeds), block = int(s.design.block);
  for (const ScheduledQuestion& q : s.questions)
    if (q.status == stats::PartStatus::open)
      for (const ScheduledPart& part : q.parts)
        if (part.state.status == stats::PartStatus::open)
          next[part.point] =
              std::max(next[part.point], std::min(s.seeds[part.point] + block, budget));
  for (const ScheduledQuestion& q : s.questions)
    for (const ScheduledPart& part : q.parts)
      next[part.baseline] = std::max(next[part.baseline], next[part.point]);
  return next;
}

}  // namespace

std::vector<double> paired_gains(const PointResults& point, const PointResults& baseline,
                                 const std::string& metric, bool higher_is_better,
                                 const std::vector<std::uint64_t>& sequence, int seeds) {
  std::vector<double> gains;
  for (int k = 0; k < seeds && k < int(sequence.size()); ++k) {
    auto a = point.test.find(sequence[std::size_t(k)]);
    auto b = baseline.test.find(sequence[std::size_t(k)]);
    if (a == point.test.end() || b == baseline.test.end()) continue;
    auto x = a->second.find(metric), y = b->second.find(metric);
    if (x == a->second.end() || y == b->second.end()) continue;
    gains.push_back(higher_is_better ? x->second - y->second : y->second - x->second);
  }
  return gains;
}

AdaptiveSchedule replay_schedule(const RunPoints& run) {
  AdaptiveSchedule s;
  s.design = run.adaptive->design;
  s.seed_sequence = adaptive_seed_sequence(run.adaptive->first_seeds, s.design.max_seeds);
  s.questions = questions_of(run);
  s.first_block = int(run.adaptive->first_seeds.size());
  s.seeds.assign(run.points.size(), s.first_block);
  s.last_round.assign(run.points.size(), 0);
  // At most one round per seed of the budget: each round either adds a seed somewhere
  // or ends the replay.
  for (;; ++s.round) {
    s.waiting = unfinished(run, s);
    if (!s.waiting.empty()) return s;
    decide_round(run, s);
    const std::vector<int> next = next_allocation(s);
    if (next == s.seeds) {
      s.complete = true;
      return s;
    }
    for (std::size_t p = 0; p < next.size(); ++p)
      if (next[p] != s.seeds[p]) s.last_round[p] = s.round + 1;
    s.seeds = next;
  }
}

}  // namespace ablate::experiments
