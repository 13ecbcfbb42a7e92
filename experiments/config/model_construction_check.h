#pragma once
// The module constructors' own constraints on a trial's model (a head split that does
// not divide, a plugin component's checks, ...), found the only way they can be: by
// building the model. Remembered per process for each distinct model and task, because
// a grid's trials differ mostly in seeds and learning rates, which no constructor
// reads, while building initialises every weight — scaling_gradient's 650 trials are
// 25 distinct models, and building all 650 made `ablate check` take 1.9 s.
#include <memory>
#include <string>

#include "experiments/records/trial_config.h"
#include "experiments/tasks/task.h"

namespace ablate::experiments {

// "" when build_model(config, *task) succeeds, else its message. `config` is resolved
// (check_model_fits_task has run on it).
std::string model_construction_problem(const TrialConfig& config,
                                       const std::shared_ptr<const Task>& task);

}  // namespace ablate::experiments
