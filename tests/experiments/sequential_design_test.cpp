// The rules of adaptive sweeps (experiments/stats/sequential_design.h) and the rounds
// replayed from results (experiments/analysis/adaptive_schedule.h): each expectation
// decides on the side of its bound the confidence sequence lies, a decision never
// flips, equal gains decide nothing, a claim over several points needs all of them,
// and the schedule gives seeds to open points (and their baselines) only.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "experiments/analysis/adaptive_schedule.h"
#include "experiments/stats/confidence_sequence.h"
#include "experiments/stats/sequential_design.h"

using namespace ablate::experiments;
using namespace ablate::experiments::stats;

namespace {

// n gains centred on `mean` with a fixed, symmetric spread of ±`spread`.
std::vector<double> gains(double mean, double spread, int n) {
  std::vector<double> x;
  for (int i = 0; i < n; ++i) x.push_back(mean + (i % 2 ? spread : -spread) * (1 + 0.1 * (i % 3)));
  return x;
}

PartStatus decide(const std::vector<double>& x, Question q, double alpha = 0.05) {
  PartState s;
  update_part(s, x, q, alpha, 0);
  return s.status;
}

}  // namespace

TEST_CASE(
    "sequential rules: each expectation decides by where the sequence lies against its "
    "bound",
    "[stats][sequential]") {
  const std::vector<double> up = gains(1.0, 0.1, 10), down = gains(-1.0, 0.1, 10),
                            flat = gains(0.0, 0.1, 10), noisy = gains(0.0, 5, 10);
  CHECK(decide(up, {Expectation::better, {}}) == PartStatus::agrees);
  CHECK(decide(down, {Expectation::better, {}}) == PartStatus::disagrees);
  CHECK(decide(noisy, {Expectation::better, {}}) == PartStatus::open);
  CHECK(decide(down, {Expectation::worse, {}}) == PartStatus::agrees);
  CHECK(decide(flat, {Expectation::equivalent, 0.5}) == PartStatus::agrees);
  CHECK(decide(up, {Expectation::equivalent, 0.5}) == PartStatus::disagrees);
  CHECK(decide(flat, {Expectation::not_worse, 0.5}) == PartStatus::agrees);
  CHECK(decide(down, {Expectation::not_worse, 0.5}) == PartStatus::disagrees);
  CHECK(decide(flat, {Expectation::not_better, 0.5}) == PartStatus::agrees);
  CHECK(decide(up, {Expectation::not_better, 0.5}) == PartStatus::disagrees);
  // The question of a comparison without a claim: a difference either way, or (with a
  // margin) equivalence; a noisy null decides neither.
  CHECK(decide(up, {std::nullopt, std::nullopt}) == PartStatus::agrees);
  CHECK(decide(down, {std::nullopt, std::nullopt}) == PartStatus::agrees);
  CHECK(decide(flat, {std::nullopt, 0.5}) == PartStatus::agrees);
  CHECK(decide(noisy, {std::nullopt, 0.5}) == PartStatus::open);
}

TEST_CASE(
    "sequential rules: the sequence is the running intersection, so a decision never "
    "flips and the interval only narrows",
    "[stats][sequential]") {
  const Question better{Expectation::better, {}};
  PartState s;
  update_part(s, gains(1.0, 0.1, 6), better, 0.05, 0);
  REQUIRE(s.status == PartStatus::agrees);
  CHECK(s.decided_round == 0);
  const double low = s.low, high = s.high;
  update_part(s, gains(-1.0, 0.1, 12), better, 0.05, 1);  // a decided part is left as it is
  CHECK(s.status == PartStatus::agrees);
  CHECK(s.decided_round == 0);
  CHECK(s.low == low);
  CHECK(s.high == high);
  // Open parts: each round's sequence is intersected with the earlier ones.
  PartState open;
  update_part(open, gains(0.0, 5, 5), better, 0.05, 0);
  const double first_high = open.high;
  update_part(open, gains(0.0, 9, 10), better, 0.05, 1);
  CHECK(open.high <= first_high);
  CHECK(open.low <= open.high);
  // The level's own sequence at the last round is inside the intersection's bounds.
  const MeanSequence last = t_confidence_sequence(gains(0.0, 9, 10), 0.05, kSequencePriorVariance);
  CHECK(open.high <= last.high);
}

