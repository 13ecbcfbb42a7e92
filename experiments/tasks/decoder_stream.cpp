#include "experiments/tasks/decoder_stream.h"

namespace ablate::experiments {

namespace {

// Row `row` of a right-padded [B, T] id tensor without its padding.
std::vector<std::int32_t> unpadded_row(const Tensor& ids, std::int64_t row) {
  const std::int64_t T = ids.shape()[1];
  std::vector<std::int32_t> out;
  for (std::int64_t t = 0; t < T && ids.at(row * T + t) != kPad; ++t)
    out.push_back(std::int32_t(ids.at(row * T + t)));
  return out;
}

}  // namespace

std::int32_t StreamVocabulary::source_offset() const {
  return shared ? 0 : std::int32_t(target_vocab - kFirstToken);
}

// Shared: the one vocabulary (source_vocab = target_vocab); else the target ids, then
// the source tokens after them.
std::int64_t StreamVocabulary::size() const {
  return source_offset() + source_vocab;
}

std::int32_t StreamVocabulary::stream_id(std::int32_t id) const {
  return id >= kFirstToken ? id + source_offset() : id;
}

std::int32_t StreamVocabulary::source_id(std::int32_t id) const {
  return id >= kFirstToken ? id - source_offset() : id;
}

StreamVocabulary stream_vocabulary(const Task& task, bool share_embeddings) {
  return {task.source_vocab(), task.target_vocab(), share_embeddings};
}

std::int64_t longest_stream(const Task& task) {
  // max_target_length counts the target and its <eos>; the separator is one more.
  return task.max_source_length() + 1 + task.max_target_length();
}

StreamBatch make_stream_batch(const Seq2SeqBatch& batch, const StreamVocabulary& vocab) {
  const std::int64_t B = batch.src.shape()[0];
  std::vector<std::vector<std::int32_t>> inputs(static_cast<std::size_t>(B)),
      targets(static_cast<std::size_t>(B));
  StreamBatch out;
  for (std::int64_t b = 0; b < B; ++b) {
    std::vector<std::int32_t>& input = inputs[std::size_t(b)];
    std::vector<std::int32_t>& target = targets[std::size_t(b)];
    for (std::int32_t id : unpadded_row(batch.src, b)) input.push_back(vocab.stream_id(id));
    out.target_start.push_back(std::int64_t(input.size()));
    target.assign(input.size(), kPad);
    const std::vector<std::int32_t> in = unpadded_row(batch.tgt_in, b),
                                    next = unpadded_row(batch.tgt_out, b);
    input.insert(input.end(), in.begin(), in.end());
    target.insert(target.end(), next.begin(), next.end());
  }
  out.input = pad_sequences(inputs);
  out.target = pad_sequences(targets);
  return out;
}

Tensor stream_prompts(const Tensor& src, const StreamVocabulary& vocab) {
  Tensor out = Tensor::empty(src.shape(), DType::i32);
  for (std::int64_t i = 0, n = src.numel(); i < n; ++i)
    out.set(i, vocab.stream_id(std::int32_t(src.at(i))));
  return out;
}

Tensor target_logits(const Tensor& stream_logits, const StreamBatch& stream,
                     std::int64_t target_length) {
  const std::int64_t B = stream_logits.shape()[0], L = stream_logits.shape()[1],
                     V = stream_logits.shape()[2];
  Tensor out = Tensor::zeros({B, target_length, V}, stream_logits.dtype());
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t t = 0; t < target_length && stream.target_start[std::size_t(b)] + t < L;
         ++t) {
      const std::int64_t from = (b * L + stream.target_start[std::size_t(b)] + t) * V,
                         to = (b * target_length + t) * V;
      for (std::int64_t v = 0; v < V; ++v) out.set(to + v, stream_logits.at(from + v));
    }
  return out;
}

}  // namespace ablate::experiments
