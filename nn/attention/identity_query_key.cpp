// `identity`: no projections at all — scores are dot products of the inputs
// themselves, split into heads. The blog asks whether attention works without
// projections; this variant answers it. Needs heads·d_k = d_model.
#include "nn/attention/query_key.h"

namespace ablate::nn {

namespace {

class IdentityQueryKey : public QueryKey {
 public:
  std::pair<Var, Var> project(const Var& x_q, const Var& x_kv) override { return {x_q, x_kv}; }
};

}  // namespace

void register_identity_query_key(QueryKeyRegistry& r) {
  r.add({"identity",
         "no query/key projections: scores on the inputs themselves",
         {},
         [](const Options&, const BuildContext& c) {
           if (c.heads * c.d_k != c.d_model)
             throw std::invalid_argument("attention.qk 'identity' needs heads * d_k == d_model (" +
                                         std::to_string(c.heads) + " * " + std::to_string(c.d_k) +
                                         " != " + std::to_string(c.d_model) + ")");
           return std::make_unique<IdentityQueryKey>();
         }});
}

}  // namespace ablate::nn
