#include "experiments/analysis/adaptive_schedule.h"

#include <algorithm>

#include "experiments/analysis/claim_judgement.h"
#include "experiments/config/report_spec.h"

namespace ablate::experiments {

namespace {

// The file's questions and their parts (their levels are the family's: start_family).
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
    q.question.min_effect = spec.min_effect;
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
  for (ScheduledQuestion& q : out) q.higher_is_better = higher_is_better(q.metric);
  return out;
}

// The rules of the run's design, or the confidence sequence (with the reason) when a
// group-sequential design's plan is no longer the one frozen before the data.
stats::SequentialDesign sequential_design_of(const RunPoints& run, std::string& fallback) {
  const AdaptiveDesign& d = run.adaptive->design;
  stats::SequentialDesign out;
  if (d.design == "confidence_sequence") {
    out.method = stats::SequentialMethod::confidence_sequence;
    return out;
  }
  if (run.preregistration && run.preregistration->seeds != run.seeds) {
    fallback = "the design changed after results existed (frozen " +
               run.preregistration->frozen_at + ": " + run.preregistration->seeds +
               "; now: " + run.seeds +
               "): group-sequential boundaries hold only for the looks planned before the "
               "data, so the confidence sequence, valid at any looks, decides";
    out.method = stats::SequentialMethod::confidence_sequence;
    return out;
  }
  out.plan = group_sequential_plan(d, int(run.adaptive->first_seeds.size()));
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

// Asks every open question of the round's data, and copies what the family decided into
// the schedule's questions.
void decide_round(const RunPoints& run, AdaptiveSchedule& s,
                  std::vector<stats::FamilyQuestion>& family) {
  stats::decide_family_round(
      family, s.sequential,
      [&](std::size_t q, std::size_t p) {
        const ScheduledQuestion& sq = s.questions[q];
        const ScheduledPart& part = sq.parts[p];
        return paired_gains(run.points[part.point], run.points[part.baseline], sq.metric,
                            sq.higher_is_better, s.seed_sequence, s.seeds[part.point]);
      },
      s.round);
  for (std::size_t i = 0; i < family.size(); ++i) {
    ScheduledQuestion& q = s.questions[i];
    const stats::FamilyQuestion& f = family[i];
    for (std::size_t p = 0; p < q.parts.size(); ++p) q.parts[p].state = f.parts[p];
    q.status = f.status;
    q.decided_round = f.decided_round;
    q.futile = f.futile;
    q.futile_round = f.futile_round;
    q.alpha = q.parts.empty() ? f.agree_level() : q.parts.front().state.level;
  }
}

// The seeds each point has in the next round: a block more for every point with an
// open part of an open question (up to the budget), and its baseline as many.
std::vector<int> next_allocation(const AdaptiveSchedule& s) {
  std::vector<int> next = s.seeds;
  const int budget = int(s.design.max_seeds), block = int(s.design.block);
  for (const ScheduledQuestion& q : s.questions)
    if (q.status == stats::PartStatus::open && !q.futile)
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

stats::GroupSequentialPlan group_sequential_plan(const AdaptiveDesign& design, int first_block) {
  stats::GroupSequentialPlan plan;
  plan.spending = design.spending == "pocock"           ? stats::Spending::pocock
                  : design.spending == "obrien_fleming" ? stats::Spending::obrien_fleming
                                                        : stats::Spending::power;
  plan.futility = design.futility;
  plan.looks = stats::planned_looks(first_block, int(design.block), int(design.max_seeds));
  return plan;
}

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
  s.sequential = sequential_design_of(run, s.fallback);
  std::vector<stats::FamilyQuestion> family(s.questions.size());
  for (std::size_t i = 0; i < family.size(); ++i) {
    family[i].question = s.questions[i].question;
    family[i].parts.resize(s.questions[i].parts.size());
  }
  stats::start_family(family, s.sequential);
  for (std::size_t i = 0; i < family.size(); ++i) s.questions[i].alpha = family[i].agree_level();
  s.first_block = int(run.adaptive->first_seeds.size());
  s.seeds.assign(run.points.size(), s.first_block);
  s.last_round.assign(run.points.size(), 0);
  // At most one round per seed of the budget: each round either adds a seed somewhere
  // or ends the replay.
  for (;; ++s.round) {
    s.waiting = unfinished(run, s);
    if (!s.waiting.empty()) return s;
    decide_round(run, s, family);
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

const ScheduledPart* part_at(const ScheduledQuestion& q, std::size_t point) {
  for (const ScheduledPart& p : q.parts)
    if (p.point == point) return &p;
  return nullptr;
}

}  // namespace ablate::experiments
