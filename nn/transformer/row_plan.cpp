#include "nn/transformer/row_plan.h"

#include <algorithm>
#include <cstring>

#include "autograd/kernels/gemm.h"
#include "autograd/kernels/small_gemm.h"

namespace ablate::nn {

namespace {

// kernels::gemm's own choice, for f32 on the oneDNN backend.
enum class Kernel { lazy, small, onednn_short, onednn };
constexpr std::int64_t kLazyMaxDims = 20;      // kernels::gemm's kLazyProductMaxDims
constexpr std::int64_t kOnednnShortRows = 16;  // below this oneDNN runs another kernel (N > 64)

Kernel kernel_for(std::int64_t M, std::int64_t N, std::int64_t K) {
  if (M + N + K <= kLazyMaxDims) return Kernel::lazy;
  if (kernels::small_gemm_fits(M, N, K)) return Kernel::small;
  return M < kOnednnShortRows ? Kernel::onednn_short : Kernel::onednn;
}

}  // namespace

RowPlan plan_rows(std::int64_t full_rows, const std::vector<std::int64_t>& positions_in_full,
                  const std::vector<GemmShape>& shapes) {
  const auto wanted = std::int64_t(positions_in_full.size());
  auto same_kernels = [&](std::int64_t m) {
    for (auto [N, K] : shapes)
      if (kernel_for(m, N, K) != kernel_for(full_rows, N, K)) return false;
    return true;
  };
  bool rerun = false, onednn = false;
  for (auto [N, K] : shapes) {
    const Kernel full = kernel_for(full_rows, N, K);
    rerun = rerun || full == Kernel::lazy || full == Kernel::onednn_short;
    onednn = onednn || full == Kernel::onednn;
  }
  RowPlan plan;
  if (rerun) {
    plan.run_rows = full_rows;  // the same products, the wanted rows where they were
    plan.positions = positions_in_full;
    return plan;
  }
  // The fewest rows (from `wanted` up, doubling) on which every product gets its kernel:
  // small_gemm fits every M up to full_rows; oneDNN needs >= 16 rows and a product too
  // big for small_gemm. full_rows itself qualifies.
  std::int64_t m = onednn ? std::max(wanted, kOnednnShortRows) : wanted;
  while (m < full_rows && !same_kernels(m)) m = std::min(full_rows, m * 2);
  if (!same_kernels(m)) m = full_rows;
  plan.run_rows = std::max(m, wanted);
  for (std::int64_t i = 0; i < wanted; ++i) plan.positions.push_back(i);
  return plan;
}

Var pad_rows(const Var& rows, const RowPlan& plan) {
  const Shape& s = rows.shape();
  const std::int64_t D = s[s.rank() - 1], R = s.numel() / D;
  Tensor out = Tape::current().alloc({plan.run_rows, 1, D}, DType::f32);
  const float* in = rows.value().data<float>();
  float* o = out.data<float>();
  for (std::int64_t r = 0; r < plan.run_rows; ++r) std::memcpy(o + r * D, in, std::size_t(D) * 4);
  for (std::int64_t i = 0; i < R; ++i)
    std::memcpy(o + plan.positions[std::size_t(i)] * D, in + i * D, std::size_t(D) * 4);
  return constant(out);
}

Var gather_rows(const Var& padded, const RowPlan& plan) {
  const Shape& s = padded.shape();
  const std::int64_t N = s[s.rank() - 1], R = std::int64_t(plan.positions.size());
  Tensor out = Tape::current().alloc({R, 1, N}, DType::f32);
  const float* in = padded.value().data<float>();
  for (std::int64_t i = 0; i < R; ++i)
    std::memcpy(out.data<float>() + i * N, in + plan.positions[std::size_t(i)] * N,
                std::size_t(N) * 4);
  return constant(out);
}

void gemm_row_as_in_full(std::int64_t full_rows, std::int64_t row, std::int64_t N, std::int64_t K,
                         const float* a_row, const float* b, std::int64_t ldb, bool trans_b,
                         float* out) {
  const RowPlan plan = plan_rows(full_rows, {row}, {{N, K}});
  thread_local std::vector<float> a, c;
  a.resize(std::size_t(plan.run_rows * K));
  c.resize(std::size_t(plan.run_rows * N));
  for (std::int64_t r = 0; r < plan.run_rows; ++r)
    std::memcpy(a.data() + r * K, a_row, std::size_t(K) * 4);
  kernels::gemm<float>(false, trans_b, plan.run_rows, N, K, a.data(), K, b, ldb, c.data(), N,
                       false);
  std::memcpy(out, c.data() + plan.positions[0] * N, std::size_t(N) * 4);
}

}  // namespace ablate::nn
