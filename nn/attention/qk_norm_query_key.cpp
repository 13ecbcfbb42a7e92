// `qk_norm`: QK-layernorm. Separate projections W_q and W_k, then a LayerNorm of each
// head's query and of each head's key over its d_k features, before the scaled dot
// product:  score_ij = LN_q(q_i) · LN_k(k_j) / sqrt(d_k)  (the scale stays on its own
// axis, attention.scale).
// Wortsman et al. 2023, "Small-scale proxies for large-scale Transformer training
// instabilities": every model is a pre-norm Transformer with qk-layernorm unless a
// section says otherwise (§2, experimental methodology); §3.1.1 (attention logit
// growth) describes it — LayerNorm applied to the queries and keys before the dot
// product — and trains without it to reproduce the logit growth and the learning-rate
// sensitivity it removes. It follows Dehghani et al. 2023 (ViT-22B), whose attention
// is softmax(LN(X W^Q) LN(X W^K)^T / sqrt(d)), LN applied per head.
// Two LayerNorms, one for queries (`q_norm`) and one for keys (`k_norm`), each with a
// learned gain (ones) of [d_k] shared by the heads — what a LayerNorm over the last
// axis of [B, T, H, d_k] is in both papers' (Flax) code — and a learned shift (zeros)
// of [d_k] unless `bias = false`: Wortsman et al.'s models use no biases (§2, after
// PaLM), ViT-22B's LayerNorms keep theirs; the option lets an experiment say which.
// Verified from the paper's abstract, §2's quoted text and its pointer to §3.1.1; not
// verified (the PDF and the papers' code were not readable here): the exact equation
// numbers, whether their qk LayerNorms keep a bias, and eps (Flax's LayerNorm default
// is 1e-6, torch's 1e-5; the default below is torch's, as our `layer` norm uses).
#include "nn/attention/query_key.h"
#include "nn/init.h"
#include "nn/layers/linear.h"

namespace ablate::nn {

namespace {

// One LayerNorm over each head's d_k features of [B, T, H·d_k].
class HeadLayerNorm : public Module {
 public:
  HeadLayerNorm(std::int64_t heads, std::int64_t d_k, double eps, bool bias, DType dtype)
      : heads_(heads), eps_(eps) {
    gamma_ = &add_parameter("weight", init::ones({d_k}, dtype));
    if (bias) beta_ = &add_parameter("bias", init::zeros({d_k}, dtype));
  }
  Var forward(const Var& x) {
    const Shape& s = x.shape();
    std::int64_t B = s[0], T = s[1], HD = s[2];
    Var per_head = reshape(x, {B, T, heads_, HD / heads_});
    Var normed = layer_norm(per_head, leaf(*gamma_), beta_ ? leaf(*beta_) : Var(), eps_);
    return reshape(normed, {B, T, HD});
  }

 private:
  std::int64_t heads_;
  double eps_;
  Parameter* gamma_;
  Parameter* beta_ = nullptr;
};

class QkNormQueryKey : public QueryKey {
 public:
  QkNormQueryKey(const BuildContext& c, double eps, bool bias) {
    w_q_ = &add_module(
        "w_q", std::make_unique<Linear>(c.d_model, c.heads * c.d_k, c.bias, c.init_rng(), c.dtype));
    w_k_ = &add_module(
        "w_k", std::make_unique<Linear>(c.d_model, c.heads * c.d_k, c.bias, c.init_rng(), c.dtype));
    q_norm_ =
        &add_module("q_norm", std::make_unique<HeadLayerNorm>(c.heads, c.d_k, eps, bias, c.dtype));
    k_norm_ =
        &add_module("k_norm", std::make_unique<HeadLayerNorm>(c.heads, c.d_k, eps, bias, c.dtype));
  }
  std::pair<Var, Var> project(const Var& x_q, const Var& x_kv) override {
    return {q_norm_->forward(w_q_->forward(x_q)), k_norm_->forward(w_k_->forward(x_kv))};
  }

 private:
  Linear* w_q_;
  Linear* w_k_;
  HeadLayerNorm* q_norm_;
  HeadLayerNorm* k_norm_;
};

}  // namespace

void register_qk_norm_query_key(QueryKeyRegistry& r) {
  r.add({"qk_norm",
         "QK-layernorm: W_q, W_k, then LayerNorm per head (Dehghani et al.; Wortsman et al. 2023)",
         {{"eps", 1e-5, "added to the variance in both LayerNorms", 0.0, 1.0},
          {"bias", true, "learned shift in both LayerNorms (the gain is always learned)"}},
         [](const Options& o, const BuildContext& c) {
           return std::make_unique<QkNormQueryKey>(c, o.get_float("eps"), o.get_bool("bias"));
         }});
}

}  // namespace ablate::nn
