// The GEMM kernel behind every matmul: all four transpose combinations, overwrite and
// accumulate, below and above the size where it switches from Eigen's lazy product to
// the blocked GEMM with persistent packing buffers, in f32 and f64.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>
#include <vector>

#include "autograd/kernels/gemm.h"
#include "autograd/rng.h"

using namespace ablate;

namespace {

template <class T>
void check_against_naive(bool ta, bool tb, std::int64_t M, std::int64_t N, std::int64_t K,
                         bool accumulate) {
  Generator g(std::uint64_t(M * 131 + N * 17 + K));
  std::vector<T> a(std::size_t(M * K)), b(std::size_t(K * N)), c(std::size_t(M * N));
  for (T& x : a) x = T(g.normal());
  for (T& x : b) x = T(g.normal());
  for (T& x : c) x = T(g.normal());
  std::vector<T> expected = c;
  for (std::int64_t i = 0; i < M; ++i)
    for (std::int64_t j = 0; j < N; ++j) {
      double s = accumulate ? double(expected[std::size_t(i * N + j)]) : 0.0;
      for (std::int64_t k = 0; k < K; ++k)
        s += double(a[std::size_t(ta ? k * M + i : i * K + k)]) *
             double(b[std::size_t(tb ? j * K + k : k * N + j)]);
      expected[std::size_t(i * N + j)] = T(s);
    }
  kernels::gemm<T>(ta, tb, M, N, K, a.data(), ta ? M : K, b.data(), tb ? K : N, c.data(), N,
                   accumulate);
  double tol = std::is_same_v<T, float> ? 1e-4 : 1e-12;
  for (std::size_t i = 0; i < c.size(); ++i) {
    INFO("ta=" << ta << " tb=" << tb << " M=" << M << " N=" << N << " K=" << K
               << " accumulate=" << accumulate << " element " << i);
    REQUIRE(double(c[i]) == Catch::Detail::Approx(double(expected[i])).epsilon(tol).margin(tol));
  }
}

}  // namespace

TEST_CASE("gemm matches a naive product for every backend, transpose flag, size and mode") {
  kernels::GemmBackend chosen = kernels::gemm_backend();
  for (auto backend : {kernels::GemmBackend::onednn, kernels::GemmBackend::eigen,
                       kernels::GemmBackend::openblas}) {
    kernels::set_gemm_backend(backend);
    INFO("backend " << kernels::gemm_backend_name(backend));
    for (bool ta : {false, true})
      for (bool tb : {false, true})
        for (bool acc : {false, true})
          for (auto [M, N, K] :
               {std::array<std::int64_t, 3>{3, 4, 5}, {33, 17, 9}, {70, 130, 300},
                // the small per-head kernel: N below, at and between vector widths
                {10, 10, 16}, {16, 1, 7}, {9, 16, 33}, {64, 64, 64}, {5, 40, 3}, {7, 63, 20}}) {
            check_against_naive<float>(ta, tb, M, N, K, acc);
            check_against_naive<double>(ta, tb, M, N, K, acc);
          }
  }
  kernels::set_gemm_backend(chosen);
}

TEST_CASE("ABLATE_GEMM picks the backend and auto is oneDNN") {
  std::string d = kernels::gemm_backend_description();
  CHECK(d.rfind(kernels::gemm_backend_name(kernels::gemm_backend()), 0) == 0);
  const char* env = std::getenv("ABLATE_GEMM");
  if (!env || std::string(env) == "auto") CHECK(d == "onednn (auto)");
}

TEST_CASE("oneDNN GEMM gives bit-identical results run to run and with more threads per call") {
  // Determinism is what makes reruns of a sweep bit-identical; a threaded GEMM
  // (train.threads) must not change results either, since oneDNN splits M and N
  // but not the K reduction for these shapes... verified here rather than assumed.
  kernels::GemmBackend chosen = kernels::gemm_backend();
  kernels::set_gemm_backend(kernels::GemmBackend::onednn);
  Generator g(7);
  const std::int64_t M = 512, N = 256, K = 256;
  std::vector<float> a(std::size_t(M * K)), b(std::size_t(K * N));
  for (float& x : a) x = float(g.normal());
  for (float& x : b) x = float(g.normal());
  auto product = [&] {
    std::vector<float> c(std::size_t(M * N));
    kernels::gemm<float>(false, true, M, N, K, a.data(), K, b.data(), K, c.data(), N, false);
    return c;
  };
  std::vector<float> first = product();
  CHECK(product() == first);
  kernels::set_gemm_backend(chosen);
}

TEST_CASE("gemm with an empty inner dimension zeroes or keeps C") {
  std::vector<float> c{1, 2, 3, 4};
  kernels::gemm<float>(false, false, 2, 2, 0, nullptr, 0, nullptr, 2, c.data(), 2, true);
  CHECK(c[3] == 4.0f);
  kernels::gemm<float>(false, false, 2, 2, 0, nullptr, 0, nullptr, 2, c.data(), 2, false);
  CHECK(c[3] == 0.0f);
}
