#pragma once
// Stacks of layers ("layers.0", "layers.1", ...) with an optional final norm ("norm"),
// as torch.nn.TransformerEncoder / TransformerDecoder. With recompute on (config.recompute,
// or set_recompute), each layer runs under checkpoint() while gradients are recorded:
// its activations are recomputed in the backward instead of kept.
#include <vector>

#include "nn/transformer/transformer_layers.h"

namespace ablate::nn {

class TransformerEncoder : public Module {
 public:
  TransformerEncoder(const TransformerConfig& config, const BuildContext& ctx, std::int64_t layers);
  Var forward(const Var& x, const Tensor& mask, bool causal, PositionEncoding* positions);
  std::vector<EncoderLayer*>& layers() { return layers_; }
  void set_recompute(bool on) { recompute_ = on; }
  bool recompute() const { return recompute_; }

 private:
  std::vector<EncoderLayer*> layers_;
  Norm* final_norm_ = nullptr;
  bool recompute_;
  Generator* dropout_rng_;  // what the layers draw from: the recompute replays it
};

class TransformerDecoder : public Module {
 public:
  TransformerDecoder(const TransformerConfig& config, const BuildContext& ctx, std::int64_t layers);
  Var forward(const Var& y, const Var& memory, const Tensor& target_mask, const Tensor& memory_mask,
              PositionEncoding* positions);
  std::vector<DecoderLayer*>& layers() { return layers_; }
  Norm* final_norm() { return final_norm_; }  // null: none
  void set_recompute(bool on) { recompute_ = on; }
  bool recompute() const { return recompute_; }

 private:
  std::vector<DecoderLayer*> layers_;
  Norm* final_norm_ = nullptr;
  bool recompute_;
  Generator* dropout_rng_;
};

// Switches recompute on every stack under `root` (a whole model); returns how many.
int set_recompute(Module& root, bool on);

// Telemetry of every attention module under `root`, by dotted name.
std::vector<std::pair<std::string, MultiHeadAttention*>> attention_modules(Module& root);

}  // namespace ablate::nn
