#pragma once
// The last query row of the fused attention op (autograd/ops/attention.cpp), computed
// alone with the bits that op gives it inside the full [B, H, T, Tk] computation: what
// an incremental decoder needs for the newest position.
#include <cstdint>

namespace ablate::nn {

struct AttentionRowShape {
  std::int64_t B, H, T, Tk, dk, dv;  // T: the full computation's query count (row T-1 wanted)
};

// q [B, H·dk] (the newest query of each row), keys [B, *, H·dk] and values [B, *, H·dv]
// with batch strides key_batch_stride / value_batch_stride (floats) and row strides
// H·dk / H·dv, allowed b8 [B, Tk] (the row's mask), out [B, H·dv].
void attention_last_row(const AttentionRowShape& s, const float* q, const float* keys,
                        std::int64_t key_batch_stride, const float* values,
                        std::int64_t value_batch_stride, const std::uint8_t* allowed, float scale,
                        float* out);

}  // namespace ablate::nn
