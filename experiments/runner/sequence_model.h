#pragma once
// What the runner asks of a sequence task's model, whichever kind it is — an
// encoder–decoder (model.kind = "seq2seq") or a decoder-only model reading one stream
// per example (model.kind = "decoder", experiments/tasks/decoder_stream.h) — so
// training, evaluation, predictions.tsv and `ablate predict` share one code path and
// compute the same metrics for both.
#include "experiments/models/model_factory.h"

namespace ablate::experiments {

// The teacher-forced cross-entropy of a batch, per target token (<eos> included, <pad>
// ignored), on the current tape.
Var sequence_loss(TrialModel& model, const Seq2SeqBatch& batch, double label_smoothing);

// The teacher-forced logits of a batch, [B, Tt, target_vocab] aligned with its tgt_out
// (no gradient is kept).
Tensor teacher_forced_logits(TrialModel& model, const Seq2SeqBatch& batch);

// The decoded targets of src [B, Ts] (task ids): [B, ≤ max_len] target ids, each row
// ending at its <eos>, then <pad>; max_len is cut to what the model holds
// (TrialModel::max_len). Greedy for beam_width 1, else beam search of that
// width (nn/transformer/beam_search.h).
Tensor decode_sources(TrialModel& model, const Tensor& src, std::int64_t max_len,
                      std::int64_t beam_width);

}  // namespace ablate::experiments
