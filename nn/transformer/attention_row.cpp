#include "nn/transformer/attention_row.h"

#include <cstdlib>
#include <limits>
#include <memory>
#include <vector>

#include "autograd/kernels/eigen_maps.h"
#include "autograd/kernels/softmax_row.h"
#include "nn/transformer/row_plan.h"

namespace ablate::nn {

namespace {

constexpr std::int64_t kPacket = 16;  // floats per AVX-512 packet, the unit of Eigen's loops

struct AlignedFree {
  void operator()(float* p) const { std::free(p); }
};

// A 64-byte aligned scratch row, grown as needed: like the tape's arena, whose
// allocations are 64-byte aligned, so offsets modulo 16 floats mean the same here.
float* aligned_scratch(std::int64_t floats) {
  thread_local std::unique_ptr<float, AlignedFree> buffer;
  thread_local std::int64_t size = 0;
  if (floats > size) {
    size = (floats + kPacket - 1) / kPacket * kPacket;
    buffer.reset(static_cast<float*>(std::aligned_alloc(64, std::size_t(size) * 4)));
  }
  return buffer.get();
}

// softmax_block of the fused op, for the last row of one (b, h) block of the full
// scores [T, Tk], which start `block_start` floats after a 64-byte boundary. Its
// steps, and what keeps their bits:
//   1. scale, mask and maximum per row (kernels::scale_mask_max, the same call), then
//      the shift by the maximum: per element, layout-free;
//   2. exp over the whole block at once (one Eigen array expression): Eigen computes an
//      element with its vectorised exp when the element's aligned 16-float packet lies
//      inside the block, else with std::exp — and the two differ in the last bit for
//      some inputs. The row is laid out here at the same offset modulo 16, in an
//      expression that starts at the block's first element's equivalent (or at the
//      row's packet, when the block starts before it) and ends where the block ends
//      (the last row ends it): every element takes the same path;
//   3. the row's sum (Eigen's vectorised reduction, whose grouping depends on where the
//      row starts modulo 16: the same offset here) and the scaling by its inverse.
void softmax_last_row(float* row, std::int64_t Tk, std::int64_t block_start, std::int64_t row_start,
                      float scale, const std::uint8_t* mask) {
  constexpr float kLowest = std::numeric_limits<float>::lowest();
  const float mx = kernels::scale_mask_max(row, Tk, scale, mask);
  if (mx != kLowest)
    for (std::int64_t j = 0; j < Tk; ++j) row[j] = row[j] == kLowest ? kLowest : row[j] - mx;
  const std::int64_t packet_start = row_start / kPacket * kPacket;
  const std::int64_t expr_start = std::max(block_start, packet_start);
  const std::int64_t lead = row_start - expr_start;  // elements before the row
  float* laid = aligned_scratch(expr_start % kPacket + lead + Tk) + expr_start % kPacket;
  for (std::int64_t j = 0; j < lead; ++j) laid[j] = kLowest;  // exp gives 0; unread
  std::copy(row, row + Tk, laid + lead);
  kernels::ArrayMap<float> all(laid, lead + Tk);
  all = all.exp();
  kernels::ArrayMap<float> r(laid + lead, Tk);
  const float total = r.sum();
  if (total > 0) r *= 1.0f / total;
  std::copy(laid + lead, laid + lead + Tk, row);
}

}  // namespace

void attention_last_row(const AttentionRowShape& s, const float* q, const float* keys,
                        std::int64_t key_batch_stride, const float* values,
                        std::int64_t value_batch_stride, const std::uint8_t* allowed, float scale,
                        float* out) {
  const std::int64_t ldk = s.H * s.dk, ldv = s.H * s.dv, i = s.T - 1;
  thread_local std::vector<float> p;
  p.resize(std::size_t(s.Tk));
  for (std::int64_t b = 0; b < s.B; ++b)
    for (std::int64_t h = 0; h < s.H; ++h) {
      // The fused op's weights [B, H, T, Tk] are one arena allocation: block (b, h) starts
      // (b·H + h)·T·Tk floats after a 64-byte boundary, its last row i·Tk after that.
      const std::int64_t block_start = (b * s.H + h) * s.T * s.Tk;
      gemm_row_as_in_full(s.T, i, s.Tk, s.dk, q + b * ldk + h * s.dk,
                          keys + b * key_batch_stride + h * s.dk, ldk, true, p.data());
      softmax_last_row(p.data(), s.Tk, block_start % kPacket, block_start % kPacket + i * s.Tk,
                       scale, allowed + b * s.Tk);
      gemm_row_as_in_full(s.T, i, s.dv, s.Tk, p.data(), values + b * value_batch_stride + h * s.dv,
                          ldv, false, out + b * ldv + h * s.dv);
    }
}

}  // namespace ablate::nn
