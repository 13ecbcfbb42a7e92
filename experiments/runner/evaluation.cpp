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
    return cross_entropy(model_.lm->forward(b.input), b.target, kPad,
                         config_.train.label_smoothing);
  }
  if (model_.regressor) {
    ForecastBatch b = task_.forecast_train_batch(data, config_.train.batch);
    return mse(model_.regressor->forward(constant(b.x)), constant(b.y));
  }
  return sequence_loss(model_, task_.train_batch(data, config_.train.batch),
                       config_.train.label_smoothing);
}

Evaluation Evaluator::evaluate(Split split) {
  model_.module->eval();
  Evaluation e = model_.regressor ? evaluate_forecast(split)
                 : model_.lm      ? evaluate_lm(split)
                                  : evaluate_sequences(split);
  model_.module->train();
  return e;
}

namespace {

// The value of `map` at `split`, made on first use.
template <class Map, class Make>
const typename Map::mapped_type& cached(Map& map, Split split, const Make& make) {
  auto it = map.find(split);
  if (it == map.end()) it = map.emplace(split, make()).first;
  return it->second;
}

// The tokens of a source row before its padding.
std::int64_t source_length(const Tensor& src, std::int64_t row) {
  const std::int64_t S = src.shape()[1];
  std::int64_t n = 0;
  while (n < S && src.at(row * S + n) != kPad) ++n;
  return n;
}

// One target row under teacher forcing: its cross-entropy summed over its tokens, how
// many tokens it has (padding aside) and how many of them the argmax predicts.
struct RowScore {
  double loss = 0;
  std::int64_t tokens = 0, correct = 0;
};

RowScore score_row(const Tensor& logits, const Tensor& targets, std::int64_t row) {
  const std::int64_t T = targets.shape()[1], V = logits.shape()[2];
  RowScore s;
  for (std::int64_t t = 0; t < T; ++t) {
    const std::int64_t r = row * T + t;
    std::int32_t target = std::int32_t(targets.at(r));
    if (target == kPad) continue;
    ++s.tokens;
    std::int64_t best = 0;
    double top = logits.at(r * V);
    for (std::int64_t v = 1; v < V; ++v)
      if (logits.at(r * V + v) > top) top = logits.at(r * V + (best = v));
    s.correct += best == target;
    // Cross-entropy in double, stable around the largest logit.
    double z = 0;
    for (std::int64_t v = 0; v < V; ++v) z += std::exp(double(logits.at(r * V + v)) - top);
    s.loss += std::log(z) + top - double(logits.at(r * V + target));
  }
  return s;
}

// The source row and its decoded prediction (up to the end of sequence).
DecodedExample decoded_example(const Tensor& src, const Tensor& decoded, std::int64_t row) {
  const std::int64_t L = decoded.shape()[1], S = src.shape()[1];
  DecodedExample x;
  for (std::int64_t t = 0; t < S && src.at(row * S + t) != kPad; ++t)
    x.source.push_back(std::int32_t(src.at(row * S + t)));
  for (std::int64_t t = 0; t < L; ++t) {
    const std::int32_t id = std::int32_t(decoded.at(row * L + t));
    if (id == kEos || id == kPad) break;
    x.prediction.push_back(id);
  }
  return x;
}

struct SequenceMetrics {
  RatioMetric loss, token_accuracy, sequence_accuracy;
  void add(const RowScore& s) {
    loss.add(s.loss, double(s.tokens));
    token_accuracy.add(double(s.correct), double(s.tokens));
  }
};

// The metrics of a split's rows: overall and, for length generalisation, the same per
// source length (test only: by_length[L]).
struct SplitMetrics {
  bool by_lengths = false;
  SequenceMetrics all;
  std::map<std::int64_t, SequenceMetrics> by_length;

  void add(const RowScore& s, const Tensor& src, std::int64_t row) {
    all.add(s);
    if (by_lengths) by_length[source_length(src, row)].add(s);
  }
  void add_decoded(bool right, const Tensor& src, std::int64_t row) {
    all.sequence_accuracy.add(right ? 1.0 : 0.0, 1.0);
    if (by_lengths)
      by_length[source_length(src, row)].sequence_accuracy.add(right ? 1.0 : 0.0, 1.0);
  }
  Evaluation evaluation() const {
    Evaluation e;
    e.loss = all.loss.value();
    e.standard_errors["loss"] = all.loss.standard_error();
    all.token_accuracy.put(e, "token_accuracy");
    all.sequence_accuracy.put(e, "sequence_accuracy");
    for (const auto& [length, at] : by_length) {
      const std::string suffix = "_len" + std::to_string(length);
      e.metrics["loss" + suffix] = at.loss.value();
      e.standard_errors["loss" + suffix] = at.loss.standard_error();
      at.token_accuracy.put(e, "token_accuracy" + suffix);
      at.sequence_accuracy.put(e, "sequence_accuracy" + suffix);
    }
    return e;
  }
};

}  // namespace

Evaluation Evaluator::evaluate_sequences(Split split) {
  Tape& tape = Tape::current();
  NoGradGuard no_grad;
  const std::vector<Seq2SeqBatch>& batches = cached(sequences_, split, [&] {
    return task_.evaluation_batches(split, config_.train.validation_batch);
  });
  const auto& references = cached(references_, split, [&] { return task_.references(split); });
  const auto& texts = cached(reference_texts_, split, [&] { return task_.reference_texts(split); });
  SplitMetrics metrics;
  metrics.by_lengths = split == Split::test && task_.metrics_by_length();
  std::vector<DecodedExample> decoded_examples;
  std::size_t next_example = 0;  // the index in the split of the next batch's first row
  // Test decodes every sequence: it is evaluated once and is what reports compare.
  const std::int64_t limit = split == Split::validation ? config_.train.decode_examples : 0;
  std::int64_t decode_budget = limit;
  for (const Seq2SeqBatch& b : batches) {
    throw_if_stopped();  // a stop must not wait for the rest of the split
    const Tensor logits = teacher_forced_logits(model_, b);
    const std::int64_t B = b.tgt_out.shape()[0], T = b.tgt_out.shape()[1];
    const std::size_t first_example = next_example;
    next_example += std::size_t(B);
    for (std::int64_t row = 0; row < B; ++row)
      if (const RowScore s = score_row(logits, b.tgt_out, row); s.tokens > 0)
        metrics.add(s, b.src, row);
    tape.reset();
    if (limit > 0 && decode_budget <= 0) continue;
    // Bounded by the task's longest target, not this example's: the decoder is not
    // told how long the answer is.
    // Test decodes with the configured beam; validation (repeated) greedily.
    const std::int64_t max_len = std::max(T, task_.max_target_length());
    const Tensor decoded =
        decode_sources(model_, b.src, max_len, split == Split::test ? config_.train.beam_width : 1);
    tape.reset();
    for (std::int64_t row = 0; row < B; ++row) {
      if (limit > 0 && decode_budget-- <= 0) break;
      DecodedExample x = decoded_example(b.src, decoded, row);
      x.references = references.at(first_example + std::size_t(row));
      x.reference_texts = texts.at(first_example + std::size_t(row));
      const bool right =
          std::find(x.references.begin(), x.references.end(), x.prediction) != x.references.end();
      metrics.add_decoded(right, b.src, row);
      decoded_examples.push_back(std::move(x));
    }
  }
  Evaluation e = metrics.evaluation();
  task_.score_decoded(decoded_examples, e.metrics, e.standard_errors);
  if (split == Split::test) test_predictions_ = std::move(decoded_examples);
  return e;
}

}  // namespace ablate::experiments
