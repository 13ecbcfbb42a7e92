#include "bench/libtorch_reference_model.h"

#include <torch/nn/init.h>

#include <cmath>
#include <limits>
#include <string>

namespace ablate::bench::libtorch {

using at::indexing::None;
using at::indexing::Slice;

namespace {

constexpr double kLayerNormEps = 1e-5;  // nn.LayerNorm's default
constexpr double kDropout = 0.0;        // the models' dropout: every Dropout module is p = 0

// A parameter drawn by `init`, or a copy of the prototype's (Python's deepcopy of a layer).
at::Tensor make_param(torch::nn::Module& m, const std::string& name, at::IntArrayRef shape,
                      const at::Tensor* prototype) {
  at::Tensor t = prototype ? prototype->detach().clone() : at::empty(shape);
  return m.register_parameter(name, t);
}

// nn.Linear(in, out): weight kaiming_uniform_(a = sqrt(5)), bias U(±1/sqrt(in)).
LinearParams make_linear(torch::nn::Module& m, const std::string& name, std::int64_t in,
                         std::int64_t out, const LinearParams* prototype) {
  LinearParams p;
  p.weight = make_param(m, name + "_weight", {out, in}, prototype ? &prototype->weight : nullptr);
  p.bias = make_param(m, name + "_bias", {out}, prototype ? &prototype->bias : nullptr);
  if (!prototype) {
    torch::nn::init::kaiming_uniform_(p.weight, std::sqrt(5.0));
    double bound = 1.0 / std::sqrt(double(in));
    torch::nn::init::uniform_(p.bias, -bound, bound);
  }
  return p;
}

// nn.LayerNorm(d): ones and zeros (no random numbers drawn).
LayerNormParams make_layer_norm(torch::nn::Module& m, const std::string& name, std::int64_t d,
                                const LayerNormParams* prototype) {
  LayerNormParams p;
  p.weight = make_param(m, name + "_weight", {d}, prototype ? &prototype->weight : nullptr);
  p.bias = make_param(m, name + "_bias", {d}, prototype ? &prototype->bias : nullptr);
  if (!prototype) {
    torch::nn::init::ones_(p.weight);
    torch::nn::init::zeros_(p.bias);
  }
  return p;
}

at::Tensor linear(const at::Tensor& x, const LinearParams& p) {
  return at::linear(x, p.weight, p.bias);
}

at::Tensor layer_norm(const at::Tensor& x, const LayerNormParams& p) {
  // F.layer_norm passes torch.backends.cudnn.enabled (True) as the last argument.
  return at::layer_norm(x, {x.size(-1)}, p.weight, p.bias, kLayerNormEps, true);
}

// Every nn.Dropout module calls this even at p = 0 (it returns its input).
at::Tensor dropout(const at::Tensor& x, bool training) {
  return at::dropout(x, kDropout, training);
}

}  // namespace

Attention::Attention(std::int64_t d, std::int64_t h, const Attention* prototype)
    : d_model(d), heads(h) {
  // The order of nn.MultiheadAttention.__init__: out_proj (an nn.Linear) draws its
  // values first, then _reset_parameters() draws in_proj_weight and zeroes both biases.
  in_proj_weight = make_param(*this, "in_proj_weight", {3 * d, d},
                              prototype ? &prototype->in_proj_weight : nullptr);
  in_proj_bias =
      make_param(*this, "in_proj_bias", {3 * d}, prototype ? &prototype->in_proj_bias : nullptr);
  LinearParams proto_out;
  if (prototype) proto_out = {prototype->out_proj_weight, prototype->out_proj_bias};
  LinearParams out = make_linear(*this, "out_proj", d, d, prototype ? &proto_out : nullptr);
  out_proj_weight = out.weight;
  out_proj_bias = out.bias;
  if (!prototype) {
    torch::nn::init::xavier_uniform_(in_proj_weight);
    torch::nn::init::zeros_(in_proj_bias);
    torch::nn::init::zeros_(out_proj_bias);
  }
}

// nn.MultiheadAttention.forward (batch_first, not its inference fast path: attention
// with a mask or across two tensors never takes it) and F.multi_head_attention_forward.
at::Tensor Attention::forward(const at::Tensor& query, const at::Tensor& key_value,
                              bool self_attention, const at::Tensor& attn_mask_in,
                              const at::Tensor& key_padding_mask_in) {
  at::Tensor q_in = query.transpose(1, 0);  // batch_first: [B, T, D] -> [T, B, D]
  at::Tensor kv_in = self_attention ? q_in : key_value.transpose(1, 0);
  const std::int64_t tgt_len = q_in.size(0), bsz = q_in.size(1), E = q_in.size(2);
  const std::int64_t head_dim = E / heads;

  // _in_projection_packed: one product for self-attention, Q and KV apart otherwise.
  at::Tensor q, k, v;
  if (self_attention) {
    std::vector<at::Tensor> qkv = at::linear(q_in, in_proj_weight, in_proj_bias).chunk(3, -1);
    q = qkv[0], k = qkv[1], v = qkv[2];
  } else {
    std::vector<at::Tensor> w = at::split_with_sizes(in_proj_weight, {E, 2 * E});
    std::vector<at::Tensor> b = at::split_with_sizes(in_proj_bias, {E, 2 * E});
    q = at::linear(q_in, w[0], b[0]);
    std::vector<at::Tensor> kv = at::linear(kv_in, w[1], b[1]).chunk(2, -1);
    k = kv[0], v = kv[1];
  }
  at::Tensor attn_mask = attn_mask_in.defined() ? attn_mask_in.unsqueeze(0) : at::Tensor();

  q = q.contiguous().view({tgt_len, bsz * heads, head_dim}).transpose(0, 1);
  k = k.contiguous().view({k.size(0), bsz * heads, head_dim}).transpose(0, 1);
  v = v.contiguous().view({v.size(0), bsz * heads, head_dim}).transpose(0, 1);
  const std::int64_t src_len = k.size(1);

  // Merge the key padding mask into the attention mask, then make it additive.
  at::Tensor key_padding_mask = key_padding_mask_in.view({bsz, 1, 1, src_len})
                                    .expand({-1, heads, -1, -1})
                                    .reshape({bsz * heads, 1, src_len});
  attn_mask = attn_mask.defined() ? attn_mask.logical_or(key_padding_mask) : key_padding_mask;
  at::Tensor additive_mask = at::zeros_like(attn_mask, attn_mask.options().dtype(q.scalar_type()));
  additive_mask.masked_fill_(attn_mask, -std::numeric_limits<double>::infinity());

  at::Tensor q_scaled = q / std::sqrt(double(head_dim));
  at::Tensor weights = at::baddbmm(additive_mask, q_scaled, k.transpose(-2, -1));
  weights = at::softmax(weights, -1);
  at::Tensor out = at::bmm(weights, v);
  out = out.transpose(0, 1).contiguous().view({tgt_len * bsz, E});
  out = at::linear(out, out_proj_weight, out_proj_bias);
  out = out.view({tgt_len, bsz, out.size(1)});
  return out.transpose(1, 0);
}

EncoderLayer::EncoderLayer(const ReferenceConfig& c, const EncoderLayer* prototype) {
  self_attn = register_module(
      "self_attn", std::make_shared<Attention>(c.d_model, c.heads,
                                               prototype ? prototype->self_attn.get() : nullptr));
  linear1 =
      make_linear(*this, "linear1", c.d_model, c.d_ff, prototype ? &prototype->linear1 : nullptr);
  linear2 =
      make_linear(*this, "linear2", c.d_ff, c.d_model, prototype ? &prototype->linear2 : nullptr);
  norm1 = make_layer_norm(*this, "norm1", c.d_model, prototype ? &prototype->norm1 : nullptr);
  norm2 = make_layer_norm(*this, "norm2", c.d_model, prototype ? &prototype->norm2 : nullptr);
}

at::Tensor EncoderLayer::forward(const at::Tensor& x_in, const at::Tensor& key_padding_mask) {
  bool training = is_training();
  at::Tensor x = layer_norm(
      x_in + dropout(self_attn->forward(x_in, x_in, true, {}, key_padding_mask), training), norm1);
  at::Tensor ff = linear(dropout(at::relu(linear(x, linear1)), training), linear2);
  return layer_norm(x + dropout(ff, training), norm2);
}

at::Tensor EncoderLayer::forward_fast_path(const at::Tensor& x) {
  const Attention& a = *self_attn;
  return at::_transformer_encoder_layer_fwd(x, a.d_model, a.heads, a.in_proj_weight, a.in_proj_bias,
                                            a.out_proj_weight, a.out_proj_bias, /*use_gelu=*/false,
                                            /*norm_first=*/false, kLayerNormEps, norm1.weight,
                                            norm1.bias, norm2.weight, norm2.bias, linear1.weight,
                                            linear1.bias, linear2.weight, linear2.bias);
}

DecoderLayer::DecoderLayer(const ReferenceConfig& c, const DecoderLayer* prototype) {
  self_attn = register_module(
      "self_attn", std::make_shared<Attention>(c.d_model, c.heads,
                                               prototype ? prototype->self_attn.get() : nullptr));
  cross_attn = register_module(
      "multihead_attn", std::make_shared<Attention>(
                            c.d_model, c.heads, prototype ? prototype->cross_attn.get() : nullptr));
  linear1 =
      make_linear(*this, "linear1", c.d_model, c.d_ff, prototype ? &prototype->linear1 : nullptr);
  linear2 =
      make_linear(*this, "linear2", c.d_ff, c.d_model, prototype ? &prototype->linear2 : nullptr);
  norm1 = make_layer_norm(*this, "norm1", c.d_model, prototype ? &prototype->norm1 : nullptr);
  norm2 = make_layer_norm(*this, "norm2", c.d_model, prototype ? &prototype->norm2 : nullptr);
  norm3 = make_layer_norm(*this, "norm3", c.d_model, prototype ? &prototype->norm3 : nullptr);
}

at::Tensor DecoderLayer::forward(const at::Tensor& x_in, const at::Tensor& memory,
                                 const at::Tensor& causal_mask, const at::Tensor& tgt_padding_mask,
                                 const at::Tensor& memory_padding_mask) {
  bool training = is_training();
  at::Tensor x = x_in;
  x = layer_norm(
      x + dropout(self_attn->forward(x, x, true, causal_mask, tgt_padding_mask), training), norm1);
  x = layer_norm(
      x + dropout(cross_attn->forward(x, memory, false, {}, memory_padding_mask), training), norm2);
  at::Tensor ff = linear(dropout(at::relu(linear(x, linear1)), training), linear2);
  return layer_norm(x + dropout(ff, training), norm3);
}

Seq2Seq::Seq2Seq(const ReferenceConfig& c) : config(c) {
  const std::int64_t D = c.d_model, T = c.length, V = c.vocab;
  // nn.Embedding: N(0, 1).
  src_embed = torch::nn::init::normal_(register_parameter("src_embed_weight", at::empty({V, D})));
  tgt_embed = torch::nn::init::normal_(register_parameter("tgt_embed_weight", at::empty({V, D})));

  at::Tensor pos = at::arange(T, at::kFloat).unsqueeze(1);
  at::Tensor freq = at::exp(at::arange(0, D, 2, at::kFloat) * (-std::log(10000.0) / double(D)));
  at::Tensor table = at::zeros({T, D});
  table.index_put_({Slice(), Slice(0, None, 2)}, at::sin(pos * freq));
  table.index_put_({Slice(), Slice(1, None, 2)}, at::cos(pos * freq));
  positions = register_buffer("positions", table);

  // nn.TransformerEncoder/Decoder deep-copy one layer: every layer starts equal.
  EncoderLayer encoder_prototype(c);
  for (std::int64_t i = 0; i < c.encoder_layers; ++i)
    encoder.push_back(register_module("encoder_" + std::to_string(i),
                                      std::make_shared<EncoderLayer>(c, &encoder_prototype)));
  DecoderLayer decoder_prototype(c);
  for (std::int64_t i = 0; i < c.decoder_layers; ++i)
    decoder.push_back(register_module("decoder_" + std::to_string(i),
                                      std::make_shared<DecoderLayer>(c, &decoder_prototype)));
  out = make_linear(*this, "out", D, V, nullptr);
  causal = register_buffer("causal", at::triu(at::ones({T, T}, at::kBool), 1));
}

at::Tensor Seq2Seq::forward(const at::Tensor& src, const at::Tensor& tgt) {
  const double scale = std::sqrt(double(config.d_model));
  at::Tensor src_pad = src == 0, tgt_pad = tgt == 0;  // all false, but computed as ours does
  at::Tensor x = at::embedding(src_embed, src) * scale + positions;

  // nn.TransformerEncoder.forward: in eval mode it checks the padding mask; without
  // grad it then runs every layer on a nested tensor through the fused kernel.
  at::Tensor memory = x;
  if (is_training()) {
    for (auto& layer : encoder) memory = layer->forward(memory, src_pad);
  } else {
    bool left_aligned = at::_nested_tensor_from_mask_left_aligned(x, src_pad.logical_not());
    if (left_aligned && !at::GradMode::is_enabled()) {
      memory = at::_nested_tensor_from_mask(x, src_pad.logical_not(), /*mask_check=*/false);
      for (auto& layer : encoder) memory = layer->forward_fast_path(memory);
      memory = memory.to_padded_tensor(0.0);
    } else {
      for (auto& layer : encoder) memory = layer->forward(memory, src_pad);
    }
  }

  at::Tensor y = at::embedding(tgt_embed, tgt) * scale + positions;
  for (auto& layer : decoder) y = layer->forward(y, memory, causal, tgt_pad, src_pad);
  return linear(y, out);
}

CopyBatch make_copy_batch(const ReferenceConfig& c) {
  // Tokens 3.. (0, 1, 2 are pad, BOS, EOS); decoder input = BOS + source[:-1].
  at::Tensor src = at::randint(3, c.vocab, {c.batch, c.length}, at::kLong);
  at::Tensor tgt_in =
      at::cat({at::ones({c.batch, 1}, at::kLong), src.index({Slice(), Slice(None, -1)})}, 1);
  return {src, tgt_in, src};
}

}  // namespace ablate::bench::libtorch
