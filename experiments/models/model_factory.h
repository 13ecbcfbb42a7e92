#pragma once
// Builds a trial's model for its task, and checks beforehand that the two fit
// together (so `ablate check` reports it with the file position, not a trial crash).
#include <memory>
#include <string>

#include "experiments/records/trial_config.h"
#include "experiments/tasks/decoder_stream.h"
#include "experiments/tasks/task.h"
#include "nn/transformer/transformer_models.h"

namespace ablate::experiments {

struct TrialModel {
  std::unique_ptr<nn::Module> module;
  nn::Seq2SeqTransformer* seq2seq = nullptr;  // set for sequence tasks
  nn::EncoderRegressor* regressor = nullptr;  // set for forecasting
  nn::DecoderLanguageModel* lm = nullptr;     // set for language modelling
  // A decoder-only model of a sequence task (model.kind = "decoder"), reading the
  // streams of decoder_stream.h in `stream`'s ids.
  nn::DecoderLanguageModel* decoder_only = nullptr;
  StreamVocabulary stream;
  // The longest sequence the model holds (model.max_len, resolved): decoding never
  // runs past it (sequence_model.h).
  std::int64_t max_len = 0;

  bool sequence_model() const { return seq2seq || decoder_only; }
};

// Resolves model.kind ("auto" → by task family) and model.max_len (0 → the task's
// longest sequence) in `config`, then checks combinations. Returns "" when they fit,
// else a message, with the dotted key it concerns in *key. The modules' own
// constraints are their constructors' (config/model_construction_check.h).
std::string check_model_fits_task(TrialConfig& config, const Task& task, std::string* key);

// The model, initialised from the trial's seed. Throws std::invalid_argument. Reads the
// config's model, task and seed, and of [train] only attention_telemetry and recompute:
// config/model_construction_check.cpp relies on that to build each distinct model once.
TrialModel build_model(const TrialConfig& config, const Task& task);

}  // namespace ablate::experiments
