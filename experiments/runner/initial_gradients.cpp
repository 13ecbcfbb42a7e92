#include "experiments/runner/initial_gradients.h"

#include "nn/optim/gradients.h"

namespace ablate::experiments {

InitialGradients measure_initial_gradients(const nn::Module& model,
                                           const std::vector<Parameter*>& parameters) {
  // Depth 3, the grouping of metrics.jsonl's grad_norms: "encoder.layers.0", "output".
  return {true, nn::global_grad_norm(parameters), nn::grad_norms_by_module(model, 3)};
}

}  // namespace ablate::experiments
