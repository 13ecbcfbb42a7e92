#pragma once
// `ablate predict CHECKPOINT INPUT`: a trained trial's model applied to new inputs,
// one a line. A sequence task's lines are sources, tokenized as the task tokenizes
// its own (Task::tokenize_source) and decoded greedily — as the trial's evaluation
// decodes its test set, so the test sources give the predictions of its
// predictions.tsv — or with beam search. A language model's lines are prompts,
// continued by sampled (or greedy) tokens as its samples.txt is. Forecasting is not
// supported: a forecast needs the series' recent history, not text.
//
// Output, a TSV with a header (fields escaped as predictions.tsv escapes them):
//   sequence tasks:   id<TAB>source<TAB>prediction
//   language models:  id<TAB>prompt<TAB>continuation
// id is the input's 0-based line index; source and prompt are the lines as given.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ablate::experiments {

struct PredictOptions {
  std::string checkpoint;  // a trial's checkpoint.safetensors
  std::string data_dir;    // where relative data paths resolve ("" = as the trial resolved them)
  // --plugin files: the only plugins loaded; the checkpoint's config must name each
  // plugin it needs among them, by SHA-256 (runner/checkpoint_plugins.h).
  std::vector<std::string> plugins;
  // Sequence tasks: beam search of this width (≥ 1) instead of greedy decoding.
  std::optional<std::int64_t> beam;
  // Language models: tokens generated after each prompt (≥ 1; default 200).
  std::optional<std::int64_t> length;
  // Language models: the sampler's seed, --sample-seed (default 0); the prompts continue
  // one generator, as a trial's samples do. (--seed names a trial: predict_target.h.)
  std::optional<std::uint64_t> sample_seed;
  bool greedy = false;  // language models: the most likely token at each step instead
};

struct PredictionTable {
  std::vector<std::string>
      columns;  // {"id", "source", "prediction"} or {"id", "prompt", "continuation"}
  std::vector<std::string> inputs, outputs;  // per input line
  // Per input line: the symbols (characters or words, as the task cuts its text) the
  // model never saw in training, each decoded as <unk>. Empty where the task has no
  // <unk> (it refuses such a line instead) or the line has none.
  std::vector<std::vector<std::string>> unseen;
  std::string tsv() const;  // the header, then one escaped row per input
};

// One line per input with unseen symbols ("in.txt:2: 'é', 'ß' never seen in training,
// decoded as <unk>"), then a count of such inputs; nothing when there are none. What
// `ablate predict` prints on stderr, so that a prediction made from <unk> is not
// mistaken for one made from the text.
std::vector<std::string> unseen_symbols_report(const PredictionTable& table,
                                               const std::string& input_name);

// The lines of `path` ("-" = standard input, "<stdin>" in messages) without line
// terminators (\n or \r\n) or a leading UTF-8 byte order mark, read and checked by
// the shared text reader (experiments/io/text_file.h): a regular file of at most
// 64 MiB (standard input too), UTF-8 without NUL bytes. Anything else — a missing
// file, a device or FIFO, invalid UTF-8 at path:line:byte — throws
// std::invalid_argument.
std::vector<std::string> read_input_lines(const std::string& path);

// Decodes every line; `input_name` names them in errors ("in.txt:3: ..."). Bad input
// (see load_trained_trial; an option that does not apply to the model; a line that
// does not tokenize or is longer than the model's max_len; a forecasting trial)
// throws std::invalid_argument or ConfigError before anything is decoded.
PredictionTable predict(const PredictOptions& options, const std::vector<std::string>& lines,
                        const std::string& input_name);

}  // namespace ablate::experiments
