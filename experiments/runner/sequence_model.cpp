#include "experiments/runner/sequence_model.h"

#include <algorithm>

#include "nn/transformer/beam_search.h"

namespace ablate::experiments {

Var sequence_loss(TrialModel& model, const Seq2SeqBatch& batch, double label_smoothing) {
  if (model.decoder_only) {
    // The source positions' targets are <pad>: only the target positions count.
    const StreamBatch stream = make_stream_batch(batch, model.stream);
    return cross_entropy(model.decoder_only->forward(stream.input), stream.target, kPad,
                         label_smoothing);
  }
  return cross_entropy(model.seq2seq->forward(batch.src, batch.tgt_in), batch.tgt_out, kPad,
                       label_smoothing);
}

Tensor teacher_forced_logits(TrialModel& model, const Seq2SeqBatch& batch) {
  if (model.decoder_only) {
    const StreamBatch stream = make_stream_batch(batch, model.stream);
    return target_logits(model.decoder_only->forward(stream.input).value(), stream,
                         batch.tgt_out.shape()[1]);
  }
  return model.seq2seq->forward(batch.src, batch.tgt_in).value();
}

Tensor decode_sources(TrialModel& model, const Tensor& src, std::int64_t max_len,
                      std::int64_t beam_width) {
  // Never past what the model holds: a seq2seq decoder reads <bos> + the tokens so far
  // (at most max_len positions); a decoder-only model the prompt (source and <bos>)
  // before them.
  if (model.max_len > 0) {
    const std::int64_t prompt = model.decoder_only ? src.shape()[1] + 1 : 1;
    max_len = std::min(max_len, std::max<std::int64_t>(0, model.max_len - prompt + 1));
  }
  if (model.decoder_only)
    return nn::beam_decode(*model.decoder_only, stream_prompts(src, model.stream), kBos, kEos,
                           max_len, beam_width);
  return beam_width > 1 ? nn::beam_decode(*model.seq2seq, src, max_len, beam_width)
                        : model.seq2seq->greedy_decode(src, max_len);
}

}  // namespace ablate::experiments
