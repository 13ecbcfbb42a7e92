#include "experiments/models/model_factory.h"

#include <algorithm>
#include <cstdio>

#include "experiments/models/memory_estimate.h"

namespace ablate::experiments {

namespace {

// Most parameters a trial may have: 1e9 f32 weights are 4 GB, 16 GB with gradients and
// Adam's two moments — beyond what a CPU trial can train, and beyond what validation
// should allocate to find out.
constexpr double kMaxParameters = 1e9;

// An upper bound on the model's parameters and buffers, from the config alone (so an
// absurd size is refused before anything is allocated): every projection counted with
// its widest form (separate Q/K, projected values, GLU's three matrices).
double parameter_bound(const TrialConfig& c, const Task& task) {
  const nn::TransformerConfig& t = c.model.transformer;
  const double e = double(t.d_model), h = double(t.heads);
  const double dk = double(t.head_dim_k()), dv = double(t.head_dim_v());
  const double attention = 2 * e * h * dk + 2 * e * h * dv + 4 * e;
  const double ffn = 3 * e * double(t.d_ff) + e + double(t.d_ff);
  const double encoder = double(t.encoder_layers) * (attention + ffn + 4 * e);
  const double decoder = double(t.decoder_layers) * (2 * attention + ffn + 6 * e);
  double table_rows = 0;  // a position table (learned or sinusoidal)
  if (t.positions.options.has("max_len"))
    table_rows = std::max(double(t.positions.options.get_int("max_len")), double(t.max_len));
  const double vocab =
      task.family() == TaskFamily::lm ? 2.0 * double(task.target_vocab())
      : task.family() == TaskFamily::forecast
          ? 2.0 * double(task.input_series() + task.series()) * (1.0 + double(task.horizon()))
          : 2.0 * double(task.source_vocab()) + 2.0 * double(task.target_vocab());
  return encoder + decoder + (table_rows + vocab + 1) * e;
}

}  // namespace

std::string check_model_fits_task(TrialConfig& c, const Task& task, std::string* key) {
  nn::TransformerConfig& t = c.model.transformer;
  const bool forecast = task.family() == TaskFamily::forecast, lm = task.family() == TaskFamily::lm;
  const char* fitting = forecast ? "encoder_regressor" : lm ? "decoder" : "seq2seq";
  if (c.model.kind == "auto") c.model.kind = fitting;
  // A sequence task also trains a decoder-only model on its streams (decoder_stream.h).
  const bool decoder_only = !forecast && !lm && c.model.kind == "decoder";
  if (c.model.kind != fitting && !decoder_only) {
    *key = "model.kind";
    return "model '" + c.model.kind + "' does not fit task '" + c.task.kind + "' (" +
           (forecast ? "forecasting needs encoder_regressor"
            : lm     ? "language modelling needs decoder"
                     : "sequence tasks need seq2seq or decoder") +
           ")";
  }
  if (!forecast && c.model.readout != "mean") {
    *key = "model.readout";
    return "readout = \"" + c.model.readout +
           "\" is the forecasting head's; sequence tasks decode every position";
  }
  // A language model is evaluated at up to max_context_factor × its training context.
  // A decoder-only model reads source, separator and target as one stream.
  std::int64_t longest = forecast ? task.lookback()
                         : lm     ? task.context() * task.max_context_factor()
                         : decoder_only
                             ? longest_stream(task)
                             : std::max(task.max_source_length(), task.max_target_length());
  const std::string longest_what =
      decoder_only
          ? "the task's longest stream (source " + std::to_string(task.max_source_length()) +
                " + separator + target " + std::to_string(task.max_target_length()) +
                " with <eos>: " + std::to_string(longest) + ")"
          : "the task's longest sequence (" + std::to_string(longest) + ")";
  if (t.max_len == 0) t.max_len = longest;
  if (t.max_len < longest) {
    *key = "model.max_len";
    return "max_len = " + std::to_string(t.max_len) + " is shorter than " + longest_what;
  }
  if (std::string problem = t.head_split_problem(); !problem.empty()) {
    *key = "model.heads";
    return problem;
  }
  if (t.positions.kind == "learned" && t.positions.options.get_int("max_len") < longest) {
    *key = "model.positions.max_len";
    return "learned positions have max_len = " +
           std::to_string(t.positions.options.get_int("max_len")) + " rows, shorter than " +
           longest_what;
  }
  if (c.model.share_embeddings && !lm && task.source_vocab() != task.target_vocab()) {
    *key = "model.share_embeddings";
    return "sharing embeddings needs equal source and target vocabularies (" +
           std::to_string(task.source_vocab()) + " vs " + std::to_string(task.target_vocab()) + ")";
  }
  if (const double bound = parameter_bound(c, task); bound > kMaxParameters) {
    *key = "model";
    char size[32];
    std::snprintf(size, sizeof size, "%.2g", bound);
    return "the model would have up to " + std::string(size) +
           " parameters (d_model = " + std::to_string(t.d_model) +
           ", d_ff = " + std::to_string(t.d_ff) + ", " + std::to_string(t.encoder_layers) + " + " +
           std::to_string(t.decoder_layers) +
           " layers), more than the 1e9 a trial may have (16 GB with gradients and Adam's moments)";
  }
  // Before anything is allocated: a step that cannot fit would die mid-trial.
  if (std::string problem = memory_problem(c, estimate_memory(c, task, parameter_bound(c, task)),
                                           physical_memory_bytes());
      !problem.empty()) {
    *key = "train.batch";
    return problem;
  }
  return "";
}

TrialModel build_model(const TrialConfig& c, const Task& task) {
  TrialModel m;
  m.max_len = c.model.transformer.max_len;
  nn::TransformerConfig transformer = c.model.transformer;
  transformer.attention.telemetry = c.train.attention_telemetry;
  transformer.recompute = c.train.recompute;
  if (c.model.kind == "decoder" && task.family() != TaskFamily::lm) {
    m.stream = stream_vocabulary(task, c.model.share_embeddings);
    auto d = std::make_unique<nn::DecoderLanguageModel>(transformer, m.stream.size(), kPad,
                                                        c.model.tie_output, c.trial_seed,
                                                        m.stream.target_vocab);
    m.decoder_only = d.get();
    m.module = std::move(d);
  } else if (c.model.kind == "decoder") {
    auto d = std::make_unique<nn::DecoderLanguageModel>(transformer, task.target_vocab(), kPad,
                                                        c.model.tie_output, c.trial_seed);
    m.lm = d.get();
    m.module = std::move(d);
  } else if (c.model.kind == "encoder_regressor") {
    auto r = std::make_unique<nn::EncoderRegressor>(
        transformer, task.input_series(), task.horizon(), task.series(), c.trial_seed,
        nn::readout_named(c.model.readout), task.lookback());
    m.regressor = r.get();
    m.module = std::move(r);
  } else {
    nn::VocabularyOptions v;
    v.source_vocab = task.source_vocab();
    v.target_vocab = task.target_vocab();
    v.pad = kPad;
    v.bos = kBos;
    v.eos = kEos;
    v.share_embeddings = c.model.share_embeddings;
    v.tie_output = c.model.tie_output;
    auto s = std::make_unique<nn::Seq2SeqTransformer>(transformer, v, c.trial_seed);
    m.seq2seq = s.get();
    m.module = std::move(s);
  }
  return m;
}

}  // namespace ablate::experiments
