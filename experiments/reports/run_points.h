#pragma once
// A run's sweep points with their test and curve metrics (RunPoints,
// analysis/point_results.h), from the run as read (run_rows.h).
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "experiments/analysis/point_results.h"
#include "experiments/analysis/trial_rows.h"

namespace ablate::experiments {

// The sweep points with their trials' test metrics, in trial order; with [tune], each
// point's trials of its chosen setting.
RunPoints points_of(const RunRows& run, const std::string& run_name);

// The run directory's name, also for a path that ends in '/'.
std::string run_name(const std::string& run_dir);

RunPoints read_run_points(const std::string& run_dir);

// The trials of a point's chosen [tune] setting (every trial of the point without
// [tune]), in the order of `index` (a run's trials.json).
struct TrialRef {
  std::string id;
  std::uint64_t seed = 0;
};
std::vector<TrialRef> chosen_trials(const nlohmann::json& index, const PointResults& point);

// Whether `trial` (an entry of the index's trials) belongs to a two-stage [tune]'s tuning
// stage (index "tuning": its seeds): it chose a setting, and no report counts it as a
// result of its point.
bool in_tuning_stage(const nlohmann::json& index, const nlohmann::json& trial);

}  // namespace ablate::experiments
