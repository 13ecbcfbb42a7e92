// Inverted dropout: training multiplies by a keep-mask scaled by 1/(1-p), so eval is
// the identity and expected activations match between the two.
#include "autograd/kernels/eigen_maps.h"
#include "autograd/op_builder.h"
#include "autograd/ops.h"

namespace ablate {

Var dropout(const Var& x, double p, bool training, Generator& gen) {
  if (!(p >= 0.0 && p <= 1.0))
    throw std::invalid_argument("dropout: p must be in [0, 1], got " + std::to_string(p));
  if (!training || p == 0.0) return x;
  OpBuilder op(OpKind::dropout, {x});
  Tensor y = op.output(x.shape(), x.dtype());
  Tensor keep = op.scratch(x.shape(), x.dtype());
  op.save(0, keep);
  dispatch_float(x.dtype(), "dropout", [&]<class T>() {
    T* k = keep.data<T>();
    T kept = p < 1.0 ? T(1.0 / (1.0 - p)) : T(0);
    for (std::int64_t i = 0, n = x.numel(); i < n; ++i) k[i] = gen.uniform() < p ? T(0) : kept;
    kernels::flat<T>(y) = kernels::cflat<T>(op.input(0)) * kernels::cflat<T>(keep);
  });
  return op.finish(y, [](BackwardContext& c) {
    dispatch_float(c.dtype(), "dropout backward", [&]<class T>() {
      auto [gx, accumulate] = c.input_grad_slot(0);
      kernels::write_or_add(kernels::flat<T>(gx),
                            kernels::cflat<T>(c.output_grad()) * kernels::cflat<T>(c.saved(0)),
                            accumulate);
    });
  });
}

}  // namespace ablate
