#pragma once
// The four reference models of the PyTorch comparison (tiny, small, medium, base;
// shapes in bench/reference_configs.h): a post-norm encoder–decoder, sinusoidal
// positions, separate Q/K, 1/sqrt(d_k), ReLU FFN, dropout 0, Adam, the copy task on
// random tokens, f32. bench/compare_torch.py builds the same models in PyTorch, and
// bench/libtorch_peer.cpp in libtorch's C++ API.
#include <cstdint>
#include <memory>

#include "autograd/ablate.h"
#include "bench/reference_configs.h"
#include "nn/optim/optimizer.h"
#include "nn/transformer/transformer_models.h"

namespace ablate::bench {

// A model, its Adam optimizer and one fixed batch of the copy task: source = random
// tokens, decoder input = BOS + source[:-1], targets = source.
class ReferenceModel {
 public:
  explicit ReferenceModel(const ReferenceConfig& config, std::uint64_t seed = 1);
  // Forward, backward, Adam update; returns the loss.
  double train_step();
  // Forward only, without recording gradients; returns the loss.
  double forward_only();
  std::int64_t parameter_count() const { return model_->parameter_count(true); }
  // Activation recomputation (TransformerConfig::recompute) in every layer; off by default.
  void set_recompute(bool on) { nn::set_recompute(*model_, on); }

 private:
  Var loss();
  ReferenceConfig config_;
  std::unique_ptr<nn::Seq2SeqTransformer> model_;
  std::unique_ptr<nn::Optimizer> optimizer_;
  Tensor src_, tgt_in_, targets_;
};

}  // namespace ablate::bench
