#pragma once
// summary.md's by-length table: the primary test metric per test length (symbolic
// tasks tested on lengths of their own) or per evaluation context (language models),
// mean over seeds per sweep point — the table beside the plot of the same numbers.
// Each length's comparisons with the baseline, intervals and verdicts are in
// comparisons.csv (metric <primary>_len<L> or <primary>_ctx<L>).
#include <string>

#include "experiments/analysis/point_results.h"

namespace ablate::experiments {

// "" when the run's trials have no per-length or per-context metrics.
std::string by_length_section(const RunPoints& run);

}  // namespace ablate::experiments
