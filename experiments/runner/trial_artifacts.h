#pragma once
// What a trial that finished with status ok leaves in its directory beside its record
// (trial_runner.h), all of the model validation selected:
//   predictions.tsv  (sequence tasks, when tested) its decoded test examples
//   samples.txt      (language models, when tested) text it generates
//   attention.json   (sequence tasks) its attention weights on the first validation
//                    example, per module and head
//   checkpoint.safetensors  (train.checkpoint) its weights
#include <string>

#include "experiments/config/experiment.h"
#include "experiments/models/model_factory.h"
#include "experiments/records/trial_outcome.h"
#include "experiments/runner/evaluation.h"
#include "experiments/tasks/task.h"

namespace ablate::experiments {

// With the selected model in `model` (restored when out.tested).
void write_trial_artifacts(const Trial& trial, const std::string& dir, const Task& task,
                           TrialModel& model, const Evaluator& evaluator, const TrialOutcome& out);

}  // namespace ablate::experiments
