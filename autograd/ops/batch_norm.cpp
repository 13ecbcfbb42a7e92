// BatchNorm over rows with a row mask: statistics from the counted (non-padding) rows
// only, applied to every row.
#include <cmath>

#include "autograd/checkpoint.h"
#include "autograd/kernels/checks.h"
#include "autograd/kernels/eigen_maps.h"
#include "autograd/op_builder.h"
#include "autograd/ops.h"

namespace ablate {

namespace {

// Shapes and dtypes; the mask's rows, as a pointer (null: every row counts).
const std::uint8_t* check_batch_norm(const Var& x, const Tensor& row_mask, const Var& gamma,
                                     const Var& beta, const Tensor& running_mean,
                                     const Tensor& running_var) {
  const Shape& s = x.shape();
  if (s.rank() < 2) throw ShapeError("batch_norm: input needs [rows, D], got " + s.str());
  std::int64_t D = s[-1], rows = D ? s.numel() / D : 0;
  for (const Var* p : {&gamma, &beta})
    if (p->defined()) {
      kernels::require_same_dtype(x.dtype(), p->dtype(), "batch_norm");
      require_same_shape(Shape{D}, p->shape(), "batch_norm", p == &gamma ? "gamma" : "beta");
    }
  for (const Tensor* r : {&running_mean, &running_var}) {
    require_same_shape(Shape{D}, r->shape(), "batch_norm", "running statistics");
    kernels::require_same_dtype(x.dtype(), r->dtype(), "batch_norm");
  }
  if (!row_mask.defined()) return nullptr;
  kernels::require_dtype(row_mask, DType::b8, "batch_norm", "row_mask");
  if (row_mask.numel() != rows)
    throw ShapeError("batch_norm: row_mask of shape " + row_mask.shape().str() + " has " +
                     std::to_string(row_mask.numel()) + " entries for " + std::to_string(rows) +
                     " rows of " + s.str());
  return row_mask.data<std::uint8_t>();
}

struct BatchNormForward {
  const std::uint8_t* mask;
  std::int64_t rows, D, counted;
  bool training;
  double momentum, eps;
};

// The statistics (the batch's, updating the running ones, or the running ones) into
// mean and rstd, then y = (x - μ)·r (·γ) (+ β).
template <class T>
void batch_norm_forward(const BatchNormForward& f, const Tensor& x, const Var& gamma,
                        const Var& beta, const Tensor& running_mean, const Tensor& running_var,
                        Tensor& mean, Tensor& rstd, Tensor& y, BatchStatistics* statistics) {
  const auto [mask, rows, D, counted, training, momentum, eps] = f;
  auto xr = kernels::crows<T>(x, D);
  auto mu = kernels::flat<T>(mean);
  auto rs = kernels::flat<T>(rstd);
  if (training) {
    mu.setZero();
    for (std::int64_t r = 0; r < rows; ++r)
      if (!mask || mask[r]) mu += xr.row(r).transpose();
    mu /= T(counted);
    rs.setZero();  // holds the variance until the end
    for (std::int64_t r = 0; r < rows; ++r)
      if (!mask || mask[r]) rs += (xr.row(r).transpose() - mu).square();
    rs /= T(counted);
    if (statistics) {
      statistics->mean.assign(mu.data(), mu.data() + D);
      statistics->variance.assign(rs.data(), rs.data() + D);
      statistics->rows = counted;
    }
    if (!recomputing()) {  // checkpoint's recompute: the forward has updated them already
      auto rm = kernels::flat<T>(running_mean);
      auto rv = kernels::flat<T>(running_var);
      rm = (T(1) - T(momentum)) * rm + T(momentum) * mu;
      rv = (T(1) - T(momentum)) * rv + T(momentum) * rs * (T(counted) / T(counted - 1));
    }
    rs = (rs + T(eps)).rsqrt();
  } else {
    mu = kernels::cflat<T>(running_mean);
    rs = (kernels::cflat<T>(running_var) + T(eps)).rsqrt();
  }
  auto yr = kernels::rows<T>(y, D);
  for (std::int64_t r = 0; r < rows; ++r) {
    yr.row(r) = (xr.row(r) - mu.transpose()) * rs.transpose();
    if (gamma.defined()) yr.row(r) *= kernels::cflat<T>(gamma.value()).transpose();
    if (beta.defined()) yr.row(r) += kernels::cflat<T>(beta.value()).transpose();
  }
}

// With x̂ = (x - μ)·r and d = g⊙γ, in training the statistics come from the n counted
// rows but every row's output depends on them:
//   dx_i = r·(d_i - [i counted]·(Σ_all d + x̂_i·Σ_all d⊙x̂)/n),
// and in eval (fixed statistics) dx = r·d. dγ = Σ g⊙x̂, dβ = Σ g over all rows.
template <class T>
void batch_norm_backward(BackwardContext& c) {
  bool has_gamma = c.integer(0), has_beta = c.integer(1), training = c.integer(2);
  T n = T(c.integer(3));
  const Tensor& x = c.input(0);
  std::int64_t D = x.shape()[-1], rows = D ? x.numel() / D : 0;
  auto xr = kernels::crows<T>(x, D);
  auto g = kernels::crows<T>(c.output_grad(), D);
  auto mu = kernels::cflat<T>(c.saved(0));
  auto rs = kernels::cflat<T>(c.saved(1));
  Tensor d_sum = c.scratch({D}, c.dtype()), dx_sum = c.scratch({D}, c.dtype());
  auto sd = kernels::flat<T>(d_sum), sdx = kernels::flat<T>(dx_sum);
  sd.setZero();
  sdx.setZero();
  int gi = 1;
  T* dgamma = has_gamma && c.needs_grad(gi) ? c.input_grad(gi).template data<T>() : nullptr;
  const T* gam = has_gamma ? c.input(gi).data<T>() : nullptr;
  if (has_gamma) ++gi;
  T* dbeta = has_beta && c.needs_grad(gi) ? c.input_grad(gi).template data<T>() : nullptr;
  for (std::int64_t r = 0; r < rows; ++r) {
    auto xhat = (xr.row(r) - mu.transpose()) * rs.transpose();
    for (std::int64_t j = 0; j < D; ++j) {
      T gj = g(r, j), dj = gam ? gj * gam[j] : gj;
      if (dgamma) dgamma[j] += gj * xhat(j);
      if (dbeta) dbeta[j] += gj;
      sd[j] += dj;
      sdx[j] += dj * xhat(j);
    }
  }
  if (!c.needs_grad(0)) return;
  auto dx = kernels::rows<T>(c.input_grad(0), D);
  const std::uint8_t* counted = c.saved(2).defined() ? c.saved(2).data<std::uint8_t>() : nullptr;
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t j = 0; j < D; ++j) {
      T gj = g(r, j), dj = gam ? gj * gam[j] : gj;
      T v = dj;
      if (training && (!counted || counted[r])) {
        T xhat = (xr(r, j) - mu[j]) * rs[j];
        v -= (sd[j] + xhat * sdx[j]) / n;
      }
      dx(r, j) += rs[j] * v;
    }
}

}  // namespace

