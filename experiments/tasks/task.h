#pragma once
// Tasks, the "task" axis: the data a trial trains and evaluates on, generated
// deterministically from a seed (or read from the user's files), with two fixed
// held-out splits: validation selects (early stopping, the checkpoint kept, tuning),
// test is evaluated once, with the selected model, and is what reports compare.
// Neither shares an example with the training data or with each other.
//
// Three families:
//   sequence-to-sequence (copy, reverse, sort, numbers_to_words, text_pairs, g2p): i32 token
//     ids, padded with kPad; targets start with kBos (decoder input) and end with kEos;
//   forecasting (forecast): real-valued windows [lookback, input_series] → [horizon, series];
//   language modelling (lm): the next token of a text, at every position.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "autograd/rng.h"
#include "experiments/tasks/forecast_context.h"
#include "experiments/tasks/uniform_index.h"
#include "nn/registry.h"

namespace ablate::experiments {

// Special token ids shared by every sequence task.
constexpr std::int32_t kPad = 0, kBos = 1, kEos = 2, kFirstToken = 3;

// src [B, Ts]; tgt_in = BOS + target [B, Tt]; tgt_out = target + EOS [B, Tt]; all
// right-padded with kPad to the longest sequence of the batch.
struct Seq2SeqBatch {
  Tensor src, tgt_in, tgt_out;
};

// x [B, lookback, input_series] (f32), y [B, horizon, series] (f32): the targets are
// x's first `series` channels.
struct ForecastBatch {
  Tensor x, y;
};

// Language modelling: input [B, T] i32 ids, target [B, T] the next id at each position
// (kPad where nothing is scored: a document's start, the padding of a last block);
// `characters` [B·T] how many characters of the text each target stands for (1 per
// character; a word's length + 1 for its separator), for bits per character.
struct LmBatch {
  Tensor input, target;
  std::vector<std::int32_t> characters;
};

enum class TaskFamily { seq2seq, forecast, lm };

// One held-out example of a sequence task after decoding: ids without BOS, EOS or
// padding. `references` holds every correct target (G2P: each pronunciation of a word);
// a prediction is right if it equals any of them.
struct DecodedExample {
  std::vector<std::int32_t> source, prediction;
  std::vector<std::vector<std::int32_t>> references;
  // The references as text, as the data has them (a token unseen in training is an
  // <unk> id in `references`, but itself here): what text metrics and predictions.tsv use.
  std::vector<std::string> reference_texts;
};

enum class Split { validation, test };
const char* split_name(Split split);  // "validation" | "test"

class Task {
 public:
  virtual ~Task() = default;
  virtual TaskFamily family() const = 0;
  // The registry name ("copy", "forecast", ...), for error messages and reports.
  virtual std::string name() const { return "unnamed"; }

  // ---- sequence-to-sequence tasks
  // Vocabulary sizes including the special ids 0..2.
  virtual std::int64_t source_vocab() const { return 0; }
  virtual std::int64_t target_vocab() const { return 0; }
  // Longest source / target (with BOS or EOS) the task produces: models must accept it.
  virtual std::int64_t max_source_length() const { return 0; }
  virtual std::int64_t max_target_length() const { return 0; }
  // A fresh training batch drawn from `gen` (the trial's data stream).
  virtual Seq2SeqBatch train_batch(Generator& gen, std::int64_t batch_size) const;
  // A fixed held-out set, in batches of at most batch_size.
  virtual std::vector<Seq2SeqBatch> evaluation_batches(Split split, std::int64_t batch_size) const;
  // True when the test set's lengths differ from training's (length generalisation):
  // the runner then reports every test metric per source length as well
  // (<metric>_len<L>).
  virtual bool metrics_by_length() const { return false; }
  // Human-readable tokens of a row of ids (stops at EOS/PAD), for reports.
  virtual std::string detokenize(const std::int32_t* ids, std::int64_t n, bool target) const;
  // A new source given as text, as ids, tokenized as the task tokenizes its own sources
  // (what `ablate predict` decodes): the inverse of detokenize(…, target = false), no
  // BOS or EOS. A token without an id becomes <unk> where the task has one (text_pairs,
  // g2p: held-out data is treated alike); elsewhere it throws std::invalid_argument
  // naming the token.
  virtual std::vector<std::int32_t> tokenize_source(const std::string& text) const;
  // Every correct target of each example of a held-out split, in the order of
  // evaluation_batches. Default: the example's own target, alone.
  virtual std::vector<std::vector<std::vector<std::int32_t>>> references(Split split) const;
  // The same as text, as the data has them. Default: the references detokenized.
  virtual std::vector<std::vector<std::string>> reference_texts(Split split) const;
  // The task's own metrics of decoded held-out examples, beside the sequence accuracy
  // every sequence task has (g2p: phoneme and word error rates; text_pairs: CER, WER,
  // BLEU, chrF), with their standard errors where they have one. Default: none.
  virtual void score_decoded(const std::vector<DecodedExample>& examples,
                             std::map<std::string, double>& metrics,
                             std::map<std::string, double>& standard_errors) const;

