#pragma once
// The smallest Transformer the nn tests build: d_model 8, 2 heads, one encoder and
// one decoder layer — fast in f64 gradchecks, big enough for every code path.
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

}  // namespace ablate::nn::testing
