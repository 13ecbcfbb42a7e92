#include "nn/transformer/transformer_layers.h"

namespace ablate::nn {

BuildContext make_build_context(const TransformerConfig& c, Generator& init, Generator& dropout) {
  c.validate();
  BuildContext ctx;
  ctx.d_model = c.d_model;
  ctx.heads = c.heads;
  ctx.d_k = c.head_dim_k();
  ctx.d_v = c.head_dim_v();
  ctx.d_ff = c.d_ff;
  ctx.max_len = c.max_len;
  ctx.bias = c.bias;
  ctx.dropout = c.dropout;
  ctx.dtype = c.dtype;
  ctx.init = &init;
  ctx.dropout_rng = &dropout;
  return ctx;
}

namespace {

// y = x + f (or f alone without residuals), with dropout on f while training.
Var residual_add(const Var& x, const Var& f, bool residual, Dropout* dropout) {
  Var g = dropout ? dropout->forward(f) : f;
  return residual ? x + g : g;
}

}  // namespace

EncoderLayer::EncoderLayer(const TransformerConfig& c, const BuildContext& ctx)
    : pre_(c.pre_norm()), residual_(c.residual) {
  self_attn_ =
      &add_module("self_attn", std::make_unique<MultiHeadAttention>(c.attention, ctx, true));
  ffn_ = &add_module("", feed_forward_registry().create(c.ffn.kind, c.ffn.options, ctx));
  norm1_ = &add_module("norm1", norm_registry().create(c.norm.kind, c.norm.options, ctx));
  norm2_ = &add_module("norm2", norm_registry().create(c.norm.kind, c.norm.options, ctx));
  if (c.dropout > 0)
    dropout_ =
        &add_module("dropout", std::make_unique<Dropout>(c.dropout, ctx.dropout_generator()));
}

Var EncoderLayer::forward(const Var& x, const Tensor& mask, bool causal,
                          PositionEncoding* positions) {
  if (pre_) {
    Var h = norm1_->forward(x, mask);
    Var y =
        residual_add(x, self_attn_->forward(h, h, mask, causal, positions), residual_, dropout_);
    return residual_add(y, ffn_->forward(norm2_->forward(y, mask)), residual_, dropout_);
  }
  Var y = norm1_->forward(
      residual_add(x, self_attn_->forward(x, x, mask, causal, positions), residual_, dropout_),
      mask);
  return norm2_->forward(residual_add(y, ffn_->forward(y), residual_, dropout_), mask);
}

DecoderLayer::DecoderLayer(const TransformerConfig& c, const BuildContext& ctx)
    : pre_(c.pre_norm()), residual_(c.residual) {
  self_attn_ =
      &add_module("self_attn", std::make_unique<MultiHeadAttention>(c.attention, ctx, true));
  cross_attn_ =
      &add_module("multihead_attn", std::make_unique<MultiHeadAttention>(c.attention, ctx, false));
  ffn_ = &add_module("", feed_forward_registry().create(c.ffn.kind, c.ffn.options, ctx));
  norm1_ = &add_module("norm1", norm_registry().create(c.norm.kind, c.norm.options, ctx));
  norm2_ = &add_module("norm2", norm_registry().create(c.norm.kind, c.norm.options, ctx));
  norm3_ = &add_module("norm3", norm_registry().create(c.norm.kind, c.norm.options, ctx));
  if (c.dropout > 0)
    dropout_ =
        &add_module("dropout", std::make_unique<Dropout>(c.dropout, ctx.dropout_generator()));
}

Var DecoderLayer::forward(const Var& y, const Var& memory, const Tensor& target_mask,
                          const Tensor& memory_mask, PositionEncoding* positions) {
  if (pre_) {
    Var h = norm1_->forward(y, target_mask);
    Var a = residual_add(y, self_attn_->forward(h, h, target_mask, true, positions), residual_,
                         dropout_);
    Var b = residual_add(
        a, cross_attn_->forward(norm2_->forward(a, target_mask), memory, memory_mask, false),
        residual_, dropout_);
    return residual_add(b, ffn_->forward(norm3_->forward(b, target_mask)), residual_, dropout_);
  }
  Var a = norm1_->forward(
      residual_add(y, self_attn_->forward(y, y, target_mask, true, positions), residual_, dropout_),
      target_mask);
  Var b = norm2_->forward(
      residual_add(a, cross_attn_->forward(a, memory, memory_mask, false), residual_, dropout_),
      target_mask);
  return norm3_->forward(residual_add(b, ffn_->forward(b), residual_, dropout_), target_mask);
}

}  // namespace ablate::nn
