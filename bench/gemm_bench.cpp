// f32 GEMM throughput of ablate's matmul backends, and bf16 mixed precision's,
// (autograd/kernels/gemm.h), single-threaded: square sizes 64…1024 and the shapes the reference
// Transformers (tiny, small, medium, base; bench/reference_models.h) multiply. "FLOPS" is 2·M·N·K
// per call. The OpenBLAS figures depend on OPENBLAS_CORETYPE (see the context line
// openblas_core).
#include <benchmark/benchmark.h>

#include <vector>

#include "autograd/kernels/gemm.h"
#include "autograd/rng.h"
#include "bench/bench_util.h"

#include <cblas.h>
#include <dnnl.h>

#include "autograd/kernels/bf16.h"
#include "autograd/kernels/small_gemm.h"

using namespace ablate;

namespace {

struct Operands {
  std::vector<float> a, b, c;
  Operands(std::int64_t M, std::int64_t N, std::int64_t K)
      : a(std::size_t(M * K)), b(std::size_t(K * N)), c(std::size_t(M * N)) {
    Generator g(1);
    for (float& x : a) x = float(g.normal());
    for (float& x : b) x = float(g.normal());
  }
};

void report_flops(benchmark::State& state, std::int64_t M, std::int64_t N, std::int64_t K) {
  state.counters["FLOPS"] = benchmark::Counter(2.0 * double(M * N * K) * double(state.iterations()),
                                               benchmark::Counter::kIsRate);
  bench::report_peak_rss(state);
}

template <kernels::GemmBackend backend>
void BM_Gemm(benchmark::State& state) {
  kernels::set_gemm_backend(backend);
  std::int64_t M = state.range(0), N = state.range(1), K = state.range(2);
  Operands o(M, N, K);
  for (auto _ : state) {
    kernels::gemm<float>(false, false, M, N, K, o.a.data(), K, o.b.data(), N, o.c.data(), N, false);
    benchmark::DoNotOptimize(o.c.data());
  }
  report_flops(state, M, N, K);
}

// The backward's transposed products (dA = dC·Bᵀ, dB = Aᵀ·dC) at the same shapes.
template <kernels::GemmBackend backend>
void BM_GemmTransposed(benchmark::State& state) {
  kernels::set_gemm_backend(backend);
  std::int64_t M = state.range(0), N = state.range(1), K = state.range(2);
  Operands o(M, N, K);
  std::vector<float> gc(std::size_t(M * N), 1.0f), ga(std::size_t(M * K)), gb(std::size_t(K * N));
  for (auto _ : state) {
    kernels::gemm<float>(false, true, M, K, N, gc.data(), N, o.b.data(), N, ga.data(), K, false);
    kernels::gemm<float>(true, false, K, N, M, o.a.data(), K, gc.data(), N, gb.data(), N, false);
    benchmark::DoNotOptimize(ga.data());
    benchmark::DoNotOptimize(gb.data());
  }
  state.counters["FLOPS"] = benchmark::Counter(4.0 * double(M * N * K) * double(state.iterations()),
                                               benchmark::Counter::kIsRate);
}

// Per-head attention products, {M, N, K, trans_b}: the small register-blocked kernel
// against a direct oneDNN sgemm call (what kernels::gemm used before it).
void BM_SmallGemm(benchmark::State& state) {
  std::int64_t M = state.range(0), N = state.range(1), K = state.range(2);
  bool tb = state.range(3);
  Operands o(M, N, K);
  for (auto _ : state) {
    kernels::small_gemm(false, tb, M, N, K, o.a.data(), K, o.b.data(), tb ? K : N, o.c.data(), N,
                        false);
    benchmark::DoNotOptimize(o.c.data());
  }
  report_flops(state, M, N, K);
}

// bf16 mixed precision (train.precision = "bf16"): gemm_bf16 rounds both f32 operands
// to bf16 (counted in the time) and runs oneDNN's bf16 GEMM with f32 output;
// bf16_operands is the product alone, from operands rounded beforehand (what the
// linear op's backward does with the operands its forward rounded).
void BM_GemmBf16(benchmark::State& state) {
  kernels::set_gemm_backend(kernels::GemmBackend::onednn);
  std::int64_t M = state.range(0), N = state.range(1), K = state.range(2);
  Operands o(M, N, K);
  for (auto _ : state) {
    kernels::gemm_bf16(false, false, M, N, K, o.a.data(), K, o.b.data(), N, o.c.data(), N, false);
    benchmark::DoNotOptimize(o.c.data());
  }
  report_flops(state, M, N, K);
}

void BM_GemmBf16Operands(benchmark::State& state) {
  kernels::set_gemm_backend(kernels::GemmBackend::onednn);
  std::int64_t M = state.range(0), N = state.range(1), K = state.range(2);
  Operands o(M, N, K);
  std::vector<std::uint16_t> a16(o.a.size()), b16(o.b.size());
  kernels::to_bf16(o.a.data(), M, K, K, a16.data());
  kernels::to_bf16(o.b.data(), K, N, N, b16.data());
  for (auto _ : state) {
    kernels::gemm_bf16_operands(false, false, M, N, K, a16.data(), K, b16.data(), N, o.c.data(), N,
                                false);
    benchmark::DoNotOptimize(o.c.data());
  }
  report_flops(state, M, N, K);
}

void BM_OnednnSmall(benchmark::State& state) {
  std::int64_t M = state.range(0), N = state.range(1), K = state.range(2);
  bool tb = state.range(3);
  Operands o(M, N, K);
  for (auto _ : state) {
    dnnl_sgemm('N', tb ? 'T' : 'N', M, N, K, 1.0f, o.a.data(), K, o.b.data(), tb ? K : N, 0.0f,
               o.c.data(), N);
    benchmark::DoNotOptimize(o.c.data());
  }
  report_flops(state, M, N, K);
}

void head_shapes(benchmark::internal::Benchmark* b) {
  for (int tb : {1, 0}) {
    b->Args({10, 10, 16, tb})->Args({10, 16, 10, tb});  // tiny: scores, values
    b->Args({16, 16, 16, tb});                          // small
    b->Args({32, 32, 32, tb});                          // medium
    b->Args({64, 64, 32, tb})->Args({64, 32, 64, tb});  // base
  }
}

void square_sizes(benchmark::internal::Benchmark* b) {
  for (int n : {64, 128, 192, 240, 256, 288, 320, 384, 512, 768, 1024}) b->Args({n, n, n});
}

// {M, N, K}: rows = batch × length; the model's Linear layers and the output vocab.
void transformer_shapes(benchmark::internal::Benchmark* b) {
  b->Args({320, 32, 32})->Args({320, 64, 32})->Args({320, 32, 64});             // tiny
  b->Args({512, 64, 64})->Args({512, 256, 64})->Args({512, 64, 256});           // small
  b->Args({1024, 128, 128})->Args({1024, 512, 128})->Args({1024, 128, 512});    // medium
  b->Args({1024, 256, 256})->Args({1024, 1024, 256})->Args({1024, 256, 1024});  // base
  b->Args({1024, 1000, 256});                                                   // base vocab
  b->Args({64, 64, 32});  // base attention scores per head: [T, d_k]·[d_k, T]
}

using kernels::GemmBackend;
BENCHMARK(BM_SmallGemm)->Name("small_kernel")->Apply(head_shapes);
BENCHMARK(BM_OnednnSmall)->Name("onednn_direct")->Apply(head_shapes);
BENCHMARK(BM_Gemm<GemmBackend::onednn>)
    ->Name("onednn")
    ->Apply(square_sizes)
    ->Apply(transformer_shapes);
BENCHMARK(BM_GemmBf16)->Name("bf16")->Apply(transformer_shapes);
BENCHMARK(BM_GemmBf16Operands)->Name("bf16_operands")->Apply(transformer_shapes);
BENCHMARK(BM_Gemm<GemmBackend::eigen>)
    ->Name("eigen")
    ->Apply(square_sizes)
    ->Apply(transformer_shapes);
BENCHMARK(BM_Gemm<GemmBackend::openblas>)
    ->Name("openblas")
    ->Apply(square_sizes)
    ->Apply(transformer_shapes);
BENCHMARK(BM_GemmTransposed<GemmBackend::onednn>)
    ->Name("onednn_backward")
    ->Apply(transformer_shapes);
BENCHMARK(BM_GemmTransposed<GemmBackend::eigen>)->Name("eigen_backward")->Apply(transformer_shapes);
BENCHMARK(BM_GemmTransposed<GemmBackend::openblas>)
    ->Name("openblas_backward")
    ->Apply(transformer_shapes);

}  // namespace

int main(int argc, char** argv) {
  benchmark::AddCustomContext("openblas_core", openblas_get_corename());
  benchmark::AddCustomContext("default_backend", kernels::gemm_backend_description());
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
