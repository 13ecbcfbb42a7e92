#pragma once
// Greedy decoding one position at a time: per decoder layer, the self-attention keys and
// values of the positions decoded so far are kept, the cross-attention keys and values of
// the encoder memory are computed once, and step t computes the newest row alone —
// instead of running the decoder again over the whole prefix (O(L²) work).
//
// The tokens and logits must be the full recompute's, bit for bit (committed results are
// compared as text). That holds by construction only where the full recompute computes a
// row the same way whatever the prefix length, so it is limited to what was shown so
// (tests/nn/incremental_decode_test.cpp), and why_not_incremental() says why not for the
// rest, which then decodes by the full recompute:
//   - one decoder layer. Below the top layer the full recompute's own rows change bits
//     with the prefix length: oneDNN's sgemm runs another kernel for fewer than 16 rows
//     when N > 64 (the feed-forward's d_ff), and the fused attention's exp and row sums
//     group elements by where the row falls in the [T, T] block. Keys and values cached
//     from an earlier step would then differ from the ones the full recompute uses.
//   - rows of 16-float multiples (d_model, d_ff, d_k, d_v): Eigen's vectorised row
//     reductions (norms) and element functions (exp, tanh, erf) take another path for
//     elements outside an aligned 16-float packet; with such widths every row starts on
//     one, in either computation.
//   - K and V projections no wider than 64 (H·d_k, H·d_v): small_gemm and oneDNN give
//     those rows the same bits at every M (measured, and checked by the test), so a key
//     cached at step j is the one step t's full recompute computes with B·(t+1) rows.
//   - the fused attention path in evaluation (fixed scale, no rotary or ALiBi positions,
//     no telemetry or capture), positions added to the embeddings or none, f32 on oneDNN
//     with f32 products, and a model in evaluation mode (no dropout draws).
#include <cstdint>
#include <string>
#include <vector>

#include <functional>

#include "autograd/ops.h"
#include "nn/transformer/row_plan.h"

namespace ablate::nn {

class Seq2SeqTransformer;
class MultiHeadAttention;
class Norm;

// Which method greedy decodings took, and the first reason the incremental one was not
// taken ("" while it always was): a run can say which path its decoding ran on.
struct DecodePathRecord {
  std::int64_t incremental = 0, full_recompute = 0;  // decodings since construction
  std::string why_not_incremental;
};

// nullptr when `model` decodes incrementally with the full recompute's bits, else why not.
const char* why_not_incremental(Seq2SeqTransformer& model);

class IncrementalDecoder {
 public:
  // src [B, Ts] ids, memory [B, Ts, D] the encoder's output (kept by value: it must
  // outlive the decoding tape's resets). Up to max_len steps.
  IncrementalDecoder(Seq2SeqTransformer& model, const Tensor& src, const Tensor& memory,
                     std::int64_t max_len);
  // prefix [B, T] row-major (BOS, then the tokens so far; the previous call had T - 1):
  // the logits [B, V] of the position after it, on the current tape.
  Tensor step(const std::vector<std::int32_t>& prefix, std::int64_t T);

 private:
  struct Cache {  // [B, max_len, H·d] keys and values of one attention, row-major
    std::vector<float> keys, values;
    std::int64_t key_width = 0, value_width = 0, rows = 0;  // rows per batch element
  };
  Var self_attend(const Var& x, const std::vector<std::int32_t>& prefix, std::int64_t T);
  Var cross_attend(const Var& x, std::int64_t T);
  // The plan for the newest rows (b·T + T - 1) of the full recompute's [B·T] rows.
  RowPlan newest_rows_plan(std::int64_t T, const std::vector<GemmShape>& shapes) const;
  // f's newest rows [B, 1, ·] with the full recompute's bits: f (whose products have
  // `shapes`) runs on rows for which kernels::gemm picks the kernels B·T rows got.
  Var rows_as_in_full(const std::function<Var(const Var&)>& f, const Var& x, std::int64_t T,
                      const std::vector<GemmShape>& shapes);
  // A norm of the newest rows [B, 1, D] with the full recompute's bits (see the .cpp).
  Var normalize(Norm& norm, const Var& x, const Tensor& row_mask, std::int64_t T);
  // The attention's heads [B, 1, H·d_v] through its output projection, if any.
  Var output_rows(MultiHeadAttention& a, const Tensor& heads, std::int64_t T);

  Seq2SeqTransformer& model_;
  std::int64_t B_, Ts_, max_len_;
  Tensor src_mask_;  // b8 [B, Ts], owned
  Cache self_, cross_;
};

}  // namespace ablate::nn
