#pragma once
// A finished trial rebuilt from its checkpoint.safetensors (written with
// train.checkpoint = true): the resolved config the file's `config` metadata records,
// the task built from it as the trial built it (so vocabularies, which come from the
// training data, map text to the same ids), and the model with the checkpoint's
// weights loaded strictly. What `ablate predict` decodes with.
#include <memory>
#include <string>
#include <vector>

#include "experiments/config/trial_config.h"
#include "experiments/models/model_factory.h"
#include "experiments/tasks/task.h"

namespace ablate::experiments {

struct TrainedTrial {
  TrialConfig config;
  std::string base_dir;  // where its relative data paths resolved
  std::unique_ptr<Task> task;
  TrialModel model;  // in eval mode
};

// Where a trial's relative data paths resolve, given its checkpoint: the directory of
// the experiment file it ran from, which <run>/trials.json records as `source_dir`
// when the checkpoint sits in <run>/trials/<id>/; otherwise the checkpoint's own
// directory.
std::string trial_base_dir(const std::string& checkpoint);

// data_dir, when not empty, replaces trial_base_dir(checkpoint). Bad input — a missing,
// corrupt or foreign checkpoint, one without `config` metadata, a config or data that
// no longer reads, weights that do not fit the model — throws std::invalid_argument
// (or ConfigError, for the config's problems) naming the file.
// `plugins`: the --plugin files; the checkpoint's config may only name plugins among
// them (by SHA-256), and never makes anything else load (checkpoint_plugins.h). A model
// with a NaN or an infinity is refused, naming the first.
TrainedTrial load_trained_trial(const std::string& checkpoint, const std::string& data_dir = "",
                                const std::vector<std::string>& plugins = {});

// Only the config part of it: the checkpoint's config read and validated (plugins as
// above), no task or model built. `task` and `model` stay empty.
TrainedTrial read_trained_trial_config(const std::string& checkpoint,
                                       const std::string& data_dir = "",
                                       const std::vector<std::string>& plugins = {});

}  // namespace ablate::experiments
