#pragma once
// The smallest Transformer the nn tests build: d_model 8, 2 heads, one encoder and
// one decoder layer — fast in f64 gradchecks, big enough for every code path — and the
// BuildContext the component tests build single components with.
#include "nn/build_context.h"
#include "nn/transformer/transformer_config.h"

namespace ablate::nn::testing {

inline TransformerConfig small_transformer(std::int64_t d_ff = 16) {
  TransformerConfig c;
  c.d_model = 8;
  c.heads = 2;
  c.d_ff = d_ff;
  c.encoder_layers = 1;
  c.decoder_layers = 1;
  return c;
}

// d_k = d_v = d_model / heads, d_ff = 2 d_model, sequences up to 16; g draws both the
// initial weights and the dropout masks.
inline BuildContext build_context(std::int64_t d_model, std::int64_t heads, Generator& g,
                                  DType dtype = DType::f32) {
  BuildContext c;
  c.d_model = d_model;
  c.heads = heads;
  c.d_k = c.d_v = d_model / heads;
  c.d_ff = 2 * d_model;
  c.max_len = 16;
  c.dtype = dtype;
  c.init = &g;
  c.dropout_rng = &g;
  return c;
}

}  // namespace ablate::nn::testing
