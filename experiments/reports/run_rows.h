#pragma once
// Reads a run directory as results.csv, summary.md and the comparisons use it
// (analysis/trial_rows.h): its trial index (trials.json) and every trial's
// summary.json, one row a trial.
#include <nlohmann/json.hpp>
#include <string>

#include "experiments/analysis/trial_rows.h"

namespace ablate::experiments {

// Throws std::runtime_error if run_dir has no trials.json. A summary.json that cannot
// be read counts as missing.
RunRows read_run(const std::string& run_dir);
// The same with the index given (an adaptive sweep's rounds: the trials so far).
RunRows read_run(const std::string& run_dir, nlohmann::json index);

// A summary.json value as the reports write it: a number to six significant digits, a
// string as it is, anything else "".
std::string summary_value_text(const nlohmann::json& v);

}  // namespace ablate::experiments
