// `separate`: independent projections W_q and W_k (the standard Transformer).
#include "nn/attention/query_key.h"
#include "nn/layers/linear.h"

namespace ablate::nn {

namespace {

class SeparateQueryKey : public QueryKey {
 public:
  explicit SeparateQueryKey(const BuildContext& c) {
    w_q_ = &add_module(
        "w_q", std::make_unique<Linear>(c.d_model, c.heads * c.d_k, c.bias, c.init_rng(), c.dtype));
    w_k_ = &add_module(
        "w_k", std::make_unique<Linear>(c.d_model, c.heads * c.d_k, c.bias, c.init_rng(), c.dtype));
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
         {},
         [](const Options&, const BuildContext& c) {
           return std::make_unique<SeparateQueryKey>(c);
         }});
}

}  // namespace ablate::nn
