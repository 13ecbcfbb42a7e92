// `separate`: independent projections W_q and W_k (the standard Transformer).
// init = "unit_variance" draws them from N(0, 1/d_model) instead of Xavier-uniform, so
// that with unit-variance inputs (as after LayerNorm) queries and keys have unit-variance
// coordinates and the unscaled score q·k has variance ≈ d_k — the premise of the
// 1/sqrt(d_k) scale. Xavier's variance 2/(d_model + H·d_k) shrinks q and k as d_k grows,
// so the unscaled score's variance does not grow with d_k (14, 14, 6.3 at d_model 64,
// 4 heads, d_k 8, 32, 128).
#include "nn/attention/query_key.h"
#include "nn/init.h"
#include "nn/layers/linear.h"

namespace ablate::nn {

namespace {

std::unique_ptr<Linear> projection(const BuildContext& c, bool unit_variance) {
  if (unit_variance)
    return std::make_unique<Linear>(
        init::lecun_normal({c.heads * c.d_k, c.d_model}, c.init_rng(), c.dtype), c.bias);
  return std::make_unique<Linear>(c.d_model, c.heads * c.d_k, c.bias, c.init_rng(), c.dtype);
}

class SeparateQueryKey : public QueryKey {
 public:
  SeparateQueryKey(const BuildContext& c, bool unit_variance) {
    w_q_ = &add_module("w_q", projection(c, unit_variance));
    w_k_ = &add_module("w_k", projection(c, unit_variance));
  }
  std::pair<Var, Var> project(const Var& x_q, const Var& x_kv) override {
    return {w_q_->forward(x_q), w_k_->forward(x_kv)};
  }

 private:
  Linear* w_q_;
  Linear* w_k_;
};

}  // namespace

void register_separate_query_key(QueryKeyRegistry& r) {
  r.add({"separate",
         "independent query and key projections W_q, W_k (Vaswani et al. 2017)",
         {{.key = "init",
           .default_value = std::string("xavier"),
           .doc = "initial W_q, W_k: xavier (Xavier-uniform) or unit_variance (N(0, 1/d_model): "
                  "unit-variance inputs give an unscaled q·k of variance ≈ d_k)",
           .choices = {"xavier", "unit_variance"},
           .omit_at_default = true}},
         [](const Options& o, const BuildContext& c) {
           return std::make_unique<SeparateQueryKey>(c, o.get_string("init") == "unit_variance");
         }});
}

}  // namespace ablate::nn
