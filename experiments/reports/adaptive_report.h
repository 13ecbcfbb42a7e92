#pragma once
// What an adaptive sweep's reports say of its design (analysis/adaptive_schedule.h):
// summary.md's "Adaptive design" section — each question's sequential verdict and the
// round that decided it, the seeds every point received, the trials spent against the
// fixed designs — and the sequential columns of comparisons.csv and claims.csv, beside
// which the fixed-n columns stay for reference.
#include <string>

#include "experiments/analysis/adaptive_schedule.h"

namespace ablate::experiments {

// The columns appended to comparisons.csv and claims.csv (each with its leading comma).
extern const char* const kSequentialCsvColumns;
// A question's part at `point` (null when the question has none there): its fields;
// blank fields for null. The verdict in the fixed design's words ("worse", "equivalent
// within ±0.03"), or with `claim_words` a claim's ("agrees", "disagrees"), as
// claims.csv's claim_verdict beside it.
std::string sequential_csv_fields(const AdaptiveSchedule& s, const ScheduledQuestion& q,
                                  const ScheduledPart* part, bool claim_words = false);
// The question as a whole (a claim over several points): its verdict and round.
std::string sequential_question_csv_fields(const AdaptiveSchedule& s, const ScheduledQuestion& q);

// summary.md's section.
std::string adaptive_section(const RunPoints& run, const AdaptiveSchedule& s);

}  // namespace ablate::experiments
