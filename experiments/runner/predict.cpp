#include "experiments/runner/predict.h"

#include <algorithm>
#include <iostream>
#include <stdexcept>

#include "experiments/io/text_file.h"
#include "experiments/runner/lm_samples.h"
#include "experiments/runner/predictions.h"
#include "experiments/runner/sequence_model.h"
#include "experiments/runner/trained_trial.h"
#include "experiments/tasks/text_tokens.h"

namespace ablate::experiments {

namespace {

constexpr std::int64_t kDefaultLength = 200;  // as a trial's samples.txt

std::string at_line(const std::string& input_name, std::size_t index) {
  return input_name + ":" + std::to_string(index + 1) + ": ";
}

// The longest source the model takes: its max_len, and a learned position table's
// rows; a decoder-only model's stream holds the separator and the longest target too.
std::int64_t longest_source(const TrialConfig& c, const Task& task) {
  const nn::TransformerConfig& t = c.model.transformer;
  std::int64_t longest = t.max_len;
  if (t.positions.kind == "learned")
    longest = std::min(longest, t.positions.options.get_int("max_len"));
  if (c.model.kind == "decoder") longest -= 1 + task.max_target_length();
  return longest;
}

// Every line as source ids, checked before anything is decoded.
std::vector<std::vector<std::int32_t>> tokenize_sources(const TrainedTrial& t,
                                                        const std::vector<std::string>& lines,
                                                        const std::string& input_name) {
  const std::int64_t longest = longest_source(t.config, *t.task);
  const std::string limit = t.config.model.kind == "decoder"
                                ? std::to_string(longest) +
                                      ", what the decoder-only model's max_len = " +
                                      std::to_string(t.config.model.transformer.max_len) +
                                      " leaves beside the separator and the longest target"
                                : "the model's max_len = " + std::to_string(longest);
  std::vector<std::vector<std::int32_t>> sources;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::vector<std::int32_t> ids;
    try {
      ids = t.task->tokenize_source(lines[i]);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(at_line(input_name, i) + e.what());
    }
    if (ids.empty())
      throw std::invalid_argument(at_line(input_name, i) +
                                  "empty source (every line is one input)");
    if (std::int64_t(ids.size()) > longest)
      throw std::invalid_argument(at_line(input_name, i) + "the source has " +
                                  std::to_string(ids.size()) + " tokens, more than " + limit);
    sources.push_back(std::move(ids));
  }
  return sources;
}

// Decoded in batches of the trial's train.validation_batch, each bounded by the task's
// longest target: exactly as the evaluation decodes its test set.
std::vector<std::string> decode_lines(TrainedTrial& t,
                                      const std::vector<std::vector<std::int32_t>>& sources,
                                      std::optional<std::int64_t> beam) {
  NoGradGuard no_grad;
  Tape& tape = Tape::current();
  const std::int64_t max_len =
      std::min(t.task->max_target_length(), t.config.model.transformer.max_len);
  const std::size_t batch = std::size_t(std::max<std::int64_t>(1, t.config.train.validation_batch));
  std::vector<std::string> predictions;
  for (std::size_t first = 0; first < sources.size(); first += batch) {
    const std::vector<std::vector<std::int32_t>> rows(
        sources.begin() + std::ptrdiff_t(first),
        sources.begin() + std::ptrdiff_t(std::min(sources.size(), first + batch)));
    const Tensor src = pad_sequences(rows);
    const Tensor decoded = decode_sources(t.model, src, max_len, beam.value_or(1));
    tape.reset();
    const std::int64_t L = decoded.shape()[1];
    for (std::size_t row = 0; row < rows.size(); ++row) {
      std::vector<std::int32_t> ids;
      for (std::int64_t k = 0; k < L; ++k) {
        const std::int32_t id = std::int32_t(decoded.at(std::int64_t(row) * L + k));
        if (id == kEos || id == kPad) break;
        ids.push_back(id);
      }
      predictions.push_back(t.task->detokenize(ids.data(), std::int64_t(ids.size()), true));
    }
  }
  return predictions;
}

// Each prompt after <bos> (a document's start), continued as lm_samples continues
// the trial's prompts: with the same generator for a seed, prompt after prompt.
std::vector<std::string> continue_prompts(TrainedTrial& t, const std::vector<std::string>& lines,
                                          const PredictOptions& o) {
  Generator sampler = sample_generator(o.sample_seed.value_or(0));
  std::vector<std::string> continuations;
  for (const std::string& line : lines) {
    std::vector<std::int32_t> prompt{kBos};
    for (std::int32_t id : t.task->tokenize_prompt(line)) prompt.push_back(id);
    const std::vector<std::int32_t> ids =
        continue_prompt(*t.model.lm, t.task->context(), prompt, o.length.value_or(kDefaultLength),
                        o.greedy ? nullptr : &sampler);
    continuations.push_back(t.task->detokenize(ids.data(), std::int64_t(ids.size()), true));
  }
  return continuations;
}

// The symbols of `line` whose ids are <unk>: the line's characters, or its words, whichever
// the ids are one per (how the text tasks cut text, tasks/text_tokens.h); when neither,
// "<N unseen>" says how many. Nothing for a task without <unk> (it refuses unknown
// tokens), whose id kFirstToken is an ordinary token.
std::vector<std::string> unseen_symbols(const Task& task, const std::string& line,
                                        const std::vector<std::int32_t>& ids) {
  const std::int32_t first = kFirstToken;
  if (task.detokenize(&first, 1, false) != "<unk>") return {};
  std::vector<std::size_t> at;
  for (std::size_t k = 0; k < ids.size(); ++k)
    if (ids[k] == first) at.push_back(k);
  if (at.empty()) return {};
  std::vector<std::string> pieces = code_point_tokens(line);
  if (pieces.size() != ids.size()) pieces = whitespace_tokens(line);
  if (pieces.size() != ids.size()) {
    std::string count = "<";  // appended: GCC 12 warns (-Wrestrict) of "<" + std::string
    count += std::to_string(at.size()) + " unseen>";
    return {count};
  }
  std::vector<std::string> symbols;
  for (std::size_t k : at)
    if (std::find(symbols.begin(), symbols.end(), pieces[k]) == symbols.end())
      symbols.push_back(pieces[k]);
  return symbols;
}

}  // namespace

