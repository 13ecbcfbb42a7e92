#include "experiments/runner/initial_gradients.h"

#include "experiments/io/json_number.h"
#include "nn/optim/gradients.h"

namespace ablate::experiments {

InitialGradients measure_initial_gradients(const nn::Module& model, const std::vector<Parameter*>& parameters) {
  // Depth 3, the grouping of metrics.jsonl's grad_norms: "encoder.layers.0", "output".
  return {true, nn::global_grad_norm(parameters), nn::grad_norms_by_module(model, 3)};
}

void add_initial_gradients(nlohmann::json& summary, const InitialGradients& gradients) {
  if (!gradients.recorded) return;
  nlohmann::json groups = nlohmann::json::object();
  for (const auto& [name, norm] : gradients.groups) groups[name] = finite_or_string(norm);
  summary["init_grad_norm"] = finite_or_string(gradients.global);
  summary["init_grad_norms"] = groups;
}

}  // namespace ablate::experiments
