// The one table that gradchecks every differentiable op in f64 (error ≤ 1e-6), on
// random shapes, broadcasting, masks and edge cases, and compares f32 against f64.
// The last test fails if any differentiable OpKind in autograd/op_kind.h was not
// recorded by some case here, so a new op cannot be added without a gradcheck.
#include <catch2/catch.hpp>
#include <functional>
#include <string>
#include <vector>

#include "autograd/ablate.h"

using namespace ablate;

namespace {

struct OpCase {
  std::string name;
  // Builds the f64 inputs (differentiated) from a seeded generator.
  std::function<std::vector<Tensor>(Generator&)> inputs;
  std::function<Var(std::span<const Var>)> f;
  double f32_tolerance = 2e-3;  // f32 vs f64 agreement (relative, absolute below 1)
};

Tensor normal(Generator& g, Shape s) {
  return randn(s, g, DType::f64);
}
// Values in [lo, hi] with a random sign: keeps inputs away from kinks at 0.
Tensor away_from_zero(Generator& g, Shape s, double lo = 0.2, double hi = 1.5) {
  Tensor t = rand_uniform(s, g, DType::f64, lo, hi);
  for (std::int64_t i = 0; i < t.numel(); ++i)
    if (g.uniform() < 0.5) t.set(i, -t.at(i));
  return t;
}
Tensor positive(Generator& g, Shape s) {
  return rand_uniform(s, g, DType::f64, 0.5, 2.0);
}
// A random shape of rank 1..4 with dims 1..4.
Shape random_shape(Generator& g) {
  int rank = 1 + int(g.next_u64() % 4);
  std::array<std::int64_t, 4> d{};
  for (int i = 0; i < rank; ++i) d[i] = 1 + std::int64_t(g.next_u64() % 4);
  return Shape(std::span<const std::int64_t>(d.data(), std::size_t(rank)));
}
Tensor mask(Shape s, std::initializer_list<int> bits) {
  std::vector<double> v(bits.begin(), bits.end());
  return Tensor::from_data(s, v, DType::b8);
}
Tensor indices(Shape s, std::initializer_list<std::int32_t> v) {
  return Tensor::from_data(s, std::span<const std::int32_t>(v.begin(), v.size()));
}

using Inputs = std::vector<Tensor>;
#define ONE(expr) [](Generator& g) { return Inputs{expr}; }
#define TWO(a, b) [](Generator& g) { return Inputs{a, b}; }
#define THREE(a, b, c) [](Generator& g) { return Inputs{a, b, c}; }
#define FN(body) [](std::span<const Var> x) -> Var { return body; }

std::vector<OpCase> op_table() {
  std::vector<OpCase> t = {
      // binary, same shape and broadcast both ways
      {"add", TWO(normal(g, {3, 4}), normal(g, {3, 4})), FN(x[0] + x[1])},
      {"add broadcast", TWO(normal(g, {2, 3, 4}), normal(g, {3, 1})), FN(x[0] + x[1])},
      {"add rank-0", TWO(normal(g, {2, 3}), normal(g, {})), FN(x[1] + x[0])},
      {"sub broadcast", TWO(normal(g, {4, 3}), normal(g, {3})), FN(x[0] - x[1])},
      {"mul broadcast", TWO(normal(g, {2, 1, 3}), normal(g, {4, 1})), FN(x[0] * x[1])},
      {"mul same var", ONE(normal(g, {5})), FN(x[0] * x[0])},
      {"div broadcast", TWO(normal(g, {2, 3}), positive(g, {2, 1})), FN(x[0] / x[1])},
      {"div negative", TWO(normal(g, {3}), away_from_zero(g, {3})), FN(x[0] / x[1])},
      // scalar variants
      {"neg", ONE(normal(g, random_shape(g))), FN(-x[0])},
      {"add_scalar", ONE(normal(g, random_shape(g))), FN(x[0] + 2.5)},
      {"rsub_scalar", ONE(normal(g, {3})), FN(1.0 - x[0])},
      {"mul_scalar", ONE(normal(g, random_shape(g))), FN(x[0] * -3.0)},
      {"pow_scalar cube", ONE(normal(g, {2, 3})), FN(pow_scalar(x[0], 3.0))},
      {"pow_scalar -1.5", ONE(positive(g, {4})), FN(pow_scalar(x[0], -1.5))},
      {"rdiv_scalar", ONE(positive(g, {4})), FN(2.0 / x[0])},
      // unary
      {"exp", ONE(normal(g, random_shape(g))), FN(exp(x[0]))},
      {"log", ONE(positive(g, random_shape(g))), FN(log(x[0]))},
      {"sqrt", ONE(positive(g, random_shape(g))), FN(sqrt(x[0]))},
      {"abs", ONE(away_from_zero(g, random_shape(g))), FN(abs(x[0]))},
      {"tanh", ONE(normal(g, random_shape(g))), FN(tanh(x[0]))},
      {"sigmoid", ONE(normal(g, random_shape(g))), FN(sigmoid(x[0]))},
      {"relu", ONE(away_from_zero(g, random_shape(g))), FN(relu(x[0]))},
      {"gelu_erf", ONE(normal(g, random_shape(g))), FN(gelu_erf(x[0]))},
      {"gelu_tanh", ONE(normal(g, random_shape(g))), FN(gelu_tanh(x[0]))},
      // linear: with and without bias, rank 2 and 3 inputs
      {"linear", THREE(normal(g, {3, 4}), normal(g, {5, 4}), normal(g, {5})),
       FN(linear(x[0], x[1], x[2]))},
      {"linear batch", THREE(normal(g, {2, 3, 4}), normal(g, {5, 4}), normal(g, {5})),
       FN(linear(x[0], x[1], x[2]))},
      {"linear no bias", TWO(normal(g, {2, 3, 4}), normal(g, {2, 4})), FN(linear(x[0], x[1]))},
      // inputs kept small so no pre-activation sits within gradcheck's step of 0
      {"linear_relu", THREE(normal(g, {4, 3}), normal(g, {5, 3}), away_from_zero(g, {5}, 0.5, 1.5)),
       FN(linear_relu(x[0] * 0.1, x[1] * 0.1, x[2]))},
      {"linear_relu no bias", TWO(away_from_zero(g, {2, 3, 2}), away_from_zero(g, {3, 2})),
       FN(linear_relu(x[0], x[1]))},
      // One input feeding several ops: the first backward to reach its gradient
      // writes the buffer, the others add (BackwardContext::input_grad_slot).
      {"gradient written then accumulated", ONE(away_from_zero(g, {3, 3})),
       FN(relu(x[0]) + transpose(x[0], 0, 1) + softmax(x[0]) + matmul(x[0], x[0]) +
          reshape(reshape(x[0], {9}), {3, 3}) + layer_norm(x[0], Var(), Var()) +
          linear(x[0], x[0], Var()) + exp(x[0]) * x[0])},
      // fused attention: 2 heads, d_k != d_v, Tq != Tk, a mask with a fully masked row,
      // no mask, and q = k = v (self-attention without projections)
      {"attention masked", THREE(normal(g, {2, 3, 4}), normal(g, {2, 2, 4}), normal(g, {2, 2, 6})),
       FN(attention(x[0], x[1], x[2], 2,
                    mask({2, 1, 3, 2}, {1, 0, 1, 1, 0, 0, 1, 1, 0, 1, 1, 0}), 0.7))},
      {"attention unmasked", THREE(normal(g, {1, 4, 2}), normal(g, {1, 3, 2}), normal(g, {1, 3, 2})),
       FN(attention(x[0], x[1], x[2], 1, Tensor(), 1.3))},
      {"attention q = k = v", ONE(normal(g, {2, 3, 4})), FN(attention(x[0], x[0], x[0], 2))},
      // matmul: plain, one-GEMM batch, all transpose flags, shared operands
      {"matmul", TWO(normal(g, {3, 4}), normal(g, {4, 5})), FN(matmul(x[0], x[1]))},
      {"matmul batch x rank2", TWO(normal(g, {2, 3, 4}), normal(g, {4, 5})),
       FN(matmul(x[0], x[1]))},
      {"matmul trans_b", TWO(normal(g, {2, 3, 4}), normal(g, {5, 4})),
       FN(matmul(x[0], x[1], false, true))},
      {"matmul trans_a batch", TWO(normal(g, {2, 4, 3}), normal(g, {4, 5})),
       FN(matmul(x[0], x[1], true, false))},
      {"matmul trans both", TWO(normal(g, {2, 2, 4, 3}), normal(g, {2, 2, 5, 4})),
       FN(matmul(x[0], x[1], true, true))},
      {"matmul rank2 x batch", TWO(normal(g, {3, 4}), normal(g, {2, 4, 5})),
       FN(matmul(x[0], x[1]))},
      // large enough (M + N + K > 20) to take the blocked-GEMM path, not the lazy product
      {"matmul gemm path", TWO(normal(g, {2, 7, 9}), normal(g, {9, 11})), FN(matmul(x[0], x[1]))},
      {"matmul gemm path trans_a", TWO(normal(g, {2, 9, 7}), normal(g, {9, 11})),
       FN(matmul(x[0], x[1], true, false))},
      {"matmul gemm path trans both", TWO(normal(g, {9, 12}), normal(g, {2, 11, 9})),
       FN(matmul(x[0], x[1], true, true))},
      {"matmul attention scores", TWO(normal(g, {2, 3, 5, 4}), normal(g, {2, 3, 6, 4})),
       FN(matmul(x[0], x[1], false, true))},
      // reductions
      {"sum all", ONE(normal(g, random_shape(g))), FN(sum(x[0]))},
      {"sum axis keepdim", ONE(normal(g, {2, 3, 4})), FN(sum(x[0], 1, true))},
      {"sum last axis", ONE(normal(g, {3, 4})), FN(sum(x[0], -1))},
      {"mean all", ONE(normal(g, random_shape(g))), FN(mean(x[0]))},
      {"mean axis", ONE(normal(g, {2, 3, 4})), FN(mean(x[0], 0))},
      {"max all", ONE(normal(g, {3, 4})), FN(max(x[0]))},
      {"max axis", ONE(normal(g, {2, 5, 3})), FN(max(x[0], 1))},
      {"max axis keepdim", ONE(normal(g, {4, 3})), FN(max(x[0], -1, true))},
      // shape
      {"reshape", ONE(normal(g, {2, 3, 4})), FN(reshape(x[0], {4, -1}) * reshape(x[0], {4, 6}))},
      {"permute", ONE(normal(g, {2, 3, 4})), FN(permute(x[0], {2, 0, 1}))},
      {"permute rank4", ONE(normal(g, {2, 3, 2, 4})), FN(permute(x[0], {0, 2, 1, 3}))},
      {"transpose", ONE(normal(g, {3, 5})), FN(transpose(x[0], 0, 1))},
      {"concat", [](Generator& g) { return Inputs{normal(g, {2, 1, 3}), normal(g, {2, 2, 3}), normal(g, {2, 3, 3})}; },
       FN(concat({x[0], x[1], x[2]}, 1))},
      {"concat last", TWO(normal(g, {2, 3}), normal(g, {2, 2})), FN(concat({x[0], x[1]}, -1))},
      {"slice", ONE(normal(g, {3, 5, 2})), FN(slice(x[0], 1, 1, 4))},
      {"slice empty", ONE(normal(g, {3, 2})), FN(sum(slice(x[0], 0, 1, 1)) + sum(x[0]))},
      // gather: repeated indices accumulate; the padding row gets no gradient (its
      // outputs are zeroed too, so the numeric gradient agrees)
      {"gather_rows", ONE(normal(g, {5, 3})),
       FN(gather_rows(x[0], indices({2, 3}, {1, 4, 1, 0, 2, 4})))},
      {"gather_rows padding",
       ONE(normal(g, {4, 3})), FN(masked_fill(gather_rows(x[0], indices({5}, {0, 2, 0, 3, 2}), 0),
                                              mask({5, 1}, {1, 0, 1, 0, 0}), 0.0))},
      // softmax family: plain, scaled, broadcast mask with a fully masked row, huge logits
      {"softmax", ONE(normal(g, {3, 5})), FN(softmax(x[0]))},
      {"softmax scaled", ONE(normal(g, {2, 4})), FN(softmax(x[0], Tensor(), 0.125))},
      {"softmax causal mask", ONE(normal(g, {2, 3, 3})),
       FN(softmax(x[0], mask({3, 3}, {1, 0, 0, 1, 1, 0, 1, 1, 1})))},
      {"softmax padding mask + empty row", ONE(normal(g, {2, 2, 3})),
       FN(softmax(x[0], mask({2, 1, 3}, {1, 1, 0, 0, 0, 0}), 0.5))},
      {"softmax logits 1e4", ONE(normal(g, {2, 4})), FN(softmax(x[0] * 1.0 + 1e4)),
       5e-2},  // f32 cannot represent 1e4 + x finely; f64 gradcheck is the real check
      {"log_softmax", ONE(normal(g, {3, 5})), FN(log_softmax(x[0]))},
      {"log_softmax mask + empty row", ONE(normal(g, {3, 4})),
       FN(log_softmax(x[0], mask({3, 4}, {1, 1, 0, 1, 0, 0, 0, 0, 0, 1, 1, 1}), 2.0))},
      // losses
      {"cross_entropy", ONE(normal(g, {4, 5})),
       FN(cross_entropy(x[0], indices({4}, {0, 3, 4, 1})))},
      {"cross_entropy ignore + smoothing", ONE(normal(g, {2, 3, 4})),
       FN(cross_entropy(x[0], indices({2, 3}, {0, -100, 3, 2, -100, 1}), -100, 0.1))},
      {"cross_entropy all ignored", ONE(normal(g, {2, 3})),
       FN(cross_entropy(x[0], indices({2}, {-1, -1}), -1) + sum(x[0]))},
      {"mse", TWO(normal(g, {3, 4}), normal(g, {3, 4})), FN(mse(x[0], x[1]))},
      // dropout: the generator is seeded inside f, so each evaluation drops the same units
      {"dropout", ONE(normal(g, {4, 6})),
       [](std::span<const Var> x) {
         Generator gen(7);
         return dropout(x[0], 0.3, true, gen);
       }},
      // norms
      {"layer_norm affine", [](Generator& g) { return Inputs{normal(g, {2, 3, 5}), normal(g, {5}), normal(g, {5})}; },
       FN(layer_norm(x[0], x[1], x[2]))},
      {"layer_norm plain", ONE(normal(g, {4, 6})), FN(layer_norm(x[0], Var(), Var()))},
      {"layer_norm gamma only", TWO(normal(g, {3, 4}), normal(g, {4})),
       FN(layer_norm(x[0], x[1], Var(), 1e-3))},
      // batch_norm: statistics over the unmasked rows only (row 2 and 5 are padding),
      // in training; fixed running statistics in eval
      {"batch_norm train masked", [](Generator& g) { return Inputs{normal(g, {2, 3, 4}), normal(g, {4}), normal(g, {4})}; },
       [](std::span<const Var> x) {
         Tensor rm = Tensor::zeros({4}, x[0].dtype()), rv = Tensor::ones({4}, x[0].dtype());
         return batch_norm(x[0], mask({2, 3}, {1, 1, 0, 1, 1, 0}), x[1], x[2], rm, rv, true);
       }},
      {"batch_norm train plain", ONE(normal(g, {5, 3})),
       [](std::span<const Var> x) {
         Tensor rm = Tensor::zeros({3}, x[0].dtype()), rv = Tensor::ones({3}, x[0].dtype());
         return batch_norm(x[0], Tensor(), Var(), Var(), rm, rv, true, 0.1, 1e-3);
       }},
      {"batch_norm eval", TWO(normal(g, {4, 3}), normal(g, {3})),
       [](std::span<const Var> x) {
         Tensor rm = Tensor::full({3}, 0.3, x[0].dtype()), rv = Tensor::full({3}, 2.0, x[0].dtype());
         return batch_norm(x[0], Tensor(), x[1], Var(), rm, rv, false);
       }},
      {"l2_normalize", ONE(away_from_zero(g, {3, 4})), FN(l2_normalize(x[0]))},
      // selection
      {"masked_fill", ONE(normal(g, {2, 3})),
       FN(masked_fill(x[0], mask({3}, {0, 1, 0}), -7.0))},
      {"where broadcast", TWO(normal(g, {2, 3}), normal(g, {3})),
       FN(where(mask({2, 1}, {1, 0}), x[0], x[1]))},
      {"where same shape", TWO(normal(g, {4}), normal(g, {4})),
       FN(where(mask({4}, {1, 0, 0, 1}), x[0], x[1]))},
      // composites, as the models will use them
      {"attention head", [](Generator& g) { return Inputs{normal(g, {2, 4, 8}), normal(g, {8, 8}), normal(g, {8, 8})}; },
       [](std::span<const Var> x) {
         Var q = matmul(x[0], x[1]), k = matmul(x[0], x[2]);
         Var p = softmax(matmul(q, k, false, true), mask({4, 4}, {1, 0, 0, 0, 1, 1, 0, 0, 1, 1, 1, 0, 1, 1, 1, 1}), 1.0 / std::sqrt(8.0));
         return layer_norm(matmul(p, x[0]) + x[0], Var(), Var());
       }},
      // activation recomputation: x[0] is an intermediate (its gradient starts in the
      // recompute), x[1] a leaf used after it too (its gradient is added onto)
      {"checkpoint", TWO(normal(g, {3, 4}), normal(g, {4, 4})),
       [](std::span<const Var> x) {
         Var in[] = {x[0] * 1.5, x[1]};
         Var y = checkpoint([](std::span<const Var> v) { return tanh(matmul(v[0], v[1])) + v[0]; }, in);
         return y * sum(x[1]);
       }},
  };
  return t;
}

// Runs a case with its inputs converted to `dtype`; returns the output and the input
// gradients of Σ output (an all-ones upstream gradient).
std::pair<Tensor, std::vector<Tensor>> run_in(DType dtype, const OpCase& c,
                                              const std::vector<Tensor>& in64) {
  Tape tape;
  TapeScope scope(tape);
  std::vector<Parameter> params;
  for (const Tensor& t : in64) params.emplace_back(t.to(dtype));
  std::vector<Var> vars;
  for (Parameter& p : params) vars.push_back(tape.leaf(p));
  Var out = c.f(vars);
  Tensor value = out.value().clone();
  if (out.requires_grad()) tape.backward(out, Tensor::ones(out.shape(), dtype));
  std::vector<Tensor> grads;
  for (Parameter& p : params) grads.push_back(p.grad.clone());
  return {value, grads};
}

bool agree(const Tensor& f32, const Tensor& f64, double tol) {
  if (!(f32.shape() == f64.shape())) return false;
  for (std::int64_t i = 0; i < f32.numel(); ++i) {
    double a = f32.at(i), b = f64.at(i);
    if (!(std::abs(a - b) <= tol * std::max(1.0, std::abs(b)))) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("every op passes an f64 gradcheck (error <= 1e-6) on the table's cases", "[gradcheck]") {
  for (const OpCase& c : op_table()) {
    for (std::uint64_t seed : {1u, 2u, 3u}) {
      Generator g(seed);
      std::vector<Tensor> inputs = c.inputs(g);
      GradcheckResult r = gradcheck(c.f, inputs, {.seed = seed});
      INFO(c.name << " (seed " << seed << "): " << r.message);
      CHECK(r.ok);
    }
  }
}

TEST_CASE("every op agrees between f32 and f64, forward and backward", "[dtype]") {
  for (const OpCase& c : op_table()) {
    Generator g(11);
    std::vector<Tensor> inputs = c.inputs(g);
    auto [y32, g32] = run_in(DType::f32, c, inputs);
    auto [y64, g64] = run_in(DType::f64, c, inputs);
    INFO(c.name);
    CHECK(y32.dtype() == DType::f32);
    CHECK(agree(y32, y64, c.f32_tolerance));
    for (std::size_t i = 0; i < g32.size(); ++i) CHECK(agree(g32[i], g64[i], c.f32_tolerance));
  }
}

TEST_CASE("the gradcheck table covers every differentiable op kind", "[gradcheck]") {
  std::bitset<kOpKindCount> seen;
  for (const OpCase& c : op_table()) {
    Generator g(1);
    std::vector<Tensor> inputs = c.inputs(g);
    seen |= gradcheck(c.f, inputs).op_kinds;
  }
  for (std::size_t k = 0; k < kOpKindCount; ++k) {
    OpKind kind = OpKind(k);
    if (!op_is_differentiable(kind)) continue;
    INFO("op kind '" << op_name(kind) << "' has no case in the gradcheck table");
    CHECK(seen.test(k));
  }
}
