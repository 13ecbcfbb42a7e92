#pragma once
// Beam search decoding for Seq2SeqTransformer, beside its greedy_decode, and for a
// DecoderLanguageModel continuing prompts (a decoder-only model of a sequence task).
//
// What beam_decode(model, src, max_len, width, length_penalty) computes, per source row:
//
//   Hypotheses  a token sequence after BOS, scored by the sum of its tokens' log-
//               probabilities (log-softmax of the last position's logits, in double,
//               max-subtracted). The search starts from the empty hypothesis.
//   Expansion   every live hypothesis is extended by every vocabulary token (pad and
//               BOS included, as greedy_decode allows them). The candidates are ranked
//               by raw score; among the `width` best, those ending in EOS are finished
//               (EOS included in their tokens). The `width` best candidates that do
//               not end in EOS become the next live beam. So an EOS candidate that
//               does not rank in the top `width` is dropped, not finished — which
//               makes width 1 exactly greedy_decode (as fairseq's search does).
//   Ties        ranking is a strict total order: higher score, then the earlier beam
//               (the better-ranked parent), then the lower token id; among finished
//               hypotheses of equal final score, the one finished first (the shorter,
//               then the better-ranked) wins. Results are bit-identical across runs.
//   Final score of a finished hypothesis Y: its raw score divided by GNMT's length
//               penalty lp(Y) = ((5 + |Y|) / 6)^length_penalty (Wu et al. 2016), |Y|
//               counting EOS. The default length_penalty 0 gives lp = 1: no length
//               normalisation, raw sums of log-probs are compared.
//   Stopping    a row stops when `width` hypotheses have finished, or when its best
//               finished final score is at least the best that any live hypothesis
//               could still reach (raw scores only fall as tokens are added, so the
//               bound is the best live raw score over the most favourable lp of a
//               longer hypothesis), or after max_len tokens.
//   Result      the best finished hypothesis; if none finished within max_len, the
//               best live one (max_len tokens, no EOS).
//
// Returns i32 ids [B, longest result ≤ max_len], like greedy_decode: tokens after BOS,
// each row ending at its EOS, then pad. No gradient. Each step decodes all B × width
// hypotheses in one decode call (the encoder memory and the source mask replicated per
// beam; rows of finished sources and missing hypotheses are filler), on a per-thread
// tape of its own reset between steps, so the current tape is untouched.
#include <cstdint>

#include "nn/transformer/transformer_models.h"

namespace ablate::nn {

Tensor beam_decode(Seq2SeqTransformer& model, const Tensor& src, std::int64_t max_len,
                   std::int64_t width, double length_penalty = 0.0);

// The same search for a decoder-only model: each row of `prompts` (i32 [B, Tp],
// right-padded with the model's pad) is followed by `bos` and the hypothesis's tokens,
// so row b·W + k reads prompt_b, bos, hypothesis k — positions counted from the
// prompt's first token, whatever the padding. V is the model's output_vocab(). Width 1
// is greedy decoding (the argmax at every step, ties to the lower id). Each step
// re-runs the model on every whole stream (no key-value cache).
Tensor beam_decode(DecoderLanguageModel& model, const Tensor& prompts, std::int32_t bos,
                   std::int32_t eos, std::int64_t max_len, std::int64_t width,
                   double length_penalty = 0.0);

}  // namespace ablate::nn
