#pragma once
// [tune.halving] (halving_schedule.h) read from an experiment file, checked against its
// trials' steps, and previewed by `ablate check`.
#include <string>
#include <vector>

#include "experiments/config/config_error.h"
#include "experiments/config/experiment_spec.h"
#include "experiments/config/halving_schedule.h"
#include "experiments/config/toml_reader.h"

namespace ablate::experiments {

// Reads [tune.halving] (`reader` at "tune.halving"): `rungs`, then the declared keys
// (setting_keys.h); every problem goes to the reader.
HalvingSchedule read_halving_schedule(TomlReader& reader);

// The problems of `e`'s halving with its trials' steps: a rung that rounds to the last
// evaluation (it would stop nothing), or two rungs that round to one step.
void check_halving_rungs(const Experiment& e, const std::string& path,
                         const PositionIndex& positions, std::vector<ConfigProblem>& problems);

// What `ablate check` says of `e`'s halving: "halving: rungs at 0.25, 0.5 of
// train.steps, keeping 0.5 — at steps 10, 20 of 40: 4 settings a point, then 2, then 1
// to the end".
std::string halving_preview(const Experiment& e);

}  // namespace ablate::experiments
