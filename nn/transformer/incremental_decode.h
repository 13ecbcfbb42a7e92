#pragma once
// Greedy decoding one position at a time: the cross-attention keys and values of the
// encoder memory are computed once, and at step t the top decoder layer, the final norm
// and the output projection compute the newest position alone. With one decoder layer
// the self-attention keys and values of the positions already decoded are kept too, so a
// step computes one row per batch element and nothing else (O(L) work in all, not O(L²)).
// Below the top layer of a deeper decoder, the layers run on every row, as the full
// recompute runs them, and the top layer's keys and values are projected from those rows
// at every step: there the full recompute's own rows change bits with the prefix length
// (see self_keys_cacheable in the .cpp), so no kept key could be its.
//
// The tokens and logits must be the full recompute's, bit for bit (committed results are
// compared as text). Each newest row is computed on the kernel and in the memory layout
// the full recompute gives it: products by row_plan.h (the GEMM kernel its B·T rows got),
// attention by attention_row.h (the fused op's exp and sums, element for element), norms
// on the full recompute's rows where they are not row-stable. why_not_incremental() names
// what this does not cover, which then decodes by the full recompute:
//   - widths that are not 16-float multiples (d_model, d_ff, d_k, d_v): Eigen's
//     vectorised row reductions and element functions (exp, tanh, erf) take another path
//     for elements outside an aligned 16-float packet; with such widths every row starts
//     on one, in either computation;
//   - anything but the fused attention path in evaluation (a learned scale, rotary or
//     ALiBi positions, telemetry or capture), positions acting inside attention, other
//     dtypes than f32, another GEMM backend than oneDNN, bf16 products, and a model in
//     training mode (dropout draws).
// tests/nn/incremental_decode_test.cpp decodes both ways over a matrix of models.
#include <cstdint>
#include <string>
#include <vector>

#include <functional>

#include "autograd/ops.h"
#include "nn/transformer/decode_path_record.h"
#include "nn/transformer/row_plan.h"

namespace ablate::nn {

class Seq2SeqTransformer;
class MultiHeadAttention;
class Norm;

// nullptr when `model` decodes incrementally with the full recompute's bits, else why not.
const char* why_not_incremental(Seq2SeqTransformer& model);

// The decoding state of one batch; Seq2SeqTransformer::greedy_decode uses it.
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
  // The newest rows (b·T + T - 1) of the full recompute's [B·T] rows, and their plan.
  std::vector<std::int64_t> newest_positions(std::int64_t T) const;
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
  bool cache_self_keys_;  // else the top layer's keys are projected from all rows each step
  Tensor memory_;         // [B, Ts, D], owned
  Tensor src_mask_;       // b8 [B, Ts], owned
  Cache self_, cross_;    // self_ holds keys only when cache_self_keys_
  Var self_input_;        // without the cache: the top self-attention's input, every row
};

}  // namespace ablate::nn
