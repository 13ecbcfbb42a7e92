#pragma once
// comparisons.csv and the comparison and claims sections of summary.md, written from
// the analysis of a run's points (analysis/comparisons.h, analysis/claim_judgement.h).
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "experiments/analysis/comparisons.h"
#include "experiments/analysis/point_results.h"
#include "experiments/reports/claims_report.h"

namespace ablate::experiments {

// The comparisons of `run` (or of several runs merged, `ablate compare`): the CSV and
// the markdown section summary.md starts with (the claims after its first table).
// `baselines` as find_baselines gives.
struct ComparisonReport {
  std::string csv, markdown;
  ClaimsReport claims;  // empty without [[report.claims]]
  // The headline table's metric ([report] metric, else the task's primary) and every
  // row of comparisons.csv: the plots draw these numbers rather than recomputing them.
  std::string metric;
  std::vector<ComparisonRow> rows;
};
ComparisonReport comparison_report(const RunPoints& run,
                                   const std::vector<std::optional<std::size_t>>& baselines,
                                   const std::string& baseline_text);

}  // namespace ablate::experiments
