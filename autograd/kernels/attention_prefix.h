#pragma once
// Fused attention (ops/attention.cpp) for one head when every query row sees only a
// prefix of the keys — causal masks, trailing padding, both, Reformer's exclude-self
// rule — computing only that prefix of each row instead of the whole score matrix:
// scores, softmax and the value product in the forward; dP, dS, dQ, dK and dV in the
// backward. f32 on the small_gemm kernel only; every output and gradient has the bits
// of the full computation (attention_prefix.cpp says how), and where it cannot promise
// that (non-finite inputs, products near overflow) it declines and the caller runs the
// full head.
#include <cstdint>
#include <vector>

namespace ablate::kernels {

// Whether fused attention takes this path. Off by default: bit-identical and tested,
// but not yet faster at the sizes measured (bench/kernels_bench.cpp,
// BM_CausalAttentionForwardBackward: about even at T = 64, slower at T = 10 and 32;
// the per-head bookkeeping costs what the skipped half saves). ABLATE_ATTENTION_PREFIX=1
// in the environment turns it on for every thread (for end-to-end checks:
// scripts/reproduce.sh); tests and benchmarks set it per thread.
void set_attention_prefix_path(bool on);
bool attention_prefix_path();
// Heads this thread computed on the prefix path so far, forward and backward (tests use
// it to show the path they compare was taken).
std::int64_t attention_prefix_heads();

// Query i's allowed keys all lie in [0, end[i]), end nondecreasing in i; query rows
// whose end exceeds key k are first_row[k] onwards (Tq when none).
struct KeyPrefixes {
  std::vector<std::int64_t> end, first_row;
};

// The prefixes of one batch element's mask rows [Tq, Tk]; false when the mask is not of
// that form or too little is masked to be worth it.
bool key_prefixes(const std::uint8_t* mask, std::int64_t Tq, std::int64_t Tk, KeyPrefixes& out);

struct AttentionHeadDims {
  std::int64_t Tq, Tk, dk, dv;
  std::int64_t ldq, ldv;  // row strides of q/k and v/output (H·d_k, H·d_v)
};

// True when the full computation runs all its per-head products on small_gemm (so its
// sums have small_gemm's order, which this path reproduces).
bool prefix_attention_fits(const AttentionHeadDims& d);

// One head: P [Tq, Tk] (contiguous) and Y (row stride ldv) written as the full
// computation writes them; mask holds the head's batch element's rows [Tq, Tk]. False,
// with nothing written, when the bits cannot be promised.
bool prefix_attention_forward(const AttentionHeadDims& d, const float* Q, const float* K,
                              const float* V, const std::uint8_t* mask, float scale,
                              const KeyPrefixes& prefixes, float* P, float* Y);

struct AttentionHeadGrads {
  float *dq = nullptr, *dk = nullptr, *dv = nullptr;  // null: not needed
  bool accumulate_q = false, accumulate_k = false, accumulate_v = false;
};

// One head's backward into g (in the full computation's order: dV, dQ, dK). dP is
// scratch [Tq, Tk] and dQ_scratch [Tq, dk]. False, with nothing written to g, when
// the bits cannot be promised.
bool prefix_attention_backward(const AttentionHeadDims& d, const float* Q, const float* K,
                               const float* V, const float* P, const float* G, float scale,
                               const KeyPrefixes& prefixes, float* dP, float* dQ_scratch,
                               const AttentionHeadGrads& g);

}  // namespace ablate::kernels
