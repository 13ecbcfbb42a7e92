// Throughput of the row kernels the attention layers lean on: masked scaled softmax
// and fused LayerNorm, forward and forward + backward, f32. "bytes" counts one read of
// the input and one write of the output per pass. Also fused causal attention forward +
// backward with the prefix path (kernels/attention_prefix.h) on and off.
#include <benchmark/benchmark.h>

#include <cmath>

#include "autograd/ablate.h"
#include "autograd/kernels/attention_prefix.h"
#include "bench/bench_util.h"

using namespace ablate;

namespace {

// Attention scores [B·H, T, T] with a causal mask, as in a decoder layer.
void BM_SoftmaxForward(benchmark::State& state) {
  std::int64_t rows = state.range(0), T = state.range(1);
  Generator g(0);
  Tensor x = randn({rows, T, T}, g);
  Tensor causal = Tensor::zeros({T, T}, DType::b8);
  for (std::int64_t i = 0; i < T; ++i)
    for (std::int64_t j = 0; j <= i; ++j) causal.set(i * T + j, 1);
  Tape& tape = Tape::current();
  NoGradGuard no_grad;
  for (auto _ : state) {
    benchmark::DoNotOptimize(softmax(tape.constant(x), causal, 0.125).value().raw());
    tape.reset();
  }
  state.SetBytesProcessed(state.iterations() * x.numel() * 8);
  state.SetItemsProcessed(state.iterations() * x.numel());
}
BENCHMARK(BM_SoftmaxForward)->Args({128, 64})->Args({32, 16});

void BM_SoftmaxForwardBackward(benchmark::State& state) {
  std::int64_t rows = state.range(0), T = state.range(1);
  Generator g(0);
  Parameter x(randn({rows, T, T}, g));
  Tensor upstream = randn({rows, T, T}, g);
  Tape& tape = Tape::current();
  for (auto _ : state) {
    tape.backward(softmax(tape.leaf(x), Tensor(), 0.125), upstream);
    tape.reset();
  }
  state.SetItemsProcessed(state.iterations() * x.value.numel());
}
BENCHMARK(BM_SoftmaxForwardBackward)->Args({128, 64})->Args({32, 16});

void BM_LayerNormForward(benchmark::State& state) {
  std::int64_t rows = state.range(0), D = state.range(1);
  Generator g(0);
  Tensor x = randn({rows, D}, g);
  Parameter gamma(Tensor::ones({D})), beta(Tensor::zeros({D}));
  Tape& tape = Tape::current();
  NoGradGuard no_grad;
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        layer_norm(tape.constant(x), tape.leaf(gamma), tape.leaf(beta)).value().raw());
    tape.reset();
  }
  state.SetBytesProcessed(state.iterations() * x.numel() * 8);
  state.SetItemsProcessed(state.iterations() * x.numel());
}
BENCHMARK(BM_LayerNormForward)->Args({1024, 256})->Args({320, 32});

void BM_LayerNormForwardBackward(benchmark::State& state) {
  std::int64_t rows = state.range(0), D = state.range(1);
  Generator g(0);
  Parameter x(randn({rows, D}, g)), gamma(Tensor::ones({D})), beta(Tensor::zeros({D}));
  Tensor upstream = randn({rows, D}, g);
  Tape& tape = Tape::current();
  for (auto _ : state) {
    tape.backward(layer_norm(tape.leaf(x), tape.leaf(gamma), tape.leaf(beta)), upstream);
    tape.reset();
  }
  state.SetItemsProcessed(state.iterations() * x.value.numel());
  bench::report_peak_rss(state);
}
BENCHMARK(BM_LayerNormForwardBackward)->Args({1024, 256})->Args({320, 32});

// Fused causal self-attention forward + backward: args batch, T, d_model, heads, whether
// the causal rows compute only their prefix (1: kernels/attention_prefix.h) or the full
// score matrix (0: the reference computation), and 1 for the forward alone. Quickstart's
// decoder is 32 × ~10 × 32 with 2 heads; the replications' language models 32 × 64 × 64
// with 4.
void BM_CausalAttentionForwardBackward(benchmark::State& state) {
  std::int64_t B = state.range(0), T = state.range(1), D = state.range(2), H = state.range(3);
  const bool saved_setting = kernels::attention_prefix_path();
  kernels::set_attention_prefix_path(state.range(4) != 0);
  const bool forward_only = state.range(5) != 0;
  Generator g(0);
  Parameter q(randn({B, T, D}, g)), k(randn({B, T, D}, g)), v(randn({B, T, D}, g));
  Tensor upstream = randn({B, T, D}, g);
  Tensor causal = Tensor::zeros({B, 1, T, T}, DType::b8);
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t i = 0; i < T; ++i)
      for (std::int64_t j = 0; j <= i; ++j) causal.set((b * T + i) * T + j, 1);
  const double scale = 1.0 / std::sqrt(double(D / H));
  Tape& tape = Tape::current();
  for (auto _ : state) {
    if (forward_only) {
      NoGradGuard no_grad;
      Var y = attention(tape.leaf(q), tape.leaf(k), tape.leaf(v), H, causal, scale);
      benchmark::DoNotOptimize(y.value().raw());
    } else {
      tape.backward(attention(tape.leaf(q), tape.leaf(k), tape.leaf(v), H, causal, scale),
                    upstream);
    }
    tape.reset();
  }
  kernels::set_attention_prefix_path(saved_setting);
  state.SetItemsProcessed(state.iterations() * B * H);  // heads per second
}
BENCHMARK(BM_CausalAttentionForwardBackward)
    ->ArgNames({"B", "T", "D", "H", "prefix", "forward_only"})
    ->Args({32, 10, 32, 2, 0, 0})
    ->Args({32, 10, 32, 2, 1, 0})
    ->Args({32, 64, 64, 4, 0, 0})
    ->Args({32, 64, 64, 4, 1, 0})
    ->Args({32, 64, 64, 4, 0, 1})
    ->Args({32, 64, 64, 4, 1, 1});

}  // namespace
