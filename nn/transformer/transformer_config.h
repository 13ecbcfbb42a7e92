#pragma once
// Everything that shapes a Transformer, as plain C++ (the experiments layer fills it
// from TOML). Each axis is a Component: a registered name plus its options.
#include <cstdint>
#include <string>
#include <vector>

#include "nn/attention/multi_head_attention.h"

namespace ablate::nn {

// The limits validate() enforces, exported so that whoever declares these settings
// elsewhere (the experiment keys of experiments/config/plain_keys.cpp) uses the same
// ones: each range and choice list is written once, here.
struct TransformerLimits {
  static constexpr double max_dropout = 0.99;  // every dropout probability is in [0, max_dropout]
  static const std::vector<std::string>& placements();   // post, pre
  static const std::vector<std::string>& final_norms();  // auto, yes, no
};

struct TransformerConfig {
  std::int64_t d_model = 64;
  std::int64_t heads = 4;
  std::int64_t d_ff = 256;
  std::int64_t encoder_layers = 2;
  std::int64_t decoder_layers = 2;
  double dropout = 0.0;  // after attention and feed-forward, before the residual add
  AttentionConfig attention;
  Component positions{"sinusoidal"};
  Component norm{"layer"};
  std::string placement = "post";   // post (Vaswani et al.) | pre (with a final norm)
  std::string final_norm = "auto";  // auto (pre: yes, post: no) | yes | no
  bool residual = true;
  Component ffn{"relu"};
  bool bias = true;
  std::int64_t max_len = 512;              // longest sequence the model must accept
  bool scale_embeddings = true;            // × sqrt(d_model) (§3.4)
  double embedding_dropout = 0.0;          // on embeddings + positions
  bool spatial_embedding_dropout = false;  // drop whole feature channels instead
  DType dtype = DType::f32;
  // Activation recomputation: each layer's activations are recomputed in the backward
  // (autograd/checkpoint.h) instead of kept, so training holds one layer's at a time.
  // The same results bit for bit; a layer's forward costs twice.
  bool recompute = false;

  bool pre_norm() const;
  bool has_final_norm() const;
  // Per-head query/key and value widths: attention.d_k and d_v, or d_model / heads when
  // 0 — computed here once, for the layers, the size checks and the reports.
  std::int64_t head_dim_k() const;
  std::int64_t head_dim_v() const;
  // "" when those widths are defined, else why not: d_model not divisible by heads
  // while d_k or d_v derives from it.
  std::string head_split_problem() const;
  // Throws std::invalid_argument for impossible combinations (d_model not divisible by
  // heads, unknown placement, ...).
  void validate() const;
};

}  // namespace ablate::nn
