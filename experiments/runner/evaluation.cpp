#include "experiments/runner/evaluation.h"

#include <algorithm>
#include <cmath>

#include "experiments/records/ratio_metric.h"
#include "experiments/runner/sequence_model.h"
#include "experiments/runner/stop_signal.h"

namespace ablate::experiments {

Evaluator::Evaluator(const TrialConfig& config, const Task& task, TrialModel& model)
    : config_(config), task_(task), model_(model) {}

Var Evaluator::training_loss(Generator& data) {
  if (model_.lm) {
    LmBatch b = task_.lm_train_batch(data, config_.train.batch);
    return cross_entropy(model_.lm->forward(b.input), b.target, kPad, config_.train.label_smoothing);
  }
  if (model_.regressor) {
    ForecastBatch b = task_.forecast_train_batch(data, config_.train.batch);
    return mse(model_.regressor->forward(constant(b.x)), constant(b.y));
  }
  return sequence_loss(model_, task_.train_batch(data, config_.train.batch), config_.train.label_smoothing);
}

Evaluation Evaluator::evaluate(Split split) {
  model_.module->eval();
  Evaluation e = model_.regressor ? evaluate_forecast(split) : model_.lm ? evaluate_lm(split) : evaluate_sequences(split);
  model_.module->train();
  return e;
}

Evaluation Evaluator::evaluate_sequences(Split split) {
  Tape& tape = Tape::current();
  NoGradGuard no_grad;
  auto cached = sequences_.find(split);
  if (cached == sequences_.end())
    cached = sequences_.emplace(split, task_.evaluation_batches(split, config_.train.validation_batch)).first;
  auto references = references_.find(split);
  if (references == references_.end()) references = references_.emplace(split, task_.references(split)).first;
  auto texts = reference_texts_.find(split);
  if (texts == reference_texts_.end()) texts = reference_texts_.emplace(split, task_.reference_texts(split)).first;
  RatioMetric loss, token_accuracy, sequence_accuracy;
  // Length generalisation: the same per source length, on test (by_length[L]).
  struct AtLength {
    RatioMetric loss, token_accuracy, sequence_accuracy;
  };
  const bool by_lengths = split == Split::test && task_.metrics_by_length();
  std::map<std::int64_t, AtLength> by_length;
  auto source_length = [](const Tensor& src, std::int64_t row) {
    const std::int64_t S = src.shape()[1];
    std::int64_t n = 0;
    while (n < S && src.at(row * S + n) != kPad) ++n;
    return n;
  };
  std::vector<DecodedExample> decoded_examples;
  std::size_t next_example = 0;  // the index in the split of the next batch's first row
  // Test decodes every sequence: it is evaluated once and is what reports compare.
  const std::int64_t limit = split == Split::validation ? config_.train.decode_examples : 0;
  std::int64_t decode_budget = limit;
  for (const Seq2SeqBatch& b : cached->second) {
    throw_if_stopped();  // a stop must not wait for the rest of the split
    Tensor logits = teacher_forced_logits(model_, b);
    std::int64_t B = b.tgt_out.shape()[0], T = b.tgt_out.shape()[1], V = logits.shape()[2];
    const std::size_t first_example = next_example;
    next_example += std::size_t(B);
    for (std::int64_t row = 0; row < B; ++row) {
      double row_loss = 0;
      std::int64_t row_tokens = 0, row_correct = 0;
      for (std::int64_t t = 0; t < T; ++t) {
        const std::int64_t r = row * T + t;
        std::int32_t target = std::int32_t(b.tgt_out.at(r));
        if (target == kPad) continue;
        ++row_tokens;
        std::int64_t best = 0;
        double top = logits.at(r * V);
        for (std::int64_t v = 1; v < V; ++v)
          if (logits.at(r * V + v) > top) top = logits.at(r * V + (best = v));
        row_correct += best == target;
        // Cross-entropy in double, stable around the largest logit.
        double z = 0;
        for (std::int64_t v = 0; v < V; ++v) z += std::exp(double(logits.at(r * V + v)) - top);
        row_loss += std::log(z) + top - double(logits.at(r * V + target));
      }
      if (row_tokens == 0) continue;
      loss.add(row_loss, double(row_tokens));
      token_accuracy.add(double(row_correct), double(row_tokens));
      if (by_lengths) {
        AtLength& at = by_length[source_length(b.src, row)];
        at.loss.add(row_loss, double(row_tokens));
        at.token_accuracy.add(double(row_correct), double(row_tokens));
      }
    }
    tape.reset();
    if (limit > 0 && decode_budget <= 0) continue;
    // Bounded by the task's longest target, not this example's: the decoder is not
    // told how long the answer is.
    // Test decodes with the configured beam; validation (repeated) greedily.
    const std::int64_t max_len = std::max(T, task_.max_target_length());
    Tensor decoded = decode_sources(model_, b.src, max_len, split == Split::test ? config_.train.beam_width : 1);
    tape.reset();
    const std::int64_t L = decoded.shape()[1], S = b.src.shape()[1];
    for (std::int64_t row = 0; row < B; ++row) {
      if (limit > 0 && decode_budget-- <= 0) break;
      DecodedExample x;
      for (std::int64_t t = 0; t < S && b.src.at(row * S + t) != kPad; ++t)
        x.source.push_back(std::int32_t(b.src.at(row * S + t)));
      for (std::int64_t t = 0; t < L; ++t) {
        const std::int32_t id = std::int32_t(decoded.at(row * L + t));
        if (id == kEos || id == kPad) break;
        x.prediction.push_back(id);
      }
      x.references = references->second.at(first_example + std::size_t(row));
      x.reference_texts = texts->second.at(first_example + std::size_t(row));
      const bool right = std::find(x.references.begin(), x.references.end(), x.prediction) != x.references.end();
      sequence_accuracy.add(right ? 1.0 : 0.0, 1.0);
      if (by_lengths) by_length[source_length(b.src, row)].sequence_accuracy.add(right ? 1.0 : 0.0, 1.0);
      decoded_examples.push_back(std::move(x));
    }
  }
  Evaluation e;
  e.loss = loss.value();
  e.standard_errors["loss"] = loss.standard_error();
  token_accuracy.put(e, "token_accuracy");
  sequence_accuracy.put(e, "sequence_accuracy");
  for (const auto& [length, at] : by_length) {
    const std::string suffix = "_len" + std::to_string(length);
    e.metrics["loss" + suffix] = at.loss.value();
    e.standard_errors["loss" + suffix] = at.loss.standard_error();
    at.token_accuracy.put(e, "token_accuracy" + suffix);
    at.sequence_accuracy.put(e, "sequence_accuracy" + suffix);
  }
  task_.score_decoded(decoded_examples, e.metrics, e.standard_errors);
  if (split == Split::test) test_predictions_ = std::move(decoded_examples);
  return e;
}

}  // namespace ablate::experiments
