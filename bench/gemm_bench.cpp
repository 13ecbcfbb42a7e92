// f32 GEMM throughput of ablate's matmul path (autograd/kernels/gemm.cpp) against
// OpenBLAS's cblas_sgemm, single-threaded: square sizes 64…1024 and the shapes the
// reference Transformers (issue #6: tiny, small, medium, base) multiply. "FLOPS" is
// 2·M·N·K per call.
#include <benchmark/benchmark.h>

#include <vector>

#include "autograd/kernels/gemm.h"
#include "autograd/rng.h"
#include "bench/bench_util.h"

#ifdef ABLATE_BENCH_OPENBLAS
#include <cblas.h>
#endif

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
  state.counters["FLOPS"] =
      benchmark::Counter(2.0 * double(M * N * K) * double(state.iterations()),
                         benchmark::Counter::kIsRate);
  bench::report_peak_rss(state);
}

void BM_AblateGemm(benchmark::State& state) {
  std::int64_t M = state.range(0), N = state.range(1), K = state.range(2);
  Operands o(M, N, K);
  for (auto _ : state) {
    kernels::gemm<float>(false, false, M, N, K, o.a.data(), K, o.b.data(), N, o.c.data(), N, false);
    benchmark::DoNotOptimize(o.c.data());
  }
  report_flops(state, M, N, K);
}

// The backward's transposed products (dA = dC·Bᵀ, dB = Aᵀ·dC) at the same shapes.
void BM_AblateGemmTransposed(benchmark::State& state) {
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

#ifdef ABLATE_BENCH_OPENBLAS
void BM_OpenBlasSgemm(benchmark::State& state) {
  std::int64_t M = state.range(0), N = state.range(1), K = state.range(2);
  Operands o(M, N, K);
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(M), int(N), int(K), 1.0f,
                o.a.data(), int(K), o.b.data(), int(N), 0.0f, o.c.data(), int(N));
    benchmark::DoNotOptimize(o.c.data());
  }
  report_flops(state, M, N, K);
}
#endif

void square_sizes(benchmark::internal::Benchmark* b) {
  for (int n : {64, 128, 192, 240, 256, 288, 320, 384, 512, 768, 1024}) b->Args({n, n, n});
}

// {M, N, K}: rows = batch × length; the model's Linear layers and the output vocab.
void transformer_shapes(benchmark::internal::Benchmark* b) {
  b->Args({320, 32, 32})->Args({320, 64, 32})->Args({320, 32, 64});      // tiny
  b->Args({512, 64, 64})->Args({512, 256, 64})->Args({512, 64, 256});    // small
  b->Args({1024, 128, 128})->Args({1024, 512, 128})->Args({1024, 128, 512});  // medium
  b->Args({1024, 256, 256})->Args({1024, 1024, 256})->Args({1024, 256, 1024});  // base
  b->Args({1024, 1000, 256});                                            // base vocab
  b->Args({64, 64, 32});  // base attention scores per head: [T, d_k]·[d_k, T]
}

BENCHMARK(BM_AblateGemm)->Apply(square_sizes)->Apply(transformer_shapes);
BENCHMARK(BM_AblateGemmTransposed)->Apply(transformer_shapes);
#ifdef ABLATE_BENCH_OPENBLAS
BENCHMARK(BM_OpenBlasSgemm)->Apply(square_sizes)->Apply(transformer_shapes);
#endif

}  // namespace

int main(int argc, char** argv) {
#ifdef ABLATE_BENCH_OPENBLAS
  openblas_set_num_threads(1);  // trials are single-threaded; compare like with like
  benchmark::AddCustomContext("openblas_core", openblas_get_corename());
#endif
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
