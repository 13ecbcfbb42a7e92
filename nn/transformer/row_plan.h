#pragma once
// Computing a few rows of a product with the bits the full product gives them.
//
// kernels::gemm picks its kernel by shape: Eigen's lazy product when M + N + K <= 20,
// small_gemm when it fits, else oneDNN's sgemm. An incremental decoder computes the
// newest row(s) of a product that the full recompute ran with M_full rows, so it must
// run them on the kernel M_full chose, and in a shape where that kernel's per-row
// result is the same. Measured (tests/nn/incremental_decode_test.cpp checks it):
//   - small_gemm sums each C element over k in order, in every row block (8, 4 or 1
//     rows): a row's bits do not depend on M or on the row's position, by construction;
//   - oneDNN's sgemm gives the same bits for a row at every M >= 16, wherever the row
//     is, but another result for M < 16 when N > 64 (a different kernel for short M);
//   - the lazy product and oneDNN's short-M kernel are not assumed anything: for those
//     the product runs again with M_full rows, the wanted rows in their own positions
//     (M_full is then at most 20, resp. 15, so this costs nothing).
#include <cstdint>
#include <utility>
#include <vector>

#include "autograd/ops.h"

namespace ablate::nn {

// Which rows to run and where the wanted rows sit among them.
struct RowPlan {
  std::int64_t run_rows = 0;            // M of the product to run
  std::vector<std::int64_t> positions;  // wanted row i is row positions[i] of it
};

// An (N, K) product shape: [M, K]·[K, N].
using GemmShape = std::pair<std::int64_t, std::int64_t>;

// The plan for the wanted rows (at `positions_in_full` of the full product's M_full rows)
// of a computation whose products, every one on the same rows, have `shapes`: one row
// count on which kernels::gemm picks, for each shape, the kernel M_full got. Needs the
// oneDNN backend (the caller checks gemm_backend()).
RowPlan plan_rows(std::int64_t full_rows, const std::vector<std::int64_t>& positions_in_full,
                  const std::vector<GemmShape>& shapes);

// rows [R, D] (any leading dims flattened) → [plan.run_rows, 1, D], wanted row i at
// positions[i]; the other rows repeat row 0 (their content cannot reach a wanted row).
Var pad_rows(const Var& rows, const RowPlan& plan);
// padded [plan.run_rows, ..., N] → the wanted rows, [R, 1, N].
Var gather_rows(const Var& padded, const RowPlan& plan);

// Row `row` of the [full_rows, N] product a·op(b) with K inner, where `a_row` [K] is that
// row of A; op(b) = bᵀ when trans_b (b [N, K], leading dimension ldb) else b [K, N].
void gemm_row_as_in_full(std::int64_t full_rows, std::int64_t row, std::int64_t N, std::int64_t K,
                         const float* a_row, const float* b, std::int64_t ldb, bool trans_b,
                         float* out);

}  // namespace ablate::nn
