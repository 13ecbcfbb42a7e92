#pragma once
// Differentiable operations. Every op records on Tape::current(), works in f32 and
// f64 (inputs must share one dtype), and is gradchecked in f64 by the table in
// tests/autograd/gradcheck_table_test.cpp.
//
// For each op: shapes, and what its backward keeps alive (beyond the node's inputs and
// output, which the tape holds anyway until reset()). Shapes use NumPy broadcasting
// where marked [bcast]. Masks are b8 tensors (nonzero = keep / allowed), indices and
// targets are i32 tensors; neither is differentiated.
#include <cstdint>
#include <span>
#include <vector>

#include "autograd/rng.h"
#include "autograd/tape.h"

namespace ablate {

inline Var constant(const Tensor& t) {
  return Tape::current().constant(t);
}
inline Var leaf(Parameter& p) {
  return Tape::current().leaf(p);
}
inline Var detach(const Var& x) {
  return Tape::current().detach(x);
}

// ---- elementwise, binary [bcast]: out = broadcast(a, b). Keeps: nothing extra.
Var add(const Var& a, const Var& b);
Var sub(const Var& a, const Var& b);
Var mul(const Var& a, const Var& b);
Var div(const Var& a, const Var& b);  // backward reads the output (a/b) and b

// ---- elementwise with a scalar: out has x's shape. Keeps: nothing extra.
Var add_scalar(const Var& x, double s);
Var mul_scalar(const Var& x, double s);
Var pow_scalar(const Var& x, double p);  // x^p; backward reads x

// ---- elementwise unary: out has x's shape. Keeps: nothing extra (reads x or out).
Var neg(const Var& x);
Var exp(const Var& x);
Var log(const Var& x);
Var sqrt(const Var& x);
Var abs(const Var& x);  // gradient sign(x), 0 at 0
Var tanh(const Var& x);
Var sigmoid(const Var& x);
Var relu(const Var& x);       // gradient 0 at 0
Var gelu_erf(const Var& x);   // x·Φ(x), exact (BERT, PyTorch default)
Var gelu_tanh(const Var& x);  // 0.5x(1 + tanh(√(2/π)(x + 0.044715x³))) (GPT-2)

// ---- matmul: a [..., M, K] · b [..., K, N] → [..., M, N], each operand optionally
// transposed in its last two dims (a stored [..., K, M] when trans_a). Leading dims
// must be equal, or one operand is rank 2 and is shared across the other's batch.
// A rank-2 b with an untransposed a of any rank is one GEMM over all rows.
// Keeps: nothing extra.
Var matmul(const Var& a, const Var& b, bool trans_a = false, bool trans_b = false);

// ---- linear (a fully connected layer): x [..., in] · weightᵀ + bias, weight [out, in],
// bias [out] or undefined → [..., out]. One GEMM over all rows, started from the bias
// rows, so a layer records one node and one output. Keeps: nothing extra.
Var linear(const Var& x, const Var& weight, const Var& bias = Var());
// relu(linear(x, weight, bias)) as one op (the ReLU feed-forward's first layer): the
// ReLU is applied in place, so one output instead of two. Keeps: nothing extra.
Var linear_relu(const Var& x, const Var& weight, const Var& bias = Var());

// ---- attention: multi-head scaled dot-product attention, fused, on the projections'
// layout: q [B, Tq, H·d_k], k [B, Tk, H·d_k], v [B, Tk, H·d_v] → [B, Tq, H·d_v], where
// head h owns columns h·d..(h+1)·d. Per head: softmax(scale · q kᵀ) v, restricted to
// `mask` (b8 [B, 1, Tq, Tk], true = allowed; undefined = all); a fully masked row gives
// zeros. No permute copies; the softmax runs in place. If `weights` is given it
// receives the attention weights [B, H, Tq, Tk] (arena memory, valid until reset).
// Keeps: the attention weights and the mask.
Var attention(const Var& q, const Var& k, const Var& v, std::int64_t heads,
              const Tensor& mask = Tensor(), double scale = 1.0, Tensor* weights = nullptr);

// ---- reductions over one axis (keepdim keeps it as size 1) or over everything.
Var sum(const Var& x);
Var sum(const Var& x, int axis, bool keepdim = false);
Var mean(const Var& x);
Var mean(const Var& x, int axis, bool keepdim = false);
// Maximum; the gradient goes to the first maximal element. Keeps: i32 argmax (out's size).
Var max(const Var& x);
Var max(const Var& x, int axis, bool keepdim = false);

// ---- shape. reshape shares x's buffer (one -1 dim is inferred); the others copy.
Var reshape(const Var& x, const Shape& shape);
Var reshape(const Var& x, std::initializer_list<std::int64_t> dims);  // may hold one -1
Var permute(const Var& x, std::span<const int> order);                // out[d] = x[order[d]]
Var permute(const Var& x, std::initializer_list<int> order);
Var transpose(const Var& x, int axis0, int axis1);
Var concat(std::span<const Var> xs, int axis);  // all dims but `axis` equal
Var concat(std::initializer_list<Var> xs, int axis);
Var slice(const Var& x, int axis, std::int64_t start, std::int64_t stop);  // [start, stop)

// ---- gather rows (embedding lookup): table [V, D], indices i32 [...] → [..., D].
// Rows equal to padding_index (if ≥ 0) receive no gradient. Keeps: the indices.
Var gather_rows(const Var& table, const Tensor& indices, std::int64_t padding_index = -1);

// ---- softmax over the last axis of scale·x, restricted to positions where `mask`
// (b8, broadcastable to x) is true. Masked positions give 0; a fully masked row is all
// zeros (never NaN). Stable for logits of ±1e4 (max subtracted). This is the fused
// masked scaled softmax of attention. Keeps: nothing extra (reads the output).
Var softmax(const Var& x, const Tensor& mask = Tensor(), double scale = 1.0);
// log of the above. Masked positions hold 0 (they are not part of the distribution);
// a fully masked row is all zeros. Keeps: the mask (reads the output).
Var log_softmax(const Var& x, const Tensor& mask = Tensor(), double scale = 1.0);

// ---- losses (one-element outputs)
// Fused log-softmax + NLL: logits [..., C], targets i32 [...]. Mean over targets ≠
// ignore_index (0 when all are ignored). With label smoothing ε the target
// distribution is (1-ε)·onehot + ε/C. Keeps: softmax probabilities ([..., C]), targets.
Var cross_entropy(const Var& logits, const Tensor& targets, std::int64_t ignore_index = -100,
                  double label_smoothing = 0.0);
// mean((a - b)²), a and b of one shape. Keeps: nothing extra.
Var mse(const Var& a, const Var& b);

// ---- dropout: zeroes each element with probability p and scales the rest by
// 1/(1-p) in training; the identity (no node) when !training or p == 0. Reproducible:
// draws come from `gen`. Keeps: the scaled keep-mask (x's size).
Var dropout(const Var& x, double p, bool training, Generator& gen);

// ---- layer_norm over the last axis D: (x - mean)/sqrt(var + eps)·gamma + beta.
// gamma, beta [D] (either may be undefined: no affine part). Fused forward and
// backward. Keeps: per-row mean and 1/std (2 × rows).
Var layer_norm(const Var& x, const Var& gamma, const Var& beta, double eps = 1e-5);

// ---- batch_norm over the rows of x [..., D] (rows = all leading dims, e.g. B·T
// tokens), per feature. row_mask (b8, one entry per row; undefined = all rows) selects
// the rows whose statistics count — padding tokens are excluded, unlike PyTorch's
// BatchNorm — but every row is normalised. Training uses the batch statistics (biased
// variance), needs at least 2 counted rows, and updates running_mean / running_var in
// place (unbiased variance, running = (1 - momentum)·running + momentum·batch); eval
// uses the running statistics. gamma, beta [D] may be undefined. Keeps: per-feature
// mean and 1/std, the row mask. `statistics`, when given, receives in training the
// batch statistics it normalised with (telemetry: nn/norms/batch_statistics_drift.h).
struct BatchStatistics {
  std::vector<double> mean, variance;  // per feature; the variance biased (1/n)
  std::int64_t rows = 0;               // the counted rows n
};
Var batch_norm(const Var& x, const Tensor& row_mask, const Var& gamma, const Var& beta,
               const Tensor& running_mean, const Tensor& running_var, bool training,
               double momentum = 0.1, double eps = 1e-5, BatchStatistics* statistics = nullptr);

// ---- selection
// x where mask is false, `value` where true (mask broadcastable to x). Keeps: the mask.
Var masked_fill(const Var& x, const Tensor& mask, double value);
// [bcast] cond ? a : b over the broadcast of cond, a and b. Keeps: cond.
Var where(const Tensor& cond, const Var& a, const Var& b);

// ---- x / max(‖x‖₂, eps) over the last axis (shared-QK attention keys). Keeps: the
// per-row norms.
Var l2_normalize(const Var& x, double eps = 1e-12);

// ---- operators
inline Var operator+(const Var& a, const Var& b) {
  return add(a, b);
}
inline Var operator-(const Var& a, const Var& b) {
  return sub(a, b);
}
inline Var operator*(const Var& a, const Var& b) {
  return mul(a, b);
}
inline Var operator/(const Var& a, const Var& b) {
  return div(a, b);
}
inline Var operator-(const Var& x) {
  return neg(x);
}
inline Var operator+(const Var& x, double s) {
  return add_scalar(x, s);
}
inline Var operator+(double s, const Var& x) {
  return add_scalar(x, s);
}
inline Var operator-(const Var& x, double s) {
  return add_scalar(x, -s);
}
inline Var operator-(double s, const Var& x) {
  return add_scalar(neg(x), s);
}
inline Var operator*(const Var& x, double s) {
  return mul_scalar(x, s);
}
inline Var operator*(double s, const Var& x) {
  return mul_scalar(x, s);
}
inline Var operator/(const Var& x, double s) {
  return mul_scalar(x, 1.0 / s);
}
inline Var operator/(double s, const Var& x) {
  return mul_scalar(pow_scalar(x, -1.0), s);
}

}  // namespace ablate
