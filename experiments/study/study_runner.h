#pragma once
// Studies: experiment files with a [study] table. `ablate run` runs the study's
// analytic parts, then (if enabled) the file's ordinary sweep as the training part,
// into the same run directory, and writes study.json, study.md and the study's plots
// next to the sweep's reports. The one study today is "scaling_gradient": why
// attention divides scores by sqrt(d_k), after the blog post "深入分析transformer"
// (2021-03-25; docs/reference/study.md describes what it runs).
#include <iosfwd>
#include <string>

#include "experiments/runner/sweep_runner.h"

namespace ablate::experiments {

// True when the file parses as TOML and has a [study] table.
bool is_study_file(const std::string& path);

struct StudySummary {
  std::string run_dir;
  RunSummary training;  // empty when the training part is off
  bool training_ran = false;
};

// Validates the whole file first (ConfigError with positions), then runs. With
// `only_ids` (a file of trial ids, `run --only-ids`) the training part runs exactly
// those trials, as one plain sweep (listed_trials.h).
StudySummary run_study(const std::string& path, const RunOptions& options,
                       const std::string& only_ids = "");

}  // namespace ablate::experiments