TEST_CASE(
    "sequential rules: equal gains or fewer than two pairs decide nothing, and more seeds "
    "are asked for",
    "[stats][sequential]") {
  PartState s;
  const std::vector<double> same(8, 0.005);  // one test example better in every seed
  update_part(s, same, {Expectation::better, {}}, 0.05, 0);
  CHECK(s.status == PartStatus::open);
  CHECK(s.no_sequence == "no spread in the gains");
  CHECK(std::isinf(s.low));
  PartState one;
  update_part(one, std::vector<double>{0.3}, {Expectation::better, {}}, 0.05, 0);
  CHECK(one.status == PartStatus::open);
  CHECK(one.no_sequence == "fewer than 2 pairs");
}

TEST_CASE(
    "sequential rules: a claim over several points agrees only when all do and disagrees "
    "when one does",
    "[stats][sequential]") {
  PartState agrees, open, disagrees;
  agrees.status = PartStatus::agrees;
  disagrees.status = PartStatus::disagrees;
  CHECK(question_status(std::vector<PartState>{agrees, agrees}) == PartStatus::agrees);
  CHECK(question_status(std::vector<PartState>{agrees, open}) == PartStatus::open);
  CHECK(question_status(std::vector<PartState>{open, disagrees}) == PartStatus::disagrees);
  CHECK(question_status(std::vector<PartState>{}) == PartStatus::open);
}

TEST_CASE(
    "sequential rules: the fixed design's sample size matches statsmodels' and the "
    "budget's detectable difference is the radius plus the power's margin",
    "[stats][sequential]") {
  // statsmodels TTestPower().solve_power(effect_size=d, alpha=a, power=0.8), rounded
  // up: 9.94 → 10 (d 1, α 0.05), 33.37 → 34 (d 0.5), 6.02 → 7 (d 2, α 0.0125).
  CHECK(fixed_design_seeds(1.0, 0.05) == 10);
  CHECK(fixed_design_seeds(-0.5, 0.05) == 34);
  CHECK(fixed_design_seeds(2.0, 0.0125) == 7);
  CHECK(fixed_design_seeds(0.0, 0.05) == 0);
  CHECK(fixed_design_seeds(1e-4, 0.05, 0.8, 1000) == 0);  // more than the cap
  const double radius = t_sequence_radius_factor(40, 0.05, kSequencePriorVariance);
  CHECK(sequential_detectable(40, 2.0, 0.05) ==
        Approx((radius + 0.8416212335729143) * 2 / std::sqrt(40.0)));
  CHECK(std::isinf(sequential_detectable(3, 1.0, 0.05)));
}

namespace {

// A run of three points (baseline, a clearly better one, one like the baseline), every
// seed of the budget finished, for the schedule to replay.
RunPoints three_points(int seeds, const std::string& design = "confidence_sequence") {
  RunPoints run;
  run.task = "reverse";
  run.metric = "token_accuracy";
  run.baseline = {{"k", "base"}};
  run.adaptive = AdaptiveIndex{{0, 1, 2, 3, 4}, {20, 5, design}};
  double phase = 0;  // each point its own noise, so the gains spread
  for (const char* v : {"base", "clear", "same"}) {
    phase += 1.0;
    PointResults p;
    p.point_id = v;
    p.label = std::string("k=") + v;
    p.values = {{"k", v}};
    for (int s = 0; s < seeds; ++s) {
      const double noise = 0.01 * std::sin(1.7 * s + phase);
      p.test[std::uint64_t(s)]["token_accuracy"] =
          0.5 + noise + (std::string(v) == "clear" ? 0.2 : 0.0);
      p.finished_seeds.insert(std::uint64_t(s));
    }
    run.points.push_back(p);
  }
  return run;
}

}  // namespace

