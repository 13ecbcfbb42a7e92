#pragma once
// Which [tune] setting each sweep point of a run is reported at (reports/report.h).
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "experiments/analysis/point_results.h"
#include "experiments/analysis/successive_halving.h"
#include "experiments/analysis/trial_rows.h"

namespace ablate::experiments {

// Each [tune] setting of a sweep point with its mean validation loss over seeds (the
// best evaluation's: the model each trial keeps), and the setting chosen: the lowest
// mean. A diverged trial counts as an infinite loss; a setting with missing or failed
// trials is compared on the trials it has. Without [tune], one setting "". With
// tune.seeds, over the tuning stage's trials only.
struct Tuning {
  std::vector<TuningSetting> settings;  // in trial order
  std::string chosen;
};

// By the point's swept values. With [tune.halving], the settings it stopped (replayed
// from the tuning trials' curves: successive_halving.h) are marked and never chosen.
std::map<std::map<std::string, std::string>, Tuning> tune_points(const RunRows& run);

// The tuning trials' validation curves of the point with these swept values, by setting
// in `labels`' order: each trial's metrics.jsonl, and whether it has a result.
std::vector<SettingCurves> point_tuning_curves(const RunRows& run,
                                               const std::map<std::string, std::string>& point,
                                               const std::vector<std::string>& labels);

// The trial index with only the trials of each point's chosen [tune] setting (all of
// them without [tune]; with tune.seeds, not the tuning stage's): the plots then show what the
// tables report, not an average over learning rates that were searched and rejected.
nlohmann::json chosen_settings_only(const RunRows& run);

}  // namespace ablate::experiments