std::vector<std::string> unseen_symbols_report(const PredictionTable& table,
                                               const std::string& input_name) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < table.unseen.size(); ++i) {
    if (table.unseen[i].empty()) continue;
    std::string symbols;
    for (const std::string& s : table.unseen[i])
      symbols += (symbols.empty() ? "'" : ", '") + s + "'";
    out.push_back(at_line(input_name, i) + symbols + ": never seen in training, decoded as <unk>");
  }
  if (!out.empty())
    out.push_back(std::to_string(out.size()) + " of " + std::to_string(table.inputs.size()) +
                  " inputs contain symbols the model never saw (their outputs are decoded from "
                  "<unk>)");
  return out;
}

std::string PredictionTable::tsv() const {
  std::string out;
  for (std::size_t c = 0; c < columns.size(); ++c) {
    if (c) out += '\t';
    out += columns[c];
  }
  out += '\n';
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    out += std::to_string(i);
    out += '\t';
    out += tsv_field(inputs[i]);
    out += '\t';
    out += tsv_field(outputs[i]);
    out += '\n';
  }
  return out;
}

std::vector<std::string> read_input_lines(const std::string& path) {
  const char* format = "a predict input";
  try {
    const TextFile file = path == "-"
                              ? TextFile::read(std::cin, "<stdin>", kPredictInputMaxBytes, format)
                              : TextFile::read(path, kPredictInputMaxBytes, format);
    std::vector<std::string> lines;
    for (std::size_t i = 0; i < file.line_count(); ++i) lines.emplace_back(file.line(i));
    return lines;
  } catch (const std::runtime_error& e) {
    throw std::invalid_argument(e.what());  // bad input: exit 2, as the CLI maps it
  }
}

PredictionTable predict(const PredictOptions& o, const std::vector<std::string>& lines,
                        const std::string& input_name) {
  if (o.beam && *o.beam < 1) throw std::invalid_argument("--beam must be at least 1");
  if (o.length && *o.length < 1) throw std::invalid_argument("--length must be at least 1");
  TrainedTrial t = load_trained_trial(o.checkpoint, o.data_dir, o.plugins);
  kernels::MatmulPrecisionScope precision(
      matmul_precision_of(t.config));  // as it was trained and evaluated
  const TaskFamily family = t.task->family();
  const std::string task = "task '" + t.task->name() + "'";
  if (family == TaskFamily::forecast)
    throw std::invalid_argument(
        o.checkpoint + ": predict does not support forecasting (" + task +
        "): a forecast needs the series' recent history, not lines of text");
  PredictionTable table;
  table.inputs = lines;
  if (family == TaskFamily::seq2seq) {
    if (o.length || o.sample_seed || o.greedy)
      throw std::invalid_argument(
          "--length, --sample-seed and --greedy apply to language models; " + o.checkpoint +
          " is a sequence model (" + task + ", decoded greedily or with --beam N)");
    table.columns = {"id", "source", "prediction"};
    const std::vector<std::vector<std::int32_t>> sources = tokenize_sources(t, lines, input_name);
    for (std::size_t i = 0; i < lines.size(); ++i)
      table.unseen.push_back(unseen_symbols(*t.task, lines[i], sources[i]));
    table.outputs = decode_lines(t, sources, o.beam);
    return table;
  }
  if (o.beam)
    throw std::invalid_argument("--beam applies to sequence models; " + o.checkpoint +
                                " is a language model (" + task + ", sampled or --greedy)");
  if (o.greedy && o.sample_seed)
    throw std::invalid_argument("--sample-seed has no effect with --greedy (nothing is sampled)");
  table.columns = {"id", "prompt", "continuation"};
  for (const std::string& line : lines)
    table.unseen.push_back(unseen_symbols(*t.task, line, t.task->tokenize_prompt(line)));
  table.outputs = continue_prompts(t, lines, o);
  return table;
}

}  // namespace ablate::experiments
