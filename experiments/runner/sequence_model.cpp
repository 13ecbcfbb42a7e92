#include "experiments/runner/sequence_model.h"

#include "nn/transformer/beam_search.h"

namespace ablate::experiments {

Var sequence_loss(TrialModel& model, const Seq2SeqBatch& batch, double label_smoothing) {
  if (model.decoder_only) {
    // The source positions' targets are <pad>: only the target positions count.
    const StreamBatch stream = make_stream_batch(batch, model.stream);
    return cross_entropy(model.decoder_only->forward(stream.input), stream.target, kPad, label_smoothing);
  }
  return cross_entropy(model.seq2seq->forward(batch.src, batch.tgt_in), batch.tgt_out, kPad, label_smoothing);
}

Tensor teacher_forced_logits(TrialModel& model, const Seq2SeqBatch& batch) {
  if (model.decoder_only) {
    const StreamBatch stream = make_stream_batch(batch, model.stream);
    return target_logits(model.decoder_only->forward(stream.input).value(), stream, batch.tgt_out.shape()[1]);
  }
  return model.seq2seq->forward(batch.src, batch.tgt_in).value();
}

Tensor decode_sources(TrialModel& model, const Tensor& src, std::int64_t max_len, std::int64_t beam_width) {
  if (model.decoder_only)
    return nn::beam_decode(*model.decoder_only, stream_prompts(src, model.stream), kBos, kEos, max_len, beam_width);
  return beam_width > 1 ? nn::beam_decode(*model.seq2seq, src, max_len, beam_width)
                        : model.seq2seq->greedy_decode(src, max_len);
}

}  // namespace ablate::experiments
