#pragma once
// [tune.halving]: successive halving of a two-stage [tune]'s tuning stage. Every
// setting of a sweep point trains on the tuning seeds to the first rung (a fraction of
// train.steps, rounded to an evaluation step); there the settings are ranked by the
// measure the chooser uses — the mean over the tuning seeds of the best validation loss
// so far — and only the best `keep` fraction (rounded up) continues, from its resume
// state, to the next rung, and so on; the survivors of the last rung train to the end,
// and the point's setting is chosen among them as without halving. The learning-rate
// schedule is always the full run's, so a survivor's trial is bit-identical to an
// uninterrupted one. The sweep's seeds are never halved: they run the chosen setting
// in full.
//
//   [tune]
//   "train.lr" = [1e-3, 2e-3, 4e-3, 8e-3, 1.6e-2]
//   seeds = [100, 101]
//   halving = { rungs = [0.25, 0.5], keep = 0.5 }
//
// Part of no trial's identity; frozen with the claims (reports/preregistration.h).
#include <cstdint>
#include <string>
#include <vector>

#include "experiments/config/toml_reader.h"

namespace ablate::experiments {

struct HalvingSchedule {
  std::vector<double> rungs;  // required: fractions of train.steps, increasing, in (0, 1)
  double keep = 0.5;          // the fraction of the settings still running kept at each rung
};

// The evaluation step a rung at `fraction` of `steps` ranks at: the one nearest to
// fraction × steps (ties to the later) among the steps a trial evaluates at — every
// eval_every-th, and the last.
std::int64_t rung_step(double fraction, std::int64_t steps, std::int64_t eval_every);

// The rungs' steps for a trial of `steps` evaluated every `eval_every`.
std::vector<std::int64_t> rung_steps(const HalvingSchedule& schedule, std::int64_t steps,
                                     std::int64_t eval_every);

// How many of `running` settings continue past a rung: keep × running rounded up (at
// least one), with a tolerance so that 0.6 × 5 keeps 3, not 4.
std::size_t settings_kept(double keep, std::size_t running);

// `rungs`'s row of the key table (setting_keys_markdown) and its line in `ablate list`:
// a list, so not a declared scalar key.
inline const char* kHalvingRungsRow =
    "| `rungs` | list of floats | (required) | increasing, each in (0, 1) | where the settings are "
    "ranked, as fractions of train.steps (each rounded to the nearest evaluation step) |\n";
inline const char* kHalvingRungsLine =
    "  tune.halving.rungs                list of floats (required)  [increasing, in (0, 1)]  "
    "where the settings are ranked, as fractions of train.steps\n";

// "rungs at 0.25, 0.5 of train.steps, keeping 0.5": how the schedule is shown and frozen.
std::string halving_text(const HalvingSchedule& schedule);

}  // namespace ablate::experiments
