#include "nn/transformer/transformer_stacks.h"

#include "autograd/checkpoint.h"

namespace ablate::nn {

TransformerEncoder::TransformerEncoder(const TransformerConfig& c, const BuildContext& ctx,
                                       std::int64_t layers)
    : recompute_(c.recompute), dropout_rng_(ctx.dropout_rng) {
  for (std::int64_t i = 0; i < layers; ++i)
    layers_.push_back(
        &add_module("layers." + std::to_string(i), std::make_unique<EncoderLayer>(c, ctx)));
  if (c.has_final_norm())
    final_norm_ = &add_module("norm", norm_registry().create(c.norm.kind, c.norm.options, ctx));
}

Var TransformerEncoder::forward(const Var& x, const Tensor& mask, bool causal,
                                PositionEncoding* positions) {
  Var h = x;
  for (EncoderLayer* layer : layers_) {
    if (!recompute_) {
      h = layer->forward(h, mask, causal, positions);
      continue;
    }
    // Captured by value: the backward runs it again after this call has returned.
    auto run = [layer, mask, causal, positions](std::span<const Var> in) {
      return layer->forward(in[0], mask, causal, positions);
    };
    const Var in[] = {h};
    h = checkpoint(run, in, {dropout_rng_});
  }
  return final_norm_ ? final_norm_->forward(h, mask) : h;
}

TransformerDecoder::TransformerDecoder(const TransformerConfig& c, const BuildContext& ctx,
                                       std::int64_t layers)
    : recompute_(c.recompute), dropout_rng_(ctx.dropout_rng) {
  for (std::int64_t i = 0; i < layers; ++i)
    layers_.push_back(
        &add_module("layers." + std::to_string(i), std::make_unique<DecoderLayer>(c, ctx)));
  if (c.has_final_norm())
    final_norm_ = &add_module("norm", norm_registry().create(c.norm.kind, c.norm.options, ctx));
}

Var TransformerDecoder::forward(const Var& y, const Var& memory, const Tensor& target_mask,
                                const Tensor& memory_mask, PositionEncoding* positions) {
  Var h = y;
  for (DecoderLayer* layer : layers_) {
    if (!recompute_) {
      h = layer->forward(h, memory, target_mask, memory_mask, positions);
      continue;
    }
    auto run = [layer, target_mask, memory_mask, positions](std::span<const Var> in) {
      return layer->forward(in[0], in[1], target_mask, memory_mask, positions);
    };
    const Var in[] = {h, memory};
    h = checkpoint(run, in, {dropout_rng_});
  }
  return final_norm_ ? final_norm_->forward(h, target_mask) : h;
}

int set_recompute(Module& root, bool on) {
  int stacks = 0;
  for (auto& [name, m] : root.named_modules()) {
    if (auto* e = dynamic_cast<TransformerEncoder*>(m)) e->set_recompute(on), ++stacks;
    if (auto* d = dynamic_cast<TransformerDecoder*>(m)) d->set_recompute(on), ++stacks;
  }
  return stacks;
}

std::vector<std::pair<std::string, MultiHeadAttention*>> attention_modules(Module& root) {
  std::vector<std::pair<std::string, MultiHeadAttention*>> out;
  for (auto& [name, m] : root.named_modules())
    if (auto* a = dynamic_cast<MultiHeadAttention*>(m)) out.emplace_back(name, a);
  return out;
}

}  // namespace ablate::nn