  // ---- language modelling (vocabulary: target_vocab())
  // The training context length T.
  virtual std::int64_t context() const { return 0; }
  // Evaluation contexts as multiples of T: 1, 2, 4, ... up to this (≥ 1).
  virtual std::int64_t max_context_factor() const { return 1; }
  virtual LmBatch lm_train_batch(Generator& gen, std::int64_t batch_size) const;
  // The split's text in consecutive blocks of `context` tokens, every token scored once.
  virtual std::vector<LmBatch> lm_evaluation_batches(Split split, std::int64_t batch_size,
                                                     std::int64_t context) const;
  // Prompts for generated samples (the beginnings of a few test documents), as ids.
  virtual std::vector<std::vector<std::int32_t>> sample_prompts() const { return {}; }
  // A prompt given as text, as ids without the <bos> that starts a document, tokenized
  // as the training text is; a token unseen in training becomes <unk>.
  virtual std::vector<std::int32_t> tokenize_prompt(const std::string& text) const;

  // ---- forecasting tasks
  // series(): the target series, forecast; input_series(): the model's input channels,
  // the targets then the covariates (input-only).
  virtual std::int64_t series() const { return 0; }
  virtual std::int64_t input_series() const { return series(); }
  virtual std::int64_t lookback() const { return 0; }
  virtual std::int64_t horizon() const { return 0; }
  virtual ForecastBatch forecast_train_batch(Generator& gen, std::int64_t batch_size) const;
  virtual std::vector<ForecastBatch> forecast_evaluation_batches(Split split,
                                                                 std::int64_t batch_size) const;
  // Units, MASE scale and training part for the evaluation's metrics and baselines.
  virtual const ForecastContext* forecast_context() const { return nullptr; }
};

// Factories receive the options and the experiment's seed (the held-out splits and
// any synthetic data derive from it) plus the directory of the experiment file, so
// relative data paths ("data/pairs.tsv") resolve next to it. Errors about user data
// throw std::runtime_error naming the file and line.
using TaskRegistry = nn::Registry<Task, std::uint64_t /*seed*/, const std::string& /*base_dir*/>;
TaskRegistry& task_registry();

// ---- helpers shared by the task implementations (task.cpp)

// One example of a sequence task: unpadded token ids, without BOS/EOS.
struct SequencePair {
  std::vector<std::int32_t> source, target;
};

// Right-pads `rows` with kPad into an i32 [rows.size(), longest] tensor.
Tensor pad_sequences(const std::vector<std::vector<std::int32_t>>& rows);
// The batch layout of Seq2SeqBatch: src padded; tgt_in = BOS + target; tgt_out =
// target + EOS.
Seq2SeqBatch make_seq2seq_batch(const std::vector<SequencePair>& pairs);
// batch_size pairs drawn uniformly (with replacement) from `pairs` with `gen`; throws
// std::invalid_argument for batch_size < 1.
Seq2SeqBatch sample_seq2seq_batch(const std::vector<SequencePair>& pairs, Generator& gen,
                                  std::int64_t batch_size);
// `pairs` in order, cut into batches of at most batch_size (≥ 1).
std::vector<Seq2SeqBatch> make_seq2seq_batches(const std::vector<SequencePair>& pairs,
                                               std::int64_t batch_size);
// `path` resolved against the experiment file's directory (absolute paths unchanged);
// "data:<dataset>/<file>" names a file of `ablate data get` (experiments/data/).
std::string resolve_data_path(const std::string& base_dir, const std::string& path);

void register_symbolic_tasks(TaskRegistry&);  // copy, reverse, sort
void register_numbers_to_words_task(TaskRegistry&);
void register_forecast_task(TaskRegistry&);
void register_text_pairs_task(TaskRegistry&);
void register_g2p_task(TaskRegistry&);
void register_lm_task(TaskRegistry&);

}  // namespace ablate::experiments
