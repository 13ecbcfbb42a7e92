#pragma once
// One encoder layer (self-attention, feed-forward) and one decoder layer (causal
// self-attention, cross-attention, feed-forward), each with residual connections
// (switchable) and norms placed post (x = norm(x + f(x)), Vaswani et al.) or pre
// (x = x + f(norm(x)), Xiong et al. 2020). Submodule names follow
// torch.nn.TransformerEncoderLayer / DecoderLayer: self_attn, multihead_attn,
// linear1/linear2 (in ffn), norm1..norm3.
#include <functional>

#include "nn/attention/multi_head_attention.h"
#include "nn/feed_forward.h"
#include "nn/layers/dropout.h"
#include "nn/norms/norm.h"
#include "nn/transformer/transformer_config.h"

namespace ablate::nn {

BuildContext make_build_context(const TransformerConfig& config, Generator& init,
                                Generator& dropout);

class EncoderLayer : public Module {
 public:
  EncoderLayer(const TransformerConfig& config, const BuildContext& ctx);
  // x [B, T, D]; mask b8 [B, T] (true = real token) or undefined; causal for
  // decoder-only language models.
  Var forward(const Var& x, const Tensor& mask, bool causal, PositionEncoding* positions);
  MultiHeadAttention& self_attention() { return *self_attn_; }

 private:
  bool pre_, residual_;
  MultiHeadAttention* self_attn_;
  FeedForward* ffn_;
  Norm* norm1_;
  Norm* norm2_;
  Dropout* dropout_ = nullptr;
};

class DecoderLayer : public Module {
 public:
  DecoderLayer(const TransformerConfig& config, const BuildContext& ctx);
  // y [B, Tt, D] (attends causally to itself), memory [B, Ts, D] from the encoder.
  Var forward(const Var& y, const Var& memory, const Tensor& target_mask, const Tensor& memory_mask,
              PositionEncoding* positions);
  MultiHeadAttention& self_attention() { return *self_attn_; }
  MultiHeadAttention& cross_attention() { return *cross_attn_; }
  FeedForward& feed_forward() { return *ffn_; }
  // What the self-attention reads, from the layer's input y: norm1(y) in pre placement,
  // y itself in post.
  Var self_attention_input(const Var& y, const Tensor& target_mask);

  // The three sublayers as functions of their (normed, in pre placement) input. forward()
  // passes the modules themselves; an incremental decoding step passes attention over
  // cached keys and values. Both then share wire(): norms, residuals and dropout.
  // normalize (optional): how to apply one of the layer's norms; empty: norm.forward.
  struct Sublayers {
    std::function<Var(const Var&)> self_attend, cross_attend, feed_forward;
    std::function<Var(Norm&, const Var&, const Tensor&)> normalize;
  };
  Var wire(const Var& y, const Tensor& target_mask, const Sublayers& sublayers);

 private:
  bool pre_, residual_;
  MultiHeadAttention* self_attn_;
  MultiHeadAttention* cross_attn_;
  FeedForward* ffn_;
  Norm* norm1_;
  Norm* norm2_;
  Norm* norm3_;
  Dropout* dropout_ = nullptr;
};

}  // namespace ablate::nn
