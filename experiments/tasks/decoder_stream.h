#pragma once
// How a decoder-only model (model.kind = "decoder") reads an example of a sequence task:
// one stream, positions counted from its start,
//
//   source tokens · <bos> · target tokens · <eos>
//
// The separator is <bos>, so the part after the source is exactly the seq2seq
// decoder's input (tgt_in = <bos> + target) and its next tokens are tgt_out (target +
// <eos>). The model reads the stream without its final <eos> (which is only predicted)
// and is trained on the target positions alone: the source positions' targets are
// <pad>, which the loss ignores, so the loss is per target token (<eos> included) as
// seq2seq's is.
//
// One input vocabulary: target ids keep their own ids (0..target_vocab-1: the specials,
// then the target tokens), and source tokens (ids >= kFirstToken) are shifted past them
// by target_vocab - kFirstToken, so a source and a target token never share an
// embedding — unless model.share_embeddings (equal vocabularies, e.g. copy) keeps
// source ids as they are. The model's output is the target vocabulary only, the classes
// seq2seq predicts.
#include <cstdint>
#include <vector>

#include "experiments/tasks/task.h"

namespace ablate::experiments {

struct StreamVocabulary {
  std::int64_t source_vocab = 0, target_vocab = 0;  // the task's (target: the output classes)
  bool shared = false;                              // source ids kept as they are

  std::int32_t source_offset() const;  // added to source ids >= kFirstToken
  std::int64_t size() const;           // the input vocabulary
  std::int32_t stream_id(std::int32_t source_id) const;
  std::int32_t source_id(std::int32_t stream_id) const;  // the inverse, for a source position
};

StreamVocabulary stream_vocabulary(const Task& task, bool share_embeddings);

// The longest stream of the task, <eos> included: what model.max_len must cover.
std::int64_t longest_stream(const Task& task);

// A Seq2SeqBatch as streams: input [B, L] (source, <bos>, target; right-padded) and
// target [B, L] (<pad> on the source, then target + <eos>); target_start[b] is where
// row b's tgt_out begins in it (its source length).
struct StreamBatch {
  Tensor input, target;
  std::vector<std::int64_t> target_start;
};
StreamBatch make_stream_batch(const Seq2SeqBatch& batch, const StreamVocabulary& vocab);

// The sources of src [B, Ts] in stream ids (right-padded as given): the prompts a
// decoder-only model continues after <bos>.
Tensor stream_prompts(const Tensor& src, const StreamVocabulary& vocab);

// A stream model's logits [B, L, V] at the target positions, [B, Tt, V] aligned with
// the batch's tgt_out (rows past a row's stream are 0; their targets are <pad>).
Tensor target_logits(const Tensor& stream_logits, const StreamBatch& stream,
                     std::int64_t target_length);

}  // namespace ablate::experiments
