#pragma once
// A file's questions asked together, round by round, with the error α shared among them
// — the one procedure the adaptive sweep (analysis/adaptive_schedule.h) and its
// calibration by simulation (adaptive_calibration.h) both run.
//
// Confidence sequence: Bonferroni, fixed — each part at α / (m · k) for m questions of k
// parts (sequential_design.h).
//
// Group-sequential: the graphical approach of Maurer and Bretz ("Multiple testing in
// group sequential trials using graphical approaches", Statistics in Biopharmaceutical
// Research 5(4), 2013) with equal weights and equal transitions — the sequential form of
// Holm's procedure. Every question starts at α / m. When a question is decided, its level
// passes in equal shares to every question not yet decided that way, which is then
// tested again, at the same look, with boundaries recomputed at its new level for all
// its looks; a round ends when nothing more is decided. Claims have two such graphs,
// one for agreeing and one for disagreeing (as the fixed design's Holm is run per
// direction); the difference questions of a file without claims have one. Within a
// claim over k points agreeing needs every point at the claim's level
// (intersection–union), disagreeing one point at the level / k (Bonferroni).
#include <functional>
#include <string>
#include <vector>

#include "experiments/stats/group_sequential_design.h"
#include "experiments/stats/sequential_design.h"

namespace ablate::experiments::stats {

enum class SequentialMethod { group_sequential, confidence_sequence };
const char* method_key(SequentialMethod m);  // "group_sequential", "confidence_sequence"

struct SequentialDesign {
  SequentialMethod method = SequentialMethod::group_sequential;
  GroupSequentialPlan plan;  // group_sequential only
  double alpha = kAlpha;
};

struct FamilyQuestion {
  Question question;
  std::vector<PartState> parts;
  PartStatus status = PartStatus::open;
  int decided_round = -1;
  // Group-sequential: stopped because neither verdict can be reached within the budget.
  bool futile = false;
  int futile_round = -1;
  // The question's shares of α for agreeing and for disagreeing (after recycling).
  double agree_share = 0, disagree_share = 0;
  // Each part's level for the tests that agree and for those that disagree.
  double agree_level() const;
  double disagree_level() const;
  SequentialMethod method = SequentialMethod::group_sequential;
};

// The family of `questions` (their parts sized) at the start of the design.
void start_family(std::vector<FamilyQuestion>& questions, const SequentialDesign& design);

// One round: every open question asked of its parts' gains (`gains(q, p)`: every pair
// so far, oriented), with recycling, then futility.
using PartGains = std::function<std::vector<double>(std::size_t question, std::size_t part)>;
void decide_family_round(std::vector<FamilyQuestion>& questions, const SequentialDesign& design,
                         const PartGains& gains, int round);

// Whether a part gets the next block: its question is open (and not stopped for
// futility) and the part itself undecided.
bool part_needs_seeds(const FamilyQuestion& q, std::size_t part);

// The procedure in words, as the report and the pre-registration state it.
std::string family_text(const SequentialDesign& design, std::size_t questions);

}  // namespace ablate::experiments::stats
