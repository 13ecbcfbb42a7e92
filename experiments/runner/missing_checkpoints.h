#pragma once
// Finished trials asked for a checkpoint they do not have. train.checkpoint is not part
// of a trial's identity (config/trial_grid.cpp), so `ablate run FILE
// train.checkpoint=true` on a finished sweep keeps its trials: the finished ones with a
// checkpoint.safetensors are skipped as any finished trial is, and those without one
// train again — the only way to get the model validation selected, which a finished
// trial does not keep. Training is bit-identical for the same config and seed, so the
// retrained test metrics must equal the recorded ones; when they do not, the run says
// so on stderr (the checkpoint and summary.json are then the new training's).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "experiments/config/experiment.h"

namespace ablate::experiments {

// The recorded test metrics of a finished trial that lacks the checkpoint its config
// asks for (status ok: a diverged trial never has one); nothing otherwise.
std::optional<std::map<std::string, double>> finished_without_checkpoint(const Trial& trial,
                                                                         const std::string& dir);

// "" when the test metrics the trial in `dir` now records equal `recorded`; else a
// warning naming the trial and each metric that changed.
std::string retrained_metrics_difference(const Trial& trial, const std::string& dir,
                                         const std::map<std::string, double>& recorded);

// The line announcing `count` such trials (printed before they train).
std::string retraining_for_checkpoints_note(int count);

}  // namespace ablate::experiments
