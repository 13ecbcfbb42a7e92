#include "experiments/runner/evaluation.h"

#include <cmath>

namespace ablate::experiments {

Evaluator::Evaluator(const TrialConfig& config, const Task& task, TrialModel& model)
    : config_(config), task_(task), model_(model) {
  if (task.family() == TaskFamily::forecast)
    forecast_validation_ = task.forecast_validation_batches(config.train.validation_batch);
  else
    validation_ = task.validation_batches(config.train.validation_batch);
}

Var Evaluator::training_loss(Generator& data) {
  if (model_.regressor) {
    ForecastBatch b = task_.forecast_train_batch(data, config_.train.batch);
    return mse(model_.regressor->forward(constant(b.x)), constant(b.y));
  }
  Seq2SeqBatch b = task_.train_batch(data, config_.train.batch);
  return cross_entropy(model_.seq2seq->forward(b.src, b.tgt_in), b.tgt_out, kPad,
                       config_.train.label_smoothing);
}

Evaluation Evaluator::evaluate() {
  model_.module->eval();
  Evaluation e = model_.regressor ? evaluate_forecast() : evaluate_sequences();
  model_.module->train();
  return e;
}

Evaluation Evaluator::evaluate_sequences() {
  Tape& tape = Tape::current();
  NoGradGuard no_grad;
  double loss_sum = 0;
  std::int64_t tokens = 0, correct_tokens = 0, sequences = 0, correct_sequences = 0;
  std::int64_t decode_budget = config_.train.decode_examples;
  for (const Seq2SeqBatch& b : validation_) {
    Tensor logits = model_.seq2seq->forward(b.src, b.tgt_in).value();
    std::int64_t B = b.tgt_out.shape()[0], T = b.tgt_out.shape()[1], V = logits.shape()[2];
    std::int64_t batch_tokens = 0;
    for (std::int64_t r = 0; r < B * T; ++r) {
      std::int32_t target = std::int32_t(b.tgt_out.at(r));
      if (target == kPad) continue;
      ++batch_tokens;
      std::int64_t best = 0;
      for (std::int64_t v = 1; v < V; ++v)
        if (logits.at(r * V + v) > logits.at(r * V + best)) best = v;
      correct_tokens += best == target;
    }
    // The batch mean, weighted by its token count: the mean over all tokens.
    loss_sum += cross_entropy(constant(logits), b.tgt_out, kPad).item() * double(batch_tokens);
    tokens += batch_tokens;
    tape.reset();
    if (config_.train.decode_examples > 0 && decode_budget <= 0) continue;
    Tensor decoded = model_.seq2seq->greedy_decode(b.src, T);
    tape.reset();
    std::int64_t L = decoded.shape()[1];
    for (std::int64_t row = 0; row < B; ++row) {
      if (config_.train.decode_examples > 0 && decode_budget-- <= 0) break;
      bool same = true;
      for (std::int64_t t = 0; t < T && same; ++t) {
        std::int32_t want = std::int32_t(b.tgt_out.at(row * T + t));
        std::int32_t got = t < L ? std::int32_t(decoded.at(row * L + t)) : kPad;
        same = want == got;
        if (want == kEos || want == kPad) break;
      }
      correct_sequences += same;
      ++sequences;
    }
  }
  Evaluation e;
  e.val_loss = tokens ? loss_sum / double(tokens) : 0.0;
  e.metrics["token_accuracy"] = tokens ? double(correct_tokens) / double(tokens) : 0.0;
  e.metrics["sequence_accuracy"] = sequences ? double(correct_sequences) / double(sequences) : 0.0;
  return e;
}

Evaluation Evaluator::evaluate_forecast() {
  Tape& tape = Tape::current();
  NoGradGuard no_grad;
  std::int64_t H = task_.horizon();
  std::vector<double> se(std::size_t(H), 0.0), ae(std::size_t(H), 0.0);
  std::int64_t count = 0;  // values per horizon step
  for (const ForecastBatch& b : forecast_validation_) {
    Tensor pred = model_.regressor->forward(constant(b.x)).value();
    std::int64_t B = b.y.shape()[0], S = b.y.shape()[2];
    for (std::int64_t i = 0; i < B; ++i)
      for (std::int64_t h = 0; h < H; ++h)
        for (std::int64_t s = 0; s < S; ++s) {
          std::int64_t k = (i * H + h) * S + s;
          double d = pred.at(k) - b.y.at(k);
          se[std::size_t(h)] += d * d;
          ae[std::size_t(h)] += std::abs(d);
        }
    count += B * S;
    tape.reset();
  }
  Evaluation e;
  double mse_total = 0, mae_total = 0;
  for (std::int64_t h = 0; h < H; ++h) {
    mse_total += se[std::size_t(h)];
    mae_total += ae[std::size_t(h)];
    e.metrics["mse_h" + std::to_string(h + 1)] = count ? se[std::size_t(h)] / double(count) : 0.0;
    e.metrics["mae_h" + std::to_string(h + 1)] = count ? ae[std::size_t(h)] / double(count) : 0.0;
  }
  double n = double(count * H);
  e.metrics["mse"] = n ? mse_total / n : 0.0;
  e.metrics["mae"] = n ? mae_total / n : 0.0;
  e.val_loss = e.metrics["mse"];
  return e;
}

}  // namespace ablate::experiments
