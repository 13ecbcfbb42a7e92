// The fused attention's prefix path (kernels/attention_prefix.h: rows that see only a
// prefix of the keys compute only that) gives every output and gradient the bits of
// the full computation, which stays as the reference behind
// kernels::set_attention_prefix_path(false). Compared bit for bit over a table of
// shapes (T up to 130, d_k and d_v from 1 to 64), masks (causal, with padding, with
// Reformer's exclude-self rule, padding alone, an empty sequence), scales, inputs that
// are fresh, accumulated into or shared (q = k = v), and values built to reach the
// path's rare corrections (zero upstream rows, results that underflow to −0).
#include <catch2/catch.hpp>

#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "autograd/ablate.h"
#include "autograd/kernels/attention_prefix.h"

using namespace ablate;

namespace {

enum class MaskKind { causal, causal_padded, causal_padded_exclude_self, padded };

struct Case {
  std::int64_t B, H, T, dk, dv;
  MaskKind mask;
  double scale;
  int inputs;           // 0: fresh gradient buffers, 1: accumulated into, 2: q = k = v
  bool underflows;      // tiny values so some sums end at −0, zero rows of the upstream gradient
  std::int64_t Tk = 0;  // keys (cross-attention); 0: T, as self-attention
  std::int64_t keys() const { return Tk ? Tk : T; }
  int poison = 0;  // an infinity in 1: q, 2: k, 3: v, 4: the upstream gradient
};

std::string describe(const Case& c) {
  return "B=" + std::to_string(c.B) + " H=" + std::to_string(c.H) + " T=" + std::to_string(c.T) +
         " Tk=" + std::to_string(c.keys()) + " dk=" + std::to_string(c.dk) +
         " dv=" + std::to_string(c.dv) + " mask=" + std::to_string(int(c.mask)) +
         " scale=" + std::to_string(c.scale) + " inputs=" + std::to_string(c.inputs) +
         " poison=" + std::to_string(c.poison) + " underflows=" + std::to_string(c.underflows);
}

// As nn/attention/multi_head_attention.cpp's build_mask: allowed(b, i, j) = j < length_b
// && (causal: j <= i); exclude-self drops j == i when the row allows another key.
Tensor make_mask(const Case& c) {
  const std::int64_t Tk = c.keys();
  Tensor m = Tensor::zeros({c.B, 1, c.T, Tk}, DType::b8);
  for (std::int64_t b = 0; b < c.B; ++b) {
    std::int64_t length = c.mask == MaskKind::causal ? Tk : (Tk * (b + 1)) / (c.B + 1);
    if (b == 1) length = 0;  // an empty sequence: fully masked rows
    for (std::int64_t i = 0; i < c.T; ++i) {
      std::int64_t others = 0;
      for (std::int64_t j = 0; j < Tk; ++j) {
        bool allowed = j < length && (c.mask == MaskKind::padded || j <= i);
        m.set((b * c.T + i) * Tk + j, allowed);
        others += allowed && j != i;
      }
      if (c.mask == MaskKind::causal_padded_exclude_self && i < Tk && others > 0)
        m.set((b * c.T + i) * Tk + i, 0);
    }
  }
  return m;
}

struct Result {
  std::vector<Tensor> tensors;  // output, weights, dq, dk, dv
};

Tensor input(Generator& g, const Shape& s, const Case& c, std::uint64_t column_pattern) {
  Tensor t = randn(s, g, DType::f32, 0.0, c.underflows ? 1e-3 : 1.0);
  if (!c.underflows) return t;
  // Column 0 of every head: the smallest subnormal, negative for the first half of the
  // positions and positive after, so short chains underflow to −0 and the tail's +0
  // products would flip them.
  const std::int64_t T = s[1], width = s[2];
  const float tiny = std::numeric_limits<float>::denorm_min();
  for (std::int64_t b = 0; b < s[0]; ++b)
    for (std::int64_t t2 = 0; t2 < T; ++t2)
      for (std::int64_t col = 0; col < width; col += width / c.H)
        t.set((b * T + t2) * width + col + std::int64_t(column_pattern % 2),
              t2 < T / 2 ? -tiny : tiny);
  return t;
}

Result run(const Case& c, bool prefix_path) {
  const bool saved_setting = kernels::attention_prefix_path();
  kernels::set_attention_prefix_path(prefix_path);
  Generator g(std::uint64_t(c.T * 131 + c.dk * 7 + c.dv + c.B * 1000 + int(c.mask) * 17));
  Parameter q(input(g, {c.B, c.T, c.H * c.dk}, c, 0)),
      k(input(g, {c.B, c.keys(), c.H * c.dk}, c, 0)),
      v(input(g, {c.B, c.keys(), c.H * c.dv}, c, 0));
  Tensor upstream = randn({c.B, c.T, c.H * c.dv}, g);
  if (c.underflows)  // zero rows: every prefix term of their dot is zero
    for (std::int64_t r = 0; r < c.B * c.T; r += 3)
      for (std::int64_t col = 0; col < c.H * c.dv; ++col) upstream.set(r * c.H * c.dv + col, 0.0);
  if (c.poison) {  // where the full computation multiplies it by a skipped zero: the first
    // query of the empty sequence (b = 1: q, upstream), the last key of b = 0 (k, v)
    Tensor& t = c.poison == 1   ? q.value
                : c.poison == 2 ? k.value
                : c.poison == 3 ? v.value
                                : upstream;
    const std::int64_t T = t.shape()[1], at = c.poison == 1 || c.poison == 4 ? T : T - 1;
    t.set(at * t.shape()[2], std::numeric_limits<double>::infinity());
  }
  Tensor extra = randn({c.B, c.T, c.H * c.dk}, g), extra_k = randn({c.B, c.keys(), c.H * c.dk}, g);
  Tensor mask = make_mask(c);
  Tape& tape = Tape::current();
  Tensor weights;
  Var y;
  if (c.inputs == 2) {
    Var x = tape.leaf(q);
    y = attention(x, x, x, c.H, mask, c.scale, &weights);
    tape.backward(y, upstream);
  } else if (c.inputs == 1) {  // gradients already hold a contribution when attention's arrive
    Var xq = tape.leaf(q), xk = tape.leaf(k), xv = tape.leaf(v);
    y = attention(xq, xk, xv, c.H, mask, c.scale, &weights);
    Var loss = sum(y * tape.constant(upstream)) + sum(xq * tape.constant(extra)) +
               sum(xk * tape.constant(extra_k));
    tape.backward(loss);
  } else {  // fresh buffers: the inputs are intermediate nodes, read directly (a Parameter's
            // gradient is added to +0, which would hide the sign of a zero)
    Var xq = tape.leaf(q) * 1.0, xk = tape.leaf(k) * 1.0, xv = tape.leaf(v) * 1.0;
    for (const Var& x : {xq, xk, xv}) tape.retain_grad(x);
    y = attention(xq, xk, xv, c.H, mask, c.scale, &weights);
    tape.backward(y, upstream);
    Result r{{y.value().clone(), weights.clone(), xq.grad().clone(), xk.grad().clone(),
              xv.grad().clone()}};
    tape.reset();
    kernels::set_attention_prefix_path(saved_setting);
    return r;
  }
  Result r{{y.value().clone(), weights.clone(), q.grad.clone(), k.grad.clone(), v.grad.clone()}};
  tape.reset();
  kernels::set_attention_prefix_path(saved_setting);
  return r;
}

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.numel() == b.numel() &&
         std::memcmp(a.raw(), b.raw(), std::size_t(a.numel()) * sizeof(float)) == 0;
}

