#pragma once
// `ablate report` on a study's folder (a run directory or a results folder with its
// record.jsonl): study.md rebuilt from study.json, as summary.md is from the trials.
#include <nlohmann/json.hpp>
#include <string>

namespace ablate::experiments {

// Rewrites <dir>/study.json and <dir>/study.md from `study` (read_study_json of that
// file). The analytic parts (literal, corrected, attention) are the study run's own
// measurements and are kept; the training part is the sweep's summary, recomputed from
// the trials (or the record) under this ablate's statistics, as comparisons.csv is —
// except the attention statistics of the last evaluation, which a record does not hold
// and which are kept from `study` when the trials no longer have them.
void rebuild_study(const std::string& dir, nlohmann::json study);

}  // namespace ablate::experiments
