#pragma once
// The decisions of a [tune.halving] schedule (config/halving_schedule.h) on one sweep
// point's tuning trials, replayed from their validation curves: the runner stops the
// settings it says (runner/tuned_sweep.h), the reports choose among the ones it keeps
// (point_tuning.h), and `ablate tune-replay` asks what it would have done to runs made
// without it. One function for all three, so that they cannot disagree.
//
// A rung ranks the settings still running by the measure the chooser uses: the mean
// over the tuning seeds of each trial's best validation loss so far — what a trial
// stopped at the rung would report (a trial diverged by then counts as infinite). Ties
// keep the earlier setting, as the chooser's do.
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "experiments/config/halving_schedule.h"

namespace ablate::experiments {

// One tuning trial as a rung sees it.
struct TuningCurve {
  std::vector<std::pair<std::int64_t, double>> val_loss;  // (step, validation loss) per evaluation
  std::int64_t diverged_at = 0;                           // 0: it did not diverge
  // It has a result (ok, diverged or pruned): nothing more of its curve will come.
  bool finished = false;
};

// One setting of a point: its label and its tuning trials.
struct SettingCurves {
  std::string label;
  std::vector<TuningCurve> trials;
};

// The best validation loss the trial had by `step` (+inf when it had diverged by then,
// or had not evaluated yet).
double best_by_step(const TuningCurve& trial, std::int64_t step);

// The mean of best_by_step over the setting's trials.
double setting_loss_at(const SettingCurves& setting, std::int64_t step);

struct HalvingDecision {
  // Per setting, in the order given: the rung step it was stopped at, 0 while running
  // (after the last rung: kept to the end).
  std::vector<std::int64_t> stopped_at;
  // How many rungs were decided: a rung is decided once every trial of every setting
  // still running has evaluated at its step or finished.
  std::size_t rungs_decided = 0;
};

// The rungs of `rung_steps` applied in order to `settings`, keeping `keep` of those still
// running at each (settings_kept), for as many rungs as can be decided.
HalvingDecision decide_halving(const std::vector<SettingCurves>& settings,
                               const std::vector<std::int64_t>& rung_steps, double keep);

// The rung steps of a point whose trials train for `train_steps` and evaluated at the
// steps `curves` recorded: their every-how-many steps is the first evaluation's step.
// Empty when no trial evaluated.
std::vector<std::int64_t> recorded_rung_steps(const HalvingSchedule& schedule,
                                              const std::vector<SettingCurves>& curves,
                                              std::int64_t train_steps);

// The schedule of a run index (trials.json's tuning.halving), none without; throws
// std::runtime_error for one the experiment file could not have given.
std::optional<HalvingSchedule> halving_of_index(const nlohmann::json& index);
// As trials.json keeps it.
nlohmann::json halving_json(const HalvingSchedule& schedule);

}  // namespace ablate::experiments
