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
  return wire(
      y, target_mask,
      {.self_attend =
           [&](const Var& h) { return self_attn_->forward(h, h, target_mask, true, positions); },
       .cross_attend =
           [&](const Var& h) { return cross_attn_->forward(h, memory, memory_mask, false); },
       .feed_forward = [&](const Var& h) { return ffn_->forward(h); }});
}

Var DecoderLayer::self_attention_input(const Var& y, const Tensor& target_mask) {
  return pre_ ? norm1_->forward(y, target_mask) : y;
}

Var DecoderLayer::wire(const Var& y, const Tensor& target_mask, const Sublayers& s) {
  auto norm = [&](Norm* n, const Var& x) {
    return s.normalize ? s.normalize(*n, x, target_mask) : n->forward(x, target_mask);
  };
  if (pre_) {
    Var h = norm(norm1_, y);
    Var a = residual_add(y, s.self_attend(h), residual_, dropout_);
    Var b = residual_add(a, s.cross_attend(norm(norm2_, a)), residual_, dropout_);
    return residual_add(b, s.feed_forward(norm(norm3_, b)), residual_, dropout_);
  }
  Var a = norm(norm1_, residual_add(y, s.self_attend(y), residual_, dropout_));
  Var b = norm(norm2_, residual_add(a, s.cross_attend(a), residual_, dropout_));
  return norm(norm3_, residual_add(b, s.feed_forward(b), residual_, dropout_));
}

}  // namespace ablate::nn
