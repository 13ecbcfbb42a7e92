#include "experiments/runner/evaluation.h"

#include <cmath>

namespace ablate::experiments {

namespace {

// A metric that is a ratio of sums over examples, Σ a_i / Σ d_i (tokens correct over
// tokens, squared error over values, ...), with the standard error of the ratio
// estimator (first-order, examples as the sampling units): evaluation sets are a
// sample of the task, and this is how far another sample of the same size would move
// the metric.
class RatioMetric {
 public:
  void add(double numerator, double denominator) {
    a_.push_back(numerator);
    d_.push_back(denominator);
    sum_a_ += numerator;
    sum_d_ += denominator;
  }
  double value() const { return sum_d_ > 0 ? sum_a_ / sum_d_ : 0.0; }
  double standard_error() const {
    const std::size_t n = a_.size();
    if (n < 2 || sum_d_ <= 0) return 0.0;
    const double r = value();
    double ss = 0;
    for (std::size_t i = 0; i < n; ++i) ss += (a_[i] - r * d_[i]) * (a_[i] - r * d_[i]);
    return std::sqrt(ss * double(n) / double(n - 1)) / sum_d_;
  }
  void put(Evaluation& e, const std::string& name) const {
    e.metrics[name] = value();
    e.standard_errors[name] = standard_error();
  }

 private:
  std::vector<double> a_, d_;
  double sum_a_ = 0, sum_d_ = 0;
};

}  // namespace

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

Evaluation Evaluator::evaluate_forecast(Split split) {
  Tape& tape = Tape::current();
  NoGradGuard no_grad;
  auto cached = windows_.find(split);
  if (cached == windows_.end())
    cached = windows_.emplace(split, task_.forecast_evaluation_batches(split, config_.train.validation_batch)).first;
  std::int64_t H = task_.horizon();
  std::vector<double> se(std::size_t(H), 0.0), ae(std::size_t(H), 0.0);
  RatioMetric mse_metric, mae_metric;  // windows as the units
  std::int64_t count = 0;  // values per horizon step
  for (const ForecastBatch& b : cached->second) {
    Tensor pred = model_.regressor->forward(constant(b.x)).value();
    std::int64_t B = b.y.shape()[0], S = b.y.shape()[2];
    for (std::int64_t i = 0; i < B; ++i) {
      double window_se = 0, window_ae = 0;
      for (std::int64_t h = 0; h < H; ++h)
        for (std::int64_t s = 0; s < S; ++s) {
          std::int64_t k = (i * H + h) * S + s;
          double d = pred.at(k) - b.y.at(k);
          se[std::size_t(h)] += d * d;
          ae[std::size_t(h)] += std::abs(d);
          window_se += d * d;
          window_ae += std::abs(d);
        }
      mse_metric.add(window_se, double(H * S));
      mae_metric.add(window_ae, double(H * S));
    }
    count += B * S;
    tape.reset();
  }
  Evaluation e;
  for (std::int64_t h = 0; h < H; ++h) {
    e.metrics["mse_h" + std::to_string(h + 1)] = count ? se[std::size_t(h)] / double(count) : 0.0;
    e.metrics["mae_h" + std::to_string(h + 1)] = count ? ae[std::size_t(h)] / double(count) : 0.0;
  }
  mse_metric.put(e, "mse");
  mae_metric.put(e, "mae");
  e.loss = e.metrics["mse"];
  e.standard_errors["loss"] = e.standard_errors["mse"];
  return e;
}

}  // namespace ablate::experiments
