#include "experiments/runner/evaluation.h"

#include <cmath>

#include "experiments/runner/ratio_metric.h"

namespace ablate::experiments {


Evaluator::Evaluator(const TrialConfig& config, const Task& task, TrialModel& model)
    : config_(config), task_(task), model_(model) {}

Var Evaluator::training_loss(Generator& data) {
  if (model_.regressor) {
    ForecastBatch b = task_.forecast_train_batch(data, config_.train.batch);
    return mse(model_.regressor->forward(constant(b.x)), constant(b.y));
  }
  Seq2SeqBatch b = task_.train_batch(data, config_.train.batch);
  return cross_entropy(model_.seq2seq->forward(b.src, b.tgt_in), b.tgt_out, kPad,
                       config_.train.label_smoothing);
}

Evaluation Evaluator::evaluate(Split split) {
  model_.module->eval();
  Evaluation e = model_.regressor ? evaluate_forecast(split) : evaluate_sequences(split);
  model_.module->train();
  return e;
}

Evaluation Evaluator::evaluate_sequences(Split split) {
  Tape& tape = Tape::current();
  NoGradGuard no_grad;
  auto cached = sequences_.find(split);
  if (cached == sequences_.end())
    cached = sequences_.emplace(split, task_.evaluation_batches(split, config_.train.validation_batch)).first;
  RatioMetric loss, token_accuracy, sequence_accuracy;
  // Test decodes every sequence: it is evaluated once and is what reports compare.
  const std::int64_t limit = split == Split::validation ? config_.train.decode_examples : 0;
  std::int64_t decode_budget = limit;
  for (const Seq2SeqBatch& b : cached->second) {
    Tensor logits = model_.seq2seq->forward(b.src, b.tgt_in).value();
    std::int64_t B = b.tgt_out.shape()[0], T = b.tgt_out.shape()[1], V = logits.shape()[2];
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
    }
    tape.reset();
    if (limit > 0 && decode_budget <= 0) continue;
    Tensor decoded = model_.seq2seq->greedy_decode(b.src, T);
    tape.reset();
    std::int64_t L = decoded.shape()[1];
    for (std::int64_t row = 0; row < B; ++row) {
      if (limit > 0 && decode_budget-- <= 0) break;
      bool same = true;
      for (std::int64_t t = 0; t < T && same; ++t) {
        std::int32_t want = std::int32_t(b.tgt_out.at(row * T + t));
        std::int32_t got = t < L ? std::int32_t(decoded.at(row * L + t)) : kPad;
        same = want == got;
        if (want == kEos || want == kPad) break;
      }
      sequence_accuracy.add(same ? 1.0 : 0.0, 1.0);
    }
  }
  Evaluation e;
  e.loss = loss.value();
  e.standard_errors["loss"] = loss.standard_error();
  token_accuracy.put(e, "token_accuracy");
  sequence_accuracy.put(e, "sequence_accuracy");
  return e;
}

}  // namespace ablate::experiments
