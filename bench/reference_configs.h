#pragma once
// The shapes of the four reference configurations (tiny, small, medium, base) and the
// matmul FLOPs they count. Header-only and free of ablate's headers, so that peers
// built against other libraries (bench/libtorch_peer.cpp) read the same table as
// bench_models; bench/compare_torch.py has its own copy (keep the three in step).
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace ablate::bench {

struct ReferenceConfig {
  std::string name;
  std::int64_t d_model, heads, encoder_layers, decoder_layers, d_ff, length, batch, vocab;
};

inline const std::vector<ReferenceConfig>& reference_configs() {
  static const std::vector<ReferenceConfig> configs = {
      // name, d_model, heads, enc, dec, d_ff, src/tgt length, batch, vocab
      {"tiny", 32, 2, 1, 1, 64, 10, 32, 16},
      {"small", 64, 4, 2, 2, 256, 16, 32, 32},
      {"medium", 128, 4, 2, 2, 512, 32, 32, 64},
      {"base", 256, 8, 3, 3, 1024, 64, 16, 1000},
  };
  return configs;
}

inline const ReferenceConfig& reference_config(const std::string& name) {
  for (const auto& c : reference_configs())
    if (c.name == name) return c;
  throw std::invalid_argument("no reference configuration named " + name);
}

// Matmul FLOPs of one forward pass (projections, attention scores and values,
// feed-forward, output layer); a training step counts 3× this.
inline double forward_flops(const ReferenceConfig& c) {
  double tokens = double(c.batch * c.length), D = double(c.d_model), T = double(c.length);
  double projection = 2 * tokens * D * D;            // one D×D projection over all tokens
  double attention = 2 * 2 * tokens * T * D;         // QKᵀ and A·V, all heads together
  double ffn = 2 * 2 * tokens * D * double(c.d_ff);  // two layers
  double encoder = 4 * projection + attention + ffn;
  double decoder = (4 * projection + attention) * 2 + ffn;  // self- and cross-attention
  double output = 2 * tokens * D * double(c.vocab);
  return double(c.encoder_layers) * encoder + double(c.decoder_layers) * decoder + output;
}

}  // namespace ablate::bench