TEST_CASE(
    "adaptive schedule: a clear point stops after the first block, the open one and its "
    "baseline get every block up to the budget",
    "[stats][sequential]") {
  const AdaptiveSchedule s = replay_schedule(three_points(20));
  REQUIRE(s.questions.size() == 2);  // no claims: one question per compared point
  CHECK(s.complete);
  CHECK(s.waiting.empty());
  CHECK(s.seeds == std::vector<int>{20, 5, 20});
  CHECK(s.questions[0].status == PartStatus::agrees);
  CHECK(s.questions[0].decided_round == 0);
  CHECK(s.questions[0].alpha == Approx(0.025));  // Bonferroni over the 2 questions
  CHECK(s.questions[1].status == PartStatus::open);
  CHECK(s.round == 3);  // 5, 10, 15, 20 seeds
}

TEST_CASE(
    "adaptive schedule, group-sequential: the clear point stops after the first block, its "
    "level passes to the open question, which stops for futility before the budget",
    "[stats][sequential]") {
  const AdaptiveSchedule s = replay_schedule(three_points(20, "group_sequential"));
  REQUIRE(s.questions.size() == 2);
  CHECK(s.sequential.method == SequentialMethod::group_sequential);
  CHECK(s.fallback.empty());
  CHECK(s.complete);
  CHECK(s.questions[0].status == PartStatus::agrees);
  CHECK(s.questions[0].decided_round == 0);
  CHECK(s.questions[0].alpha == Approx(0.025));  // α / 2 at the start
  // Graphical recycling: the decided question's 0.025 went to the other one.
  CHECK(s.questions[1].alpha == Approx(0.05));
  CHECK(s.questions[1].status == PartStatus::open);
  CHECK(s.questions[1].futile);
  // Stopped before the budget: the null point (and its baseline) did not get 20 seeds.
  CHECK(s.seeds[2] < 20);
  CHECK(s.seeds[0] == s.seeds[2]);
  CHECK(s.seeds[1] == 5);
  CHECK(s.questions[1].futile_round == s.round);
}

TEST_CASE(
    "adaptive schedule: with results missing, the replay stops at the round that needs "
    "them and names its trials",
    "[stats][sequential]") {
  const AdaptiveSchedule s = replay_schedule(three_points(7));  // round 1 half done
  CHECK_FALSE(s.complete);
  CHECK(s.round == 1);
  CHECK(s.seeds == std::vector<int>{10, 5, 10});
  CHECK(s.waiting.size() == 6);  // seeds 7, 8, 9 of the baseline and of the open point
}

TEST_CASE(
    "sequential rules: the effect a fixed design needs is the distance from the mean gain "
    "to the boundary the decision excluded, not the mean itself",
    "[stats][sequential]") {
  const double d = 0.03;
  auto decided = [&](double mean, Question q) {
    PartState s;
    update_part(s, gains(mean, 0.002, 20), q, 0.05, 0);
    REQUIRE(s.status != PartStatus::open);
    return s;
  };
  // Not worse by δ with no difference at all: the decision excluded −δ, δ away.
  const Question not_worse{Expectation::not_worse, d};
  PartState s = decided(0.0, not_worse);
  CHECK(decided_distance(s, not_worse) == Approx(s.mean + d));
  CHECK(std::abs(s.mean) < 1e-3);
  const Question not_better{Expectation::not_better, d};
  s = decided(-0.01, not_better);
  CHECK(decided_distance(s, not_better) == Approx(d - s.mean));
  // Equivalence: the margin's nearer side when it agrees, the crossed side when not.
  const Question equivalent{Expectation::equivalent, d};
  s = decided(0.01, equivalent);
  CHECK(s.status == PartStatus::agrees);
  CHECK(decided_distance(s, equivalent) == Approx(d - s.mean));
  s = decided(-0.05, equivalent);
  CHECK(s.status == PartStatus::disagrees);
  CHECK(decided_distance(s, equivalent) == Approx(-s.mean - d));
  // Better, and the difference question: 0, or the margin when it decided inside it.
  const Question better{Expectation::better, std::nullopt};
  s = decided(0.02, better);
  CHECK(decided_distance(s, better) == Approx(s.mean));
  const Question difference{std::nullopt, d};
  s = decided(-0.02, difference);
  CHECK(decided_distance(s, difference) == Approx(-s.mean));
  s = decided(0.001, difference);
  CHECK(decided_distance(s, difference) == Approx(d - std::abs(s.mean)));
  CHECK(decided_distance(PartState{}, better) == 0);  // open
}
