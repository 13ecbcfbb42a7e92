#include "nn/transformer/transformer_stacks.h"

namespace ablate::nn {

TransformerEncoder::TransformerEncoder(const TransformerConfig& c, const BuildContext& ctx,
                                       std::int64_t layers) {
  for (std::int64_t i = 0; i < layers; ++i)
    layers_.push_back(&add_module("layers." + std::to_string(i), std::make_unique<EncoderLayer>(c, ctx)));
  if (c.has_final_norm()) final_norm_ = &add_module("norm", norm_registry().create(c.norm.kind, c.norm.options, ctx));
}

Var TransformerEncoder::forward(const Var& x, const Tensor& mask, bool causal, PositionEncoding* positions) {
  Var h = x;
  for (EncoderLayer* layer : layers_) h = layer->forward(h, mask, causal, positions);
  return final_norm_ ? final_norm_->forward(h, mask) : h;
}

TransformerDecoder::TransformerDecoder(const TransformerConfig& c, const BuildContext& ctx,
                                       std::int64_t layers) {
  for (std::int64_t i = 0; i < layers; ++i)
    layers_.push_back(&add_module("layers." + std::to_string(i), std::make_unique<DecoderLayer>(c, ctx)));
  if (c.has_final_norm()) final_norm_ = &add_module("norm", norm_registry().create(c.norm.kind, c.norm.options, ctx));
}

Var TransformerDecoder::forward(const Var& y, const Var& memory, const Tensor& target_mask,
                                const Tensor& memory_mask, PositionEncoding* positions) {
  Var h = y;
  for (DecoderLayer* layer : layers_) h = layer->forward(h, memory, target_mask, memory_mask, positions);
  return final_norm_ ? final_norm_->forward(h, target_mask) : h;
}

std::vector<std::pair<std::string, MultiHeadAttention*>> attention_modules(Module& root) {
  std::vector<std::pair<std::string, MultiHeadAttention*>> out;
  for (auto& [name, m] : root.named_modules())
    if (auto* a = dynamic_cast<MultiHeadAttention*>(m)) out.emplace_back(name, a);
  return out;
}

}  // namespace ablate::nn