void check_case(const Case& c) {
  INFO(describe(c));
  Result reference = run(c, false);
  Result prefix = run(c, true);
  const char* names[] = {"output", "weights", "dq", "dk", "dv"};
  for (std::size_t t = 0; t < reference.tensors.size(); ++t) {
    INFO(names[t]);
    CHECK(same_bits(prefix.tensors[t], reference.tensors[t]));
  }
}

}  // namespace

TEST_CASE("attention's prefix path gives the full computation's bits", "[unit][attention]") {
  const std::int64_t lengths[] = {1, 2, 3, 5, 9, 15, 16, 17, 31, 33, 47, 48, 63, 64, 65, 100, 130};
  const std::int64_t dims[] = {1, 2, 4, 8, 16, 32, 64};
  const double scales[] = {0.125, 1.3, -0.7, 0.5};
  const std::int64_t before = kernels::attention_prefix_heads();
  int n = 0;
  for (std::int64_t T : lengths)
    for (std::size_t di = 0; di < std::size(dims); ++di)
      for (int m = 0; m < 4; ++m) {
        Case c{1 + n % 3,
               1 + (n / 3) % 4,
               T,
               dims[di],
               dims[(di + std::size_t(m)) % std::size(dims)],
               MaskKind(m),
               scales[std::size_t(n) % std::size(scales)],
               n % 3,
               n % 5 == 4};
        if (c.inputs == 2) c.dv = c.dk;  // q = k = v
        check_case(c);
        ++n;
      }
  // The comparison above means something only if the prefix path ran.
  CHECK(kernels::attention_prefix_heads() - before > 1000);
}

TEST_CASE("attention's prefix path: sums that end at -0 and zero upstream rows keep their bits",
          "[unit][attention]") {
  const std::int64_t before = kernels::attention_prefix_heads();
  for (std::int64_t T : {6, 17, 40, 64})
    for (std::int64_t d : {1, 4, 16})
      for (int inputs = 0; inputs < 3; ++inputs)
        for (MaskKind m : {MaskKind::causal, MaskKind::causal_padded_exclude_self})
          check_case(Case{2, 2, T, d, d, m, 0.25, inputs, true});
  CHECK(kernels::attention_prefix_heads() - before > 100);
}

TEST_CASE("attention's prefix path: cross-attention with padded keys keeps its bits",
          "[unit][attention]") {
  const std::int64_t before = kernels::attention_prefix_heads();
  const std::int64_t queries[] = {5, 17, 40, 64}, keys[] = {9, 33, 64, 48};
  for (std::size_t t = 0; t < std::size(queries); ++t)
    for (std::int64_t d : {2, 16})
      for (int inputs = 0; inputs < 2; ++inputs)
        for (MaskKind m : {MaskKind::padded, MaskKind::causal_padded})
          check_case(Case{3, 2, queries[t], d, 2 * d, m, 0.3, inputs, false, keys[t]});
  CHECK(kernels::attention_prefix_heads() - before > 50);
}

TEST_CASE(
    "attention's prefix path: an infinity the skipped zeros would multiply is left to the "
    "full computation",
    "[unit][attention]") {
  for (int poison = 1; poison <= 4; ++poison)
    for (std::int64_t T : {20, 64})
      for (int inputs = 0; inputs < 2; ++inputs)
        check_case(Case{2, 2, T, 16, 16, MaskKind::causal, 0.25, inputs, false, 0, poison});
}
