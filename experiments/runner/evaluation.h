#pragma once
// What a trial optimises and how it is measured, per task family:
//   sequence tasks: teacher-forced cross-entropy over non-padding target tokens (with
//     label smoothing in training); validation loss without smoothing, token accuracy
//     (teacher-forced argmax) and exact-sequence accuracy by greedy decoding;
//   forecasting: MSE; validation MSE and MAE, overall and per horizon step.
#include "experiments/config/trial_config.h"
#include "experiments/model_factory.h"
#include "experiments/runner/trial_runner.h"

namespace ablate::experiments {

class Evaluator {
 public:
  Evaluator(const TrialConfig& config, const Task& task, TrialModel& model);

  // One training batch's loss, recorded on the current tape.
  Var training_loss(Generator& data);
  // Validation metrics (model in eval mode, no gradients; the tape is reset after).
  Evaluation evaluate();

 private:
  Evaluation evaluate_sequences();
  Evaluation evaluate_forecast();

  const TrialConfig& config_;
  const Task& task_;
  TrialModel& model_;
  std::vector<Seq2SeqBatch> validation_;
  std::vector<ForecastBatch> forecast_validation_;
};

}  // namespace ablate::experiments
