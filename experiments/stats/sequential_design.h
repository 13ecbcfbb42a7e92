#pragma once
// The rules of an adaptive sweep ([sweep.adaptive]): after every round of seeds each
// open question about a point's paired differences with its baseline is asked of an
// anytime-valid confidence sequence (confidence_sequence.h), and a question stays
// decided once its sequence decides it. The words are those of the fixed design
// (verdicts.h), judged on the sequence instead of a fixed-n test:
//
//   question        agrees (decided) when the     disagrees when it
//                   sequence of the gain lies
//   better          above 0                       lies below 0
//   worse           below 0                       lies above 0
//   not_worse δ     above −δ                      lies below −δ
//   not_better δ    below +δ                      lies above +δ
//   equivalent δ    inside (−δ, +δ)               lies above +δ or below −δ
//   difference      above or below 0 (better/worse); inside (−δ, +δ) with a margin
//                   (the question of a comparison row when the file states no claim)
//
// "gain" is the difference oriented so that positive is the metric's better direction.
// The sequence kept is the running intersection of every round's (it covers the truth
// whenever each round's does), so a decision never flips. A claim over several points
// agrees once all its parts agree and disagrees once one does.
//
// Error shared across the file's questions (the claims, or without claims the compared
// points): Bonferroni — each question's parts get α / (m · k) for m questions of k parts
// each — so every sequence of the family covers its truth at every round at once with
// probability ≥ 1 − α, whatever the stopping, and every decision is right with it. It
// costs a factor in the radius that grows like √log m, needs no ordering of the
// questions (step-down procedures such as e-Holm must revisit decided questions when
// others are decided later, which a sweep that has stopped a point cannot), and gives
// every question an interval to report.
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "experiments/stats/verdicts.h"

namespace ablate::experiments::stats {

// The mixture prior's variance g on the standardised effect δ = μ/σ (its sd is 2):
// the effects an ablation decides are large beside the spread over seeds, and a wide
// prior lets the first small blocks decide them. At α = 0.05 the radius is 2.4 sd/√n
// at 5 seeds (g = 1: 3.8), 1.26 at 10 and 0.56 at 40 (g = 1: 1.22 and 0.53).
inline constexpr double kSequencePriorVariance = 4;

// What a question asks of the gain: a claim's expectation, or (no claim) whether the
// point differs from its baseline or, with a margin, is equivalent to it.
struct Question {
  std::optional<Expectation> expect;  // none: the difference question
  std::optional<double> margin;       // δ, in the metric's units
  // better / worse by at least this much (a claim's min_effect): the bound is ±min_effect
  // instead of 0.
  std::optional<double> min_effect = std::nullopt;
};

enum class PartStatus { open, agrees, disagrees };

// One part of a question (a point against its baseline on one metric), round by round.
struct PartState {
  PartStatus status = PartStatus::open;
  int decided_round = -1;  // the round whose data decided it; -1 while open
  // The last round's data: pairs, mean and sd of the gains, and the sequence (running
  // intersection), ±∞ while unbounded.
  double n = 0, mean = 0, sd = 0;
  double low = -std::numeric_limits<double>::infinity();
  double high = std::numeric_limits<double>::infinity();
  // Why the sequence could not be formed this round ("" when it could): fewer than 2
  // pairs, or no spread in the gains.
  std::string no_sequence;
  // Group-sequential designs (group_sequential_design.h): the pairs at each look the
  // part was tested at, and whether each verdict can still be reached within the budget
  // (false once the statistic fell below its futility boundary).
  std::vector<double> looks;
  bool agree_futile = false, disagree_futile = false;
  double level = 0;  // the level of the last test (of the tests that agree)
};

// The part after round `round`, whose paired gains so far are `gains` (oriented, every
// pair of the seeds the point has had), at level `alpha` for this part. A decided part
// is left as it is.
void update_part(PartState& part, std::span<const double> gains, const Question& q, double alpha,
                 int round);

// What the part's sequence says, in the fixed design's words: "better", "worse",
// "equivalent within ±δ", "not worse by δ"... for a decided part; "" while open.
std::string part_verdict(const PartState& part, const Question& q);

// A question over its parts: agrees when all do, disagrees when one does, else open.
PartStatus question_status(std::span<const PartState> parts);

// How far the part's mean gain lies from the boundary its decision excluded (0 for
// better/worse and the difference question, −δ for not_worse, +δ for not_better, the
// margin's nearer side for equivalence, its crossed side for "differs by more than"):
// the effect a fixed design would have had to detect to reach the same verdict. 0 for
// an open part.
double decided_distance(const PartState& part, const Question& q);

// The |gain| a part's final n and spread would have detected with probability `power`:
// the sequence's radius at level α plus the normal quantile of `power` times sd/√n.
// +∞ when the sequence is unbounded there.
double sequential_detectable(double n, double sd, double alpha, double power = 0.8);

// The seeds a fixed design needs for a two-sided paired t-test at level α to find a
// standardised effect |d| with probability `power` (the smallest n ≥ 2 that does, or 0
// when more than `cap` are needed or d is 0).
int fixed_design_seeds(double d, double alpha, double power = 0.8, int cap = 100000);

}  // namespace ablate::experiments::stats
