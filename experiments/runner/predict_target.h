#pragma once
// What `ablate predict` decodes with, as the user names it: a checkpoint file; a trial
// directory (<run>/trials/<id>, holding checkpoint.safetensors); or a run directory
// with the trial's swept values and seed — `--point KEY=VALUE` once per key (a key may
// be given by a unique dotted suffix: norm.kind for model.norm.kind) and `--seed N`,
// matched against the run's trials.json. Keys left out and a missing seed match any,
// as long as exactly one trial remains.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ablate::experiments {

struct PredictTarget {
  std::string path;                   // a checkpoint file, a trial directory or a run directory
  std::vector<std::string> points;    // --point KEY=VALUE, each
  std::optional<std::uint64_t> seed;  // --seed: the trial seed
};

// The checkpoint file `target` names. std::invalid_argument (exit 2), saying what to
// do, when: the path is missing or is a directory that is neither a trial's nor a
// run's; --point or --seed come with a checkpoint or a trial directory (the sampler's
// seed is --sample-seed); a --point is malformed or names no swept key; no trial or
// several match (listing the trials, and the keys that tell the matches apart); the
// trial has no checkpoint (saying how to get one without retraining the other trials).
std::string checkpoint_of(const PredictTarget& target);

}  // namespace ablate::experiments
