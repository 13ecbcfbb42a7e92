#pragma once
// Position-wise feed-forward block, the "ffn" axis: relu | gelu (Linear, activation,
// dropout, Linear, as in the paper and PyTorch) | glu (gated: the first Linear makes
// 2·d_ff features a, b and the block keeps a ⊙ σ(b), Dauphin et al. 2017).
// Parameters: "linear1", "linear2" (named as in torch.nn.TransformerEncoderLayer).
#include "nn/build_context.h"
#include "nn/layers/dropout.h"
#include "nn/layers/linear.h"
#include "nn/module.h"
#include "nn/registry.h"

namespace ablate::nn {

class FeedForward : public Module {
 public:
  // x [..., D] → [..., D].
  virtual Var forward(const Var& x) = 0;
};

using FeedForwardRegistry = Registry<FeedForward, const BuildContext&>;
FeedForwardRegistry& feed_forward_registry();

}  // namespace ablate::nn
