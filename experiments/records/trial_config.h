#pragma once
// One trial, fully resolved: every default filled in, every component's options
// validated against its registry schema (config/trial_config.h reads and writes it).
// docs/reference/ documents each key, one page per table.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "autograd/kernels/gemm.h"
#include "nn/component.h"
#include "nn/transformer/transformer_config.h"

namespace ablate::experiments {

struct TaskSpec {
  std::string kind;
  nn::Options options;  // resolved against the task's schema
  // SHA-256 of each file the options name (option key → 64 hex digits): part of the
  // resolved config, so of the trial's identity.
  std::map<std::string, std::string> file_sha256;
};

// nn's defaults with d_ff and max_len at 0, as the keys declare them (plain_keys.cpp):
// 0 means "derived when the file is read" (d_ff = 4 · d_model, max_len = the task's
// longest sequence), so a TrialConfig built in code starts where an empty file does.
inline nn::TransformerConfig unresolved_transformer() {
  nn::TransformerConfig t;
  t.d_ff = 0;
  t.max_len = 0;
  return t;
}

struct ModelSpec {
  std::string kind = "auto";  // resolved: seq2seq | encoder_regressor
  nn::TransformerConfig transformer = unresolved_transformer();
  bool share_embeddings = false;
  bool tie_output = false;
  std::string readout = "mean";  // encoder_regressor: mean | flatten (nn::Readout)
};

struct TrainSpec {
  std::int64_t steps = 1000;
  std::int64_t batch = 32;
  double lr = 1e-3;
  nn::Component optimizer{"adam"};
  nn::Component schedule{"constant"};
  double clip_grad_norm = 0.0;    // 0 = off
  std::int64_t eval_every = 100;  // steps between evaluations (and the last step)
  std::int64_t patience = 0;      // evaluations without improvement before stopping; 0 = off
  double label_smoothing = 0.0;
  std::int64_t validation_batch = 128;
  std::int64_t decode_examples =
      0;                        // validation sequences greedily decoded per evaluation (0 = all)
  std::int64_t beam_width = 1;  // test decoding: 1 = greedy, else beam search
  bool checkpoint = false;      // save checkpoint.safetensors at the end
  bool attention_telemetry = false;
  bool norm_telemetry = false;  // BatchNorm: batch vs running statistics (norm_telemetry.h)
  // "bf16": the matrix products of linear and matmul ops take bfloat16 inputs and
  // accumulate in f32 (kernels::MatmulPrecision); everything else stays f32. Part of
  // the trial's identity only when not "f32", so f32 trials keep their ids.
  std::string precision = "f32";
  // Threads of this trial's matrix products (oneDNN). 1 = the default, one core per
  // trial, side by side under --jobs; more helps one large trial on an idle machine.
  std::int64_t threads = 1;
  // Steps between saves of the resumable state (resume_state.h); 0 = about every five
  // minutes of training. Not part of the trial's identity: it cannot change a result.
  std::int64_t resume_every = 0;
  // Activation recomputation (nn::TransformerConfig::recompute): less memory, ~1/3 more
  // compute, the same results bit for bit, so not part of the trial's identity either.
  bool recompute = false;
};

// A plugin the trial's experiment loads (experiments/plugins/plugin.h), part of the
// trial's identity by content.
struct PluginRef {
  std::string path;  // as the experiment file names it (relative to it), or absolute (--plugin)
  std::string sha256;
  std::string built_for;  // the ablate version it was built against
};

struct TrialConfig {
  std::string name;
  std::string description;
  // The two seeds, named as in the file: `seed` is the data seed (task data and the
  // validation split, shared by every trial), `trial_seed` this replicate's
  // (initialisation, dropout, batches; from sweep.seeds in a sweep).
  std::uint64_t data_seed = 0;   // TOML `seed`
  std::uint64_t trial_seed = 0;  // TOML `trial_seed`
  std::vector<PluginRef> plugins;
  TaskSpec task;
  ModelSpec model;
  TrainSpec train;
};

// The matmul precision a trial trains, evaluates and predicts in (train.precision).
inline kernels::MatmulPrecision matmul_precision_of(const TrialConfig& c) {
  return kernels::matmul_precision_named(c.train.precision);
}

}  // namespace ablate::experiments
