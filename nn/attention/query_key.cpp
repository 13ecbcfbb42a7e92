#include "nn/attention/query_key.h"

namespace ablate::nn {

QueryKeyRegistry& query_key_registry() {
  static QueryKeyRegistry registry = [] {
    QueryKeyRegistry r("attention.qk");
    register_separate_query_key(r);
    register_shared_query_key(r);
    register_identity_query_key(r);
    register_qk_norm_query_key(r);
    return r;
  }();
  return registry;
}

Var l2_normalize_heads(const Var& x, std::int64_t heads) {
  const Shape& s = x.shape();
  std::int64_t B = s[0], T = s[1], HD = s[2];
  return reshape(l2_normalize(reshape(x, {B, T, heads, HD / heads})), {B, T, HD});
}

}  // namespace ablate::nn
