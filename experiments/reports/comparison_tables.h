#pragma once
// The comparison rows of a run (analysis/comparisons.h) as comparisons.csv and as the
// headline table of summary.md.
#include <string>
#include <vector>

#include "experiments/analysis/comparisons.h"
#include "experiments/analysis/point_results.h"

namespace ablate::experiments {

struct AdaptiveSchedule;

// comparisons.csv: a header and one line per row (columns in experiments/README.md);
// with an adaptive design's `schedule`, its sequential columns after them.
std::string comparisons_csv(const std::vector<PointResults>& points,
                            const std::vector<ComparisonRow>& rows,
                            const AdaptiveSchedule* schedule = nullptr);

// A table's "seeds" cell: the seeds counted, then how many of the point's trials
// diverged ("8 (2 of 10 diverged)"), failed or are missing.
std::string seeds_cell(int counted, int trials, int diverged, int failed, int missing);

// The headline table of summary.md: one line per point for `metric`, sorted best first.
// With an adaptive schedule the fixed-n verdict's column is labelled as a reference
// (kFixedNReference, analysis/design_verdicts.h), and when the schedule's questions are these
// comparisons (a run without claims) a "design verdict" column before it gives each
// point's sequential verdict, the run's.
std::string comparisons_markdown(const std::vector<PointResults>& points,
                                 const std::vector<ComparisonRow>& rows,
                                 const std::vector<std::string>& keys, const std::string& metric,
                                 const AdaptiveSchedule* schedule = nullptr);

}  // namespace ablate::experiments
