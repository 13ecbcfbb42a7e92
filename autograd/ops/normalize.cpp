// Row normalisations over the last axis: LayerNorm (fused forward and backward) and
// L2 normalisation.
#include <algorithm>
#include <array>
#include <cmath>

#include "autograd/kernels/checks.h"
#include "autograd/kernels/eigen_maps.h"
#include "autograd/op_builder.h"
#include "autograd/ops.h"

namespace ablate {

Var layer_norm(const Var& x, const Var& gamma, const Var& beta, double eps) {
  const Shape& s = x.shape();
  if (s.rank() < 1) throw ShapeError("layer_norm: input needs a feature axis, got shape []");
  std::int64_t D = s[-1];
  for (const Var* p : {&gamma, &beta})
    if (p->defined()) {
      kernels::require_same_dtype(x.dtype(), p->dtype(), "layer_norm");
      require_same_shape(Shape{D}, p->shape(), "layer_norm", p == &gamma ? "gamma" : "beta");
    }
  std::array<Var, 3> inputs{x};
  int n_inputs = 1;
  if (gamma.defined()) inputs[std::size_t(n_inputs++)] = gamma;
  if (beta.defined()) inputs[std::size_t(n_inputs++)] = beta;
  OpBuilder op(OpKind::layer_norm, std::span<const Var>(inputs.data(), std::size_t(n_inputs)));
  op.integer(0, gamma.defined());
  op.integer(1, beta.defined());
  op.scalar(0, eps);
  std::int64_t rows = D ? s.numel() / D : 0;
  Tensor y = op.output(s, x.dtype());
  Tensor mean = op.scratch(Shape{rows}, x.dtype());
  Tensor rstd = op.scratch(Shape{rows}, x.dtype());
  op.save(0, mean);
  op.save(1, rstd);
  dispatch_float(x.dtype(), "layer_norm", [&]<class T>() {
    auto xr = kernels::crows<T>(op.input(0), D);
    auto yr = kernels::rows<T>(y, D);
    auto mu = kernels::flat<T>(mean);
    auto rs = kernels::flat<T>(rstd);
    mu = xr.rowwise().mean();
    yr = xr.colwise() - mu;
    rs = ((yr.square().rowwise().sum() / T(D)) + T(eps)).rsqrt();
    yr.colwise() *= rs;
    if (gamma.defined()) yr.rowwise() *= kernels::cflat<T>(gamma.value()).transpose();
    if (beta.defined()) yr.rowwise() += kernels::cflat<T>(beta.value()).transpose();
  });
  // With x̂ = (x - μ)·r and d = g⊙γ: dx = r·(d - mean(d) - x̂·mean(d⊙x̂)),
  // dγ = Σ_rows g⊙x̂, dβ = Σ_rows g.
  return op.finish(y, [](BackwardContext& c) {
    dispatch_float(c.dtype(), "layer_norm backward", [&]<class T>() {
      bool has_gamma = c.integer(0), has_beta = c.integer(1);
      const Tensor& x = c.input(0);
      std::int64_t D = x.shape()[-1], rows = D ? x.numel() / D : 0;
      const T* px = x.data<T>();
      const T* pg = c.output_grad().template data<T>();
      const T* mu = c.saved(0).data<T>();
      const T* rs = c.saved(1).data<T>();
      const T* gamma = has_gamma ? c.input(1).data<T>() : nullptr;
      int beta_slot = has_gamma ? 2 : 1;
      T* dgamma = has_gamma && c.needs_grad(1) ? c.input_grad(1).template data<T>() : nullptr;
      T* dbeta = has_beta && c.needs_grad(beta_slot) ? c.input_grad(beta_slot).template data<T>()
                                                     : nullptr;
      BackwardContext::GradSlot dx_slot{};
      if (c.needs_grad(0)) dx_slot = c.input_grad_slot(0);
      T* dx = c.needs_grad(0) ? dx_slot.grad.template data<T>() : nullptr;
      kernels::ArrayMap<T> dg(dgamma ? dgamma : nullptr, dgamma ? D : 0);
      kernels::ArrayMap<T> db(dbeta ? dbeta : nullptr, dbeta ? D : 0);
      kernels::ConstArrayMap<T> gam(gamma ? gamma : px, D);  // unused when !gamma
      for (std::int64_t r = 0; r < rows; ++r) {
        kernels::ConstArrayMap<T> xr(px + r * D, D), g(pg + r * D, D);
        auto xhat = (xr - mu[r]) * rs[r];
        if (dgamma) dg += g * xhat;
        if (dbeta) db += g;
        if (!dx) continue;
        kernels::ArrayMap<T> out(dx + r * D, D);
        if (gamma) {
          auto d = g * gam;
          T mean_d = d.sum() / T(D), mean_dxhat = (d * xhat).sum() / T(D);
          kernels::write_or_add(out, rs[r] * (d - mean_d - xhat * mean_dxhat), dx_slot.accumulate);
        } else {
          T mean_d = g.sum() / T(D), mean_dxhat = (g * xhat).sum() / T(D);
          kernels::write_or_add(out, rs[r] * (g - mean_d - xhat * mean_dxhat), dx_slot.accumulate);
        }
      }
    });
  });
}

Var l2_normalize(const Var& x, double eps) {
  const Shape& s = x.shape();
  if (s.rank() < 1) throw ShapeError("l2_normalize: input needs an axis, got shape []");
  std::int64_t D = s[-1], rows = D ? s.numel() / D : 0;
  OpBuilder op(OpKind::l2_normalize, {x});
  op.scalar(0, eps);
  Tensor y = op.output(s, x.dtype());
  Tensor norms = op.scratch(Shape{rows}, x.dtype());
  op.save(0, norms);
  dispatch_float(x.dtype(), "l2_normalize", [&]<class T>() {
    auto xr = kernels::crows<T>(op.input(0), D);
    auto yr = kernels::rows<T>(y, D);
    T* n = norms.data<T>();
    for (std::int64_t r = 0; r < rows;
         ++r) {  // per row: a colwise op on an expression would allocate
      n[r] = std::sqrt(xr.row(r).square().sum());
      yr.row(r) = xr.row(r) / std::max(n[r], T(eps));
    }
  });
  // Above eps: dx = (g - y·(g·y)) / ‖x‖; below it y = x/eps is linear: dx = g/eps.
  return op.finish(y, [](BackwardContext& c) {
    dispatch_float(c.dtype(), "l2_normalize backward", [&]<class T>() {
      T eps = T(c.scalar(0));
      std::int64_t D = c.input(0).shape()[-1];
      auto y = kernels::crows<T>(c.output(), D);
      auto g = kernels::crows<T>(c.output_grad(), D);
      auto n = kernels::cflat<T>(c.saved(0));
      auto gx = kernels::rows<T>(c.input_grad(0), D);
      for (Eigen::Index r = 0; r < y.rows(); ++r) {
        if (n[r] > eps)
          gx.row(r) += (g.row(r) - y.row(r) * (g.row(r) * y.row(r)).sum()) / n[r];
        else
          gx.row(r) += g.row(r) / eps;
      }
    });
  });
}

}  // namespace ablate
