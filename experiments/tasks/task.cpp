// The "task" registry, the defaults of the Task interface (a sequence task asked for
// forecast windows, or the reverse, is a bug in the caller: std::logic_error), and the
// batch layout every sequence task shares.
#include "experiments/tasks/task.h"

#include "experiments/data/data_cache.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

namespace ablate::experiments {

TaskRegistry& task_registry() {
  static TaskRegistry registry = [] {
    TaskRegistry r("task");
    register_symbolic_tasks(r);
    register_numbers_to_words_task(r);
    register_forecast_task(r);
    register_text_pairs_task(r);
    register_g2p_task(r);
    register_lm_task(r);
    return r;
  }();
  return registry;
}

// ---- defaults of the Task interface

namespace {
[[noreturn]] void not_sequence(const Task& t) {
  throw std::logic_error("task '" + t.name() + "' is not a sequence task");
}
[[noreturn]] void not_forecast(const Task& t) {
  throw std::logic_error("task '" + t.name() + "' is not a forecasting task");
}
}  // namespace

Seq2SeqBatch Task::train_batch(Generator&, std::int64_t) const {
  not_sequence(*this);
}
std::vector<Seq2SeqBatch> Task::evaluation_batches(Split, std::int64_t) const {
  not_sequence(*this);
}
std::string Task::detokenize(const std::int32_t*, std::int64_t, bool) const {
  not_sequence(*this);
}
std::vector<std::vector<std::vector<std::int32_t>>> Task::references(Split split) const {
  std::vector<std::vector<std::vector<std::int32_t>>> out;
  for (const Seq2SeqBatch& b : evaluation_batches(split, 256)) {
    const std::int64_t B = b.tgt_out.shape()[0], T = b.tgt_out.shape()[1];
    for (std::int64_t row = 0; row < B; ++row) {
      std::vector<std::int32_t> target;
      for (std::int64_t t = 0; t < T; ++t) {
        const std::int32_t id = std::int32_t(b.tgt_out.at(row * T + t));
        if (id == kEos || id == kPad) break;
        target.push_back(id);
      }
      out.push_back({std::move(target)});
    }
  }
  return out;
}
std::vector<std::vector<std::string>> Task::reference_texts(Split split) const {
  std::vector<std::vector<std::string>> out;
  for (const auto& alternatives : references(split)) {
    out.emplace_back();
    for (const auto& r : alternatives)
      out.back().push_back(detokenize(r.data(), std::int64_t(r.size()), true));
  }
  return out;
}
std::vector<std::int32_t> Task::tokenize_source(const std::string&) const {
  not_sequence(*this);
}
void Task::score_decoded(const std::vector<DecodedExample>&, std::map<std::string, double>&,
                         std::map<std::string, double>&) const {}
LmBatch Task::lm_train_batch(Generator&, std::int64_t) const {
  throw std::logic_error("task '" + name() + "' is not a language-modelling task");
}
std::vector<LmBatch> Task::lm_evaluation_batches(Split, std::int64_t, std::int64_t) const {
  throw std::logic_error("task '" + name() + "' is not a language-modelling task");
}
std::vector<std::int32_t> Task::tokenize_prompt(const std::string&) const {
  throw std::logic_error("task '" + name() + "' is not a language-modelling task");
}
ForecastBatch Task::forecast_train_batch(Generator&, std::int64_t) const {
  not_forecast(*this);
}
std::vector<ForecastBatch> Task::forecast_evaluation_batches(Split, std::int64_t) const {
  not_forecast(*this);
}

// ---- helpers

const char* split_name(Split split) {
  return split == Split::validation ? "validation" : "test";
}

Tensor pad_sequences(const std::vector<std::vector<std::int32_t>>& rows) {
  std::size_t width = 0;
  for (const auto& r : rows) width = std::max(width, r.size());
  std::vector<std::int32_t> flat(rows.size() * width, kPad);
  for (std::size_t b = 0; b < rows.size(); ++b)
    std::copy(rows[b].begin(), rows[b].end(), flat.begin() + std::ptrdiff_t(b * width));
  return Tensor::from_data({std::int64_t(rows.size()), std::int64_t(width)},
                           std::span<const std::int32_t>(flat));
}

Seq2SeqBatch make_seq2seq_batch(const std::vector<SequencePair>& pairs) {
  std::vector<std::vector<std::int32_t>> src, tgt_in, tgt_out;
  src.reserve(pairs.size());
  tgt_in.reserve(pairs.size());
  tgt_out.reserve(pairs.size());
  for (const SequencePair& p : pairs) {
    src.push_back(p.source);
    tgt_in.push_back({kBos});
    tgt_in.back().insert(tgt_in.back().end(), p.target.begin(), p.target.end());
    tgt_out.push_back(p.target);
    tgt_out.back().push_back(kEos);
  }
  return {pad_sequences(src), pad_sequences(tgt_in), pad_sequences(tgt_out)};
}

Seq2SeqBatch sample_seq2seq_batch(const std::vector<SequencePair>& pairs, Generator& gen,
                                  std::int64_t batch_size) {
  if (batch_size < 1)
    throw std::invalid_argument("batch size must be at least 1, got " + std::to_string(batch_size));
  std::vector<SequencePair> batch;
  for (std::int64_t i = 0; i < batch_size; ++i)
    batch.push_back(pairs[std::size_t(uniform_index(gen, std::int64_t(pairs.size())))]);
  return make_seq2seq_batch(batch);
}

std::vector<Seq2SeqBatch> make_seq2seq_batches(const std::vector<SequencePair>& pairs,
                                               std::int64_t batch_size) {
  if (batch_size < 1)
    throw std::invalid_argument("batch size must be at least 1, got " + std::to_string(batch_size));
  std::vector<Seq2SeqBatch> out;
  for (std::size_t i = 0; i < pairs.size(); i += std::size_t(batch_size)) {
    std::size_t end = std::min(pairs.size(), i + std::size_t(batch_size));
    out.push_back(make_seq2seq_batch(
        {pairs.begin() + std::ptrdiff_t(i), pairs.begin() + std::ptrdiff_t(end)}));
  }
  return out;
}

std::string resolve_data_path(const std::string& base_dir, const std::string& path) {
  if (is_dataset_reference(path)) return resolve_dataset_reference(path);
  std::filesystem::path p(path);
  if (p.is_absolute() || base_dir.empty()) return p.string();
  return (std::filesystem::path(base_dir) / p).string();
}

}  // namespace ablate::experiments
