#pragma once
// The reference models (bench/reference_configs.h) in libtorch's C++ API, written op for
// op as PyTorch 1.13's Python modules run them in bench/compare_torch.py
// (nn.TransformerEncoder/Decoder of post-norm layers, batch_first, dropout 0, ReLU;
// F.multi_head_attention_forward with the packed in-projection). The same ATen calls in
// the same order, so the libtorch peer differs from the Python one only by the Python
// interpreter. torch::nn::Transformer is not used: its C++ attention is a different
// implementation (it compares query, key and value element by element on every call to
// find self-attention), and it has neither batch_first nor the inference fast path.
//
// Parameters are created and initialised in the order the Python modules do it, from the
// same seed, so the first loss matches PyTorch's (compare_torch.py checks it).
#include <ATen/ATen.h>
#include <torch/nn/module.h>

#include <memory>
#include <vector>

#include "bench/reference_configs.h"

namespace ablate::bench::libtorch {

// nn.MultiheadAttention(d_model, heads, dropout=0, batch_first=True): packed
// in_proj_weight [3D, D], out_proj.
class Attention : public torch::nn::Module {
 public:
  // `prototype`: copy its values instead of drawing new ones (Python's deepcopy of the
  // first layer: it draws no random numbers).
  Attention(std::int64_t d_model, std::int64_t heads, const Attention* prototype = nullptr);
  // query [B, T, D]; key_value [B, S, D] (the same tensor for self-attention);
  // attn_mask bool [T, S] or undefined; key_padding_mask bool [B, S].
  at::Tensor forward(const at::Tensor& query, const at::Tensor& key_value, bool self_attention,
                     const at::Tensor& attn_mask, const at::Tensor& key_padding_mask);

  std::int64_t d_model, heads;
  at::Tensor in_proj_weight, in_proj_bias, out_proj_weight, out_proj_bias;
};

// Linear(in, out) and LayerNorm(d) as parameter pairs, initialised like nn.Linear / nn.LayerNorm.
struct LinearParams {
  at::Tensor weight, bias;
};
struct LayerNormParams {
  at::Tensor weight, bias;
};

// nn.TransformerEncoderLayer(..., norm_first=False, batch_first=True).
class EncoderLayer : public torch::nn::Module {
 public:
  EncoderLayer(const ReferenceConfig& c, const EncoderLayer* prototype = nullptr);
  at::Tensor forward(const at::Tensor& x, const at::Tensor& key_padding_mask);
  // torch._transformer_encoder_layer_fwd: what Python runs in eval mode without grad.
  at::Tensor forward_fast_path(const at::Tensor& x);

  std::shared_ptr<Attention> self_attn;
  LinearParams linear1, linear2;
  LayerNormParams norm1, norm2;
};

// nn.TransformerDecoderLayer(..., norm_first=False, batch_first=True).
class DecoderLayer : public torch::nn::Module {
 public:
  DecoderLayer(const ReferenceConfig& c, const DecoderLayer* prototype = nullptr);
  at::Tensor forward(const at::Tensor& x, const at::Tensor& memory, const at::Tensor& causal_mask,
                     const at::Tensor& tgt_padding_mask, const at::Tensor& memory_padding_mask);

  std::shared_ptr<Attention> self_attn, cross_attn;
  LinearParams linear1, linear2;
  LayerNormParams norm1, norm2, norm3;
};

// compare_torch.py's Seq2Seq: embeddings × sqrt(D) + sinusoidal table, encoder, decoder,
// output layer; returns logits [B, T, V].
class Seq2Seq : public torch::nn::Module {
 public:
  explicit Seq2Seq(const ReferenceConfig& c);
  at::Tensor forward(const at::Tensor& src, const at::Tensor& tgt);

  ReferenceConfig config;
  at::Tensor src_embed, tgt_embed, positions, causal;
  std::vector<std::shared_ptr<EncoderLayer>> encoder;
  std::vector<std::shared_ptr<DecoderLayer>> decoder;
  LinearParams out;
};

// The copy-task batch of compare_torch.py (torch.manual_seed(0) first, then the model).
struct CopyBatch {
  at::Tensor src, tgt_in, targets;
};
CopyBatch make_copy_batch(const ReferenceConfig& c);

}  // namespace ablate::bench::libtorch
