// `shared`: Reformer's shared-QK attention (Kitaev et al. 2020, §2): one projection
// W_qk makes queries and keys; keys are L2-normalised per head (normalize_keys) and in
// self-attention a token may not attend to itself unless no other position is allowed
// (exclude_self). Each detail can be switched off alone to isolate it in an ablation.
#include "nn/attention/query_key.h"
#include "nn/layers/linear.h"

namespace ablate::nn {

namespace {

class SharedQueryKey : public QueryKey {
 public:
  SharedQueryKey(const BuildContext& c, bool normalize_keys, bool exclude_self)
      : heads_(c.heads), normalize_keys_(normalize_keys), exclude_self_(exclude_self) {
    w_qk_ = &add_module("w_qk", std::make_unique<Linear>(c.d_model, c.heads * c.d_k, c.bias,
                                                         c.init_rng(), c.dtype));
  }
  std::pair<Var, Var> project(const Var& x_q, const Var& x_kv) override {
    Var q = w_qk_->forward(x_q);
    Var k = x_kv.index() == x_q.index() ? q : w_qk_->forward(x_kv);
    return {q, normalize_keys_ ? l2_normalize_heads(k, heads_) : k};
  }
  bool excludes_self() const override { return exclude_self_; }

 private:
  std::int64_t heads_;
  bool normalize_keys_, exclude_self_;
  Linear* w_qk_;
};

}  // namespace

void register_shared_query_key(QueryKeyRegistry& r) {
  r.add({"shared",
         "one projection for queries and keys (Reformer, Kitaev et al. 2020)",
         {{"normalize_keys", true, "L2-normalise each head's keys"},
          {"exclude_self", true,
           "in self-attention, a token attends to itself only when nothing else is allowed"}},
         [](const Options& o, const BuildContext& c) {
           return std::make_unique<SharedQueryKey>(c, o.get_bool("normalize_keys"),
                                                   o.get_bool("exclude_self"));
         }});
}

}  // namespace ablate::nn