Var batch_norm(const Var& x, const Tensor& row_mask, const Var& gamma, const Var& beta,
               const Tensor& running_mean, const Tensor& running_var, bool training,
               double momentum, double eps, BatchStatistics* statistics) {
  const std::uint8_t* mask = check_batch_norm(x, row_mask, gamma, beta, running_mean, running_var);
  const Shape& s = x.shape();
  std::int64_t D = s[-1], rows = D ? s.numel() / D : 0;
  std::int64_t counted = 0;
  for (std::int64_t r = 0; r < rows; ++r) counted += !mask || mask[r];
  if (training && counted < 2)
    throw std::invalid_argument(
        "batch_norm: training needs at least 2 non-padding rows for batch statistics, got " +
        std::to_string(counted) + " (use a larger batch, or another norm)");

  std::array<Var, 3> inputs{x};
  int n_inputs = 1;
  if (gamma.defined()) inputs[std::size_t(n_inputs++)] = gamma;
  if (beta.defined()) inputs[std::size_t(n_inputs++)] = beta;
  OpBuilder op(OpKind::batch_norm, std::span<const Var>(inputs.data(), std::size_t(n_inputs)));
  op.integer(0, gamma.defined());
  op.integer(1, beta.defined());
  op.integer(2, training);
  op.integer(3, counted);
  Tensor y = op.output(s, x.dtype());
  Tensor mean = op.scratch({D}, x.dtype()), rstd = op.scratch({D}, x.dtype());
  op.save(0, mean);
  op.save(1, rstd);
  op.save(2, row_mask);
  const BatchNormForward f{mask, rows, D, counted, training, momentum, eps};
  dispatch_float(x.dtype(), "batch_norm", [&]<class T>() {
    batch_norm_forward<T>(f, op.input(0), gamma, beta, running_mean, running_var, mean, rstd, y,
                          statistics);
  });
  return op.finish(y, [](BackwardContext& c) {
    dispatch_float(c.dtype(), "batch_norm backward", [&]<class T>() { batch_norm_backward<T>(c); });
  });
}

}  // namespace ablate
