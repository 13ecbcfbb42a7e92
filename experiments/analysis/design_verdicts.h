#pragma once
// The verdicts of an adaptive sweep's design, as its reports open with them: summary.md's
// first section and report.html's (reports/design_verdicts_section.h) are written
// from one DesignVerdicts, so both say the same. One entry per question of the file
// (analysis/adaptive_schedule.h: a claim, or without claims a compared point): the
// design's verdict (question_verdict), the round that decided it, the seeds and pairs
// of each of its points, and each point's sequential interval of the difference with the
// level it holds at every round at once — the confidence sequence's 1 − α/(m·k), or the
// group-sequential repeated confidence interval's 1 − 2a for a claim's one-sided tests at
// level a (1 − a for the two-sided difference question). The fixed-n verdicts of
// the tables after it assume seeds fixed in advance and are for reference only.
#include <cstddef>
#include <string>
#include <vector>

namespace ablate::experiments {

struct RunPoints;
struct AdaptiveSchedule;
struct ScheduledQuestion;

struct DesignPart {
  std::string point, baseline;  // labels
  std::string verdict;          // the part's own; shown for a question of several points
  int seeds = 0, pairs = 0;
  std::string interval;  // the difference point − baseline: "[-0.1082, 0.01392]", or "none: why"
};

struct DesignQuestion {
  std::string question;  // the claim, or "differs from its baseline"
  std::string metric;
  std::string verdict;  // the question's (question_verdict)
  int decided_round = -1;
  double level = 0;  // each part's sequence covers its truth at every round with this probability
  std::vector<DesignPart> parts;
};

struct DesignVerdicts {
  std::string status;  // schedule_status: "complete after round 5: 2 of 3 questions decided, ..."
  int first_block = 0, block = 0, budget = 0;
  // Group-sequential tests (repeated confidence intervals, the graphical procedure), or
  // the confidence sequence (Bonferroni).
  bool group_sequential = false;
  std::string fallback;  // why a group-sequential file was decided by the sequence
  std::vector<DesignQuestion> questions;
};

DesignVerdicts design_verdicts(const RunPoints& run, const AdaptiveSchedule& s);

// "agrees", "disagrees", "inconclusive at the budget (n = 40)", or "open (round 2)".
std::string question_verdict(const AdaptiveSchedule& s, const ScheduledQuestion& q);

// Where the design stands, in words: "complete after round 3: 2 of 3 questions
// decided, 1 inconclusive at the budget" or "round 2: ..., 6 trials of the round
// without a result".
std::string schedule_status(const AdaptiveSchedule& s);

// "stopped for futility in round 2 (n = 15)": the words of a question that could no
// longer reach a verdict within the budget.
std::string futility_words(const ScheduledQuestion& q, int seeds);

// "98.33%".
std::string level_text(double level);
// The first word of a verdict ("worse", "agrees", "inconclusive", "open", "no"): the
// class report.html colours it by.
std::string verdict_word(const std::string& verdict);

// The column header of a fixed-n verdict in an adaptive run's tables.
inline constexpr const char* kFixedNReference =
    "fixed-n verdict (reference only: the seeds were not fixed in advance)";

}  // namespace ablate::experiments
