// The FLOP ceiling of one core, measured: independent chains of vector FMAs, as many as
// it takes to cover the FMA latency (latency × FMA ports; Zen 5: 4 cycles × 2 ports =
// 8 in flight, so 16 chains leave margin and still fit in the 32 zmm registers).
// Nothing else executes, so this is the peak a GEMM can approach at the clock the core
// runs at now: bench/compare_torch.py runs it at the start and at the end of its run
// and reports "% of peak" against it rather than against a nominal figure.
//
//   fma_ceiling       f32 FMA (_mm512_fmadd_ps; _mm256_fmadd_ps in a build without
//                     AVX-512): 2 FLOPs per lane
//   bf16_dot_ceiling  bf16 pairs accumulated into f32 (_mm512_dpbf16_ps, AVX512_BF16):
//                     4 FLOPs per f32 lane, the ceiling of a bf16 GEMM (where the CPU
//                     and the build have it)
//
// The counter is "GFLOP/s"; the label says which instruction ran.
#include <benchmark/benchmark.h>
#include <immintrin.h>

namespace {

constexpr int kChains = 16;
constexpr long kStepsPerIteration = 1 << 14;  // 16 chains × 16384 steps ≈ 0.1 ms per iteration

void report(benchmark::State& state, double flops_per_iteration, const char* label) {
  state.counters["GFLOP/s"] = benchmark::Counter(
      double(state.iterations()) * flops_per_iteration * 1e-9, benchmark::Counter::kIsRate);
  state.SetLabel(label);
}

#if defined(__AVX512F__)
using Vec = __m512;
constexpr int kLanes = 16;
inline Vec splat(float x) {
  return _mm512_set1_ps(x);
}
inline Vec fma(Vec a, Vec b, Vec c) {
  return _mm512_fmadd_ps(a, b, c);
}
inline Vec add(Vec a, Vec b) {
  return _mm512_add_ps(a, b);
}
// Not _mm512_reduce_add_ps: GCC 12 warns inside it (its _mm512_undefined_*, bug 105593).
inline float total(Vec v) {
  alignas(64) float x[16];
  _mm512_store_ps(x, v);
  float s = 0;
  for (float f : x) s += f;
  return s;
}
constexpr const char* kFmaLabel = "_mm512_fmadd_ps, 16 chains";
#elif defined(__FMA__)
using Vec = __m256;
constexpr int kLanes = 8;
inline Vec splat(float x) {
  return _mm256_set1_ps(x);
}
inline Vec fma(Vec a, Vec b, Vec c) {
  return _mm256_fmadd_ps(a, b, c);
}
inline Vec add(Vec a, Vec b) {
  return _mm256_add_ps(a, b);
}
inline float total(Vec v) {
  alignas(32) float x[8];
  _mm256_store_ps(x, v);
  return x[0] + x[1] + x[2] + x[3] + x[4] + x[5] + x[6] + x[7];
}
constexpr const char* kFmaLabel = "_mm256_fmadd_ps, 16 chains (this build has no AVX-512)";
#endif

#if defined(__AVX512F__) || defined(__FMA__)
// acc = acc·m + a in every chain: with m < 1 every value stays finite and normal (it
// converges to a / (1 - m)), so no lane is slowed by denormals or overflow.
float fma_chains(long steps, float start) {
  Vec acc[kChains];
  for (int j = 0; j < kChains; ++j) acc[j] = splat(start + 0.01f * float(j));
  const Vec m = splat(0.999f), a = splat(0.001f);
  for (long i = 0; i < steps; ++i) {
#pragma GCC unroll 16
    for (int j = 0; j < kChains; ++j) acc[j] = fma(acc[j], m, a);
  }
  Vec sum = acc[0];
  for (int j = 1; j < kChains; ++j) sum = add(sum, acc[j]);
  return total(sum);
}

void BM_FmaCeiling(benchmark::State& state) {
  float start = 1.0f;
  for (auto _ : state) {
    benchmark::DoNotOptimize(start);  // opaque: the compiler cannot compute the chains once for all
    benchmark::DoNotOptimize(fma_chains(kStepsPerIteration, start));
  }
  report(state, 2.0 * kLanes * kChains * double(kStepsPerIteration), kFmaLabel);
}
// Wall-clock rates, like the per-step times compare_torch.py divides its FLOPs by.
BENCHMARK(BM_FmaCeiling)->Name("fma_ceiling")->UseRealTime();
#endif

#if defined(__AVX512BF16__)
// acc += a_even·b_even + a_odd·b_odd per f32 lane (32 bf16 pairs per instruction).
// Small bf16 operands (1/64 and 1/1024, exact) keep the sums far from overflow.
float dpbf16_chains(long steps, float start) {
  __m512 acc[kChains];
  for (int j = 0; j < kChains; ++j) acc[j] = _mm512_set1_ps(start + float(j));
  const __m512bh a = _mm512_cvtne2ps_pbh(_mm512_set1_ps(0.015625f), _mm512_set1_ps(0.015625f));
  const __m512bh b =
      _mm512_cvtne2ps_pbh(_mm512_set1_ps(0.0009765625f), _mm512_set1_ps(0.0009765625f));
  for (long i = 0; i < steps; ++i) {
#pragma GCC unroll 16
    for (int j = 0; j < kChains; ++j) acc[j] = _mm512_dpbf16_ps(acc[j], a, b);
  }
  __m512 sum = acc[0];
  for (int j = 1; j < kChains; ++j) sum = _mm512_add_ps(sum, acc[j]);
  return total(sum);
}

void BM_Bf16DotCeiling(benchmark::State& state) {
  float start = 1.0f;
  for (auto _ : state) {
    benchmark::DoNotOptimize(start);  // opaque: the compiler cannot compute the chains once for all
    benchmark::DoNotOptimize(dpbf16_chains(kStepsPerIteration, start));
  }
  report(state, 4.0 * 16 * kChains * double(kStepsPerIteration), "_mm512_dpbf16_ps, 16 chains");
}
BENCHMARK(BM_Bf16DotCeiling)->Name("bf16_dot_ceiling")->UseRealTime();
#endif

}  // namespace
