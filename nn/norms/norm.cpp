#include "nn/norms/norm.h"

namespace ablate::nn {

NormRegistry& norm_registry() {
  static NormRegistry registry = [] {
    NormRegistry r("norm");
    register_layer_norm(r);
    register_batch_norm(r);
    register_rms_norm(r);
    register_no_norm(r);
    register_dyt_norm(r);
    return r;
  }();
  return registry;
}

}  // namespace ablate::nn
