#include "experiments/models/memory_estimate.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace ablate::experiments {

namespace {

constexpr double kFloat =
    4;  // bytes: parameters and activations are f32 (bf16 only inside matmuls)

// Tensors of [batch, length, d_model] a layer keeps for its backward (its input, the
// norms', projections', residuals' outputs...) and of [batch, length, d_ff] (the
// feed-forward's hidden layer and its activation): counted low, so the estimate stays a
// lower bound.
constexpr double kModelWidthTensorsPerLayer = 8, kHiddenTensorsPerLayer = 2;

std::string gigabytes(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, bytes >= 1e11 ? "%.0f GB" : "%.3g GB", bytes / 1e9);
  return text;
}

struct Shape {
  double layers = 0, attention_modules = 0;
};

Shape shape_of(const TrialConfig& c) {
  const nn::TransformerConfig& t = c.model.transformer;
  const double encoder = double(t.encoder_layers), decoder = double(t.decoder_layers);
  if (c.model.kind == "decoder") return {decoder, decoder};            // causal self-attention
  if (c.model.kind == "encoder_regressor") return {encoder, encoder};  // self-attention
  return {encoder + decoder, encoder + 2 * decoder};  // seq2seq: decoder self + cross
}

double output_vocab(const Task& task) {
  return task.family() == TaskFamily::forecast ? double(task.series())
                                               : double(task.target_vocab());
}

}  // namespace

double MemoryEstimate::total() const {
  return parameters + std::max(activations + attention, evaluation);
}

MemoryEstimate estimate_memory(const TrialConfig& c, const Task& task, double parameters) {
  const nn::TransformerConfig& t = c.model.transformer;
  const Shape s = shape_of(c);
  const double L = double(t.max_len), d = double(t.d_model), ff = double(t.d_ff),
               H = double(t.heads);
  const double B = double(c.train.batch), Be = double(c.train.validation_batch),
               V = output_vocab(task);
  MemoryEstimate e;
  e.parameters = 4 * parameters * kFloat;
  // With recomputation only one layer's activations exist at a time (and each layer's input).
  const double kept_layers = c.train.recompute ? 1 : s.layers;
  const double per_layer =
      B * L * (kModelWidthTensorsPerLayer * d + kHiddenTensorsPerLayer * ff) * kFloat;
  e.activations = kept_layers * per_layer + s.layers * B * L * d * kFloat + 2 * B * L * V * kFloat;
  const double attention_kept = c.train.recompute ? 1 : s.attention_modules;
  e.attention = attention_kept * B * H * L * L * kFloat;  // the probabilities the backward needs
  e.evaluation = Be * H * L * L * kFloat + Be * L * (2 * d + ff + V) * kFloat;
  return e;
}

double physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? double(pages) * double(page) : 0;
}

std::string memory_problem(const TrialConfig& c, const MemoryEstimate& e, double limit_bytes) {
  if (limit_bytes <= 0 || e.total() <= limit_bytes) return "";
  const nn::TransformerConfig& t = c.model.transformer;
  return "a training step would need at least " + gigabytes(e.total()) +
         " of memory, more than this machine's " + gigabytes(limit_bytes) +
         " (parameters with gradients and optimizer moments " + gigabytes(e.parameters) +
         ", activations " + gigabytes(e.activations) + ", attention maps " +
         gigabytes(e.attention) + " = batch " + std::to_string(c.train.batch) + " × heads " +
         std::to_string(t.heads) + " × max_len " + std::to_string(t.max_len) +
         "² per attention module, evaluation " + gigabytes(e.evaluation) +
         " with validation_batch " + std::to_string(c.train.validation_batch) +
         "): lower train.batch, train.validation_batch, the task's longest sequence "
         "(model.max_len) or the model's size";
}

}  // namespace ablate::experiments
