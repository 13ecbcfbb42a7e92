// `none`: no normalisation (the identity), to ablate the norm away entirely.
#include "nn/norms/norm.h"

namespace ablate::nn {

namespace {
class NoNorm : public Norm {
 public:
  Var forward(const Var& x, const Tensor&) override { return x; }
};
}  // namespace

void register_no_norm(NormRegistry& r) {
  r.add({"none", "no normalisation (identity)", {}, [](const Options&, const BuildContext&) {
           return std::make_unique<NoNorm>();
         }});
}

}  // namespace ablate::nn
