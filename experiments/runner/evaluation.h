#pragma once
// What a trial optimises and how it is measured, per task family:
//   sequence tasks: teacher-forced cross-entropy over non-padding target tokens (with
//     label smoothing in training); held-out loss without smoothing, token accuracy
//     (teacher-forced argmax) and exact-sequence accuracy by greedy decoding — the same
//     for an encoder–decoder and a decoder-only model (sequence_model.h);
//   forecasting: MSE; held-out MSE and MAE, overall and per horizon step, and per
//     target series MAE, RMSE, MASE and sMAPE in the data's units; on test, the same
//     for the naive, seasonal naive and linear baselines (evaluation_forecast.cpp);
//   language modelling: next-token cross-entropy; held-out loss (nats per token), bits
//     per character, perplexity and token accuracy — on test also at longer contexts.
// Each overall metric comes with its evaluation noise: the standard error of the
// metric over the split's examples (a ratio estimator's, with sequences or windows as
// the units), which reports set beside the spread over seeds.
#include "experiments/config/trial_config.h"
#include "experiments/models/model_factory.h"
#include "experiments/records/evaluation.h"
#include "experiments/tasks/task.h"

namespace ablate::experiments {

class Evaluator {
 public:
  Evaluator(const TrialConfig& config, const Task& task, TrialModel& model);

  // One training batch's loss, recorded on the current tape.
  Var training_loss(Generator& data);
  // Metrics on a held-out split (model in eval mode, no gradients; the tape is reset
  // after). Validation honours train.decode_examples; test decodes every sequence.
  Evaluation evaluate(Split split = Split::validation);
  // The decoded test examples of the last test evaluation (sequence tasks), in the
  // order of the task's test set: what predictions.tsv holds.
  const std::vector<DecodedExample>& test_predictions() const { return test_predictions_; }
  // A few test windows of the last test evaluation (forecasting), spread over the test
  // set: what forecasts.json holds, for report.html's forecast vs truth.
  struct ForecastExample {
    std::int64_t window = 0;  // its index among the test windows
    // Per target series: the lookback it was given, then the horizon's truth and forecast
    // (model units, as the MSE).
    std::vector<std::vector<double>> history, truth, forecast;
  };
  const std::vector<ForecastExample>& test_forecasts() const { return test_forecasts_; }

 private:
  Evaluation evaluate_sequences(Split split);
  Evaluation evaluate_forecast(Split split);
  Evaluation evaluate_lm(Split split);  // evaluation_lm.cpp

  const TrialConfig& config_;
  const Task& task_;
  TrialModel& model_;
  // Built when first evaluated (test only once, at the end).
  std::map<Split, std::vector<Seq2SeqBatch>> sequences_;
  std::map<Split, std::vector<ForecastBatch>> windows_;
  std::map<std::pair<Split, std::int64_t>, std::vector<LmBatch>> blocks_;  // by split and context
  std::map<Split, std::vector<std::vector<std::vector<std::int32_t>>>> references_;
  std::map<Split, std::vector<std::vector<std::string>>> reference_texts_;
  std::vector<DecodedExample> test_predictions_;
  std::vector<ForecastExample> test_forecasts_;
};

}  // namespace ablate::experiments
