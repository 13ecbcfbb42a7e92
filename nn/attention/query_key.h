#pragma once
// How queries and keys are made, the "attention.qk" axis:
//   separate  W_q and W_k (Vaswani et al. 2017); init = "unit_variance" draws them from
//             N(0, 1/d_model) instead of Xavier-uniform
//   shared    one projection for both, keys L2-normalised per head, and a token may not
//             attend to itself in self-attention unless nothing else is allowed
//             (Reformer, Kitaev et al. 2020); each detail switchable on its own
//   identity  no projection: the input itself, split into heads (the blog's question)
//   qk_norm   W_q and W_k, then LayerNorm of each head's queries and keys (QK-layernorm,
//             Dehghani et al. 2023; Wortsman et al. 2023)
#include <utility>

#include "nn/build_context.h"
#include "nn/module.h"
#include "nn/registry.h"

namespace ablate::nn {

class QueryKey : public Module {
 public:
  // x_q [B, Tq, D], x_kv [B, Tk, D] → (q [B, Tq, H·d_k], k [B, Tk, H·d_k]).
  virtual std::pair<Var, Var> project(const Var& x_q, const Var& x_kv) = 0;
  // Reformer's rule for self-attention: no attending to oneself unless forced.
  virtual bool excludes_self() const { return false; }
};

using QueryKeyRegistry = Registry<QueryKey, const BuildContext&>;
QueryKeyRegistry& query_key_registry();

void register_separate_query_key(QueryKeyRegistry&);
void register_shared_query_key(QueryKeyRegistry&);
void register_identity_query_key(QueryKeyRegistry&);
void register_qk_norm_query_key(QueryKeyRegistry&);

// Splits [B, T, H·d] into heads and L2-normalises each head's vector.
Var l2_normalize_heads(const Var& x, std::int64_t heads);

}  // namespace ablate::nn
