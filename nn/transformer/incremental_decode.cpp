#include "nn/transformer/incremental_decode.h"

#include <cstring>

#include "autograd/kernels/gemm.h"
#include "nn/transformer/attention_row.h"
#include "nn/transformer/row_plan.h"
#include "nn/transformer/transformer_models.h"

namespace ablate::nn {

namespace {

constexpr std::int64_t kPacketFloats = 16;     // see the header: widths in whole packets
constexpr std::int64_t kRegimeFreeWidth = 64;  // K/V projections measured regime-free up to it

bool whole_packets(std::int64_t width) {
  return width % kPacketFloats == 0;
}

// LayerNorm (one op whose reductions run per row), BatchNorm in evaluation (running
// statistics) and no norm give a row the same bits wherever it is. Other norms are built
// of generic ops whose vectorised element functions (RMSNorm's pow on the [rows, 1] mean
// squares, DyT's tanh) compute an element one way inside an aligned 16-float packet and
// another outside (measured: RMSNorm before the self-attention changed cached keys).
bool norm_is_row_stable(const std::string& kind) {
  return kind == "layer" || kind == "batch" || kind == "none";
}

DecoderLayer& top_layer(Seq2SeqTransformer& model) {
  return *model.decoder().layers().back();
}

// Whether the self-attention's keys and values can be kept from the step that made them
// (else every step projects them again from all rows, with the full recompute's shapes).
// They can when the full recompute's own rows of them do not change with the prefix
// length: the layer's input rows must be the embeddings (one layer — below the top
// layer the full recompute's rows change bits with the prefix length: oneDNN's sgemm
// runs another kernel for fewer than 16 rows when N > 64, and the fused attention's exp
// and row sums group elements by where the row falls in the [T, T] block; the test's
// "not prefix-stable" case shows it), the norm before them row-stable, and the
// projections no wider than 64, where small_gemm and oneDNN give a row the same bits at
// every M (measured; checked by the test).
bool self_keys_cacheable(Seq2SeqTransformer& model) {
  const TransformerConfig& c = model.config();
  return c.decoder_layers == 1 && c.heads * c.head_dim_k() <= kRegimeFreeWidth &&
         c.heads * c.head_dim_v() <= kRegimeFreeWidth &&
         (!c.pre_norm() || norm_is_row_stable(c.norm.kind));
}

}  // namespace

const char* why_not_incremental(Seq2SeqTransformer& model) {
  const TransformerConfig& c = model.config();
  if (model.training()) return "the model is in training mode (dropout would draw)";
  if (c.dtype != DType::f32) return "the model is not f32";
  if (kernels::gemm_backend() != kernels::GemmBackend::onednn)
    return "the GEMM backend is not oneDNN (the row plans know its kernels only)";
  if (kernels::matmul_precision() != kernels::MatmulPrecision::f32)
    return "products are bf16 (their per-row bits were not examined)";
  if (!whole_packets(c.d_model) || !whole_packets(c.d_ff) || !whole_packets(c.head_dim_k()) ||
      !whole_packets(c.head_dim_v()))
    return "d_model, d_ff, d_k or d_v is not a multiple of 16 (Eigen's vectorised row paths "
           "would depend on where a row starts)";
  DecoderLayer& layer = top_layer(model);
  const PositionAction positions = model.target_positions().action();
  if (positions != PositionAction::added_to_embeddings && positions != PositionAction::none)
    return "the positions act inside attention";
  if (const char* why = layer.self_attention().why_not_fused_in_eval(&model.target_positions()))
    return why;
  if (const char* why = layer.cross_attention().why_not_fused_in_eval(nullptr)) return why;
  return nullptr;
}

IncrementalDecoder::IncrementalDecoder(Seq2SeqTransformer& model, const Tensor& src,
                                       const Tensor& memory, std::int64_t max_len)
    : model_(model),
      B_(src.shape()[0]),
      Ts_(src.shape()[1]),
      max_len_(max_len),
      cache_self_keys_(self_keys_cacheable(model)),
      memory_(memory) {
  src_mask_ = Tensor::empty({B_, Ts_}, DType::b8);
  const std::int32_t pad = model.vocabulary().pad;
  for (std::int64_t i = 0; i < B_ * Ts_; ++i)
    src_mask_.data<std::uint8_t>()[i] = src.data<std::int32_t>()[i] != pad;
  DecoderLayer& layer = top_layer(model);
  // The top layer's cross-attention keys and values: the full recompute computes them at
  // every step from the same memory with the same B·Ts rows, so once gives its bits.
  MultiHeadAttention& cross = layer.cross_attention();
  Var mem = constant(memory);
  Tensor keys = cross.query_key().project(mem, mem).second.value();
  Tensor values = cross.value_projection().project(mem).value();
  cross_.keys.assign(keys.data<float>(), keys.data<float>() + keys.numel());
  cross_.values.assign(values.data<float>(), values.data<float>() + values.numel());
  cross_.key_width = keys.shape()[2];
  cross_.value_width = values.shape()[2];
  cross_.rows = Ts_;
  MultiHeadAttention& self = layer.self_attention();
  self_.key_width = self.heads() * self.d_k();
  self_.value_width = self.heads() * self.d_v();
  self_.rows = max_len;
  if (cache_self_keys_) {
    self_.keys.resize(std::size_t(B_ * max_len * self_.key_width));
    self_.values.resize(std::size_t(B_ * max_len * self_.value_width));
  }
}

std::vector<std::int64_t> IncrementalDecoder::newest_positions(std::int64_t T) const {
  std::vector<std::int64_t> positions;  // the newest row of each batch element in [B·T]
  for (std::int64_t b = 0; b < B_; ++b) positions.push_back(b * T + T - 1);
  return positions;
}

RowPlan IncrementalDecoder::newest_rows_plan(std::int64_t T,
                                             const std::vector<GemmShape>& shapes) const {
  return plan_rows(B_ * T, newest_positions(T), shapes);
}

Var IncrementalDecoder::rows_as_in_full(const std::function<Var(const Var&)>& f, const Var& x,
                                        std::int64_t T, const std::vector<GemmShape>& shapes) {
  const RowPlan plan = newest_rows_plan(T, shapes);
  return gather_rows(f(pad_rows(x, plan)), plan);
}

Var IncrementalDecoder::output_rows(MultiHeadAttention& a, const Tensor& heads, std::int64_t T) {
  a.count_fused_forward();
  Linear* w_o = a.output_projection();
  if (!w_o) return constant(heads);
  const std::int64_t HV = heads.shape()[2];
  return rows_as_in_full([&](const Var& p) { return w_o->forward(p); }, constant(heads), T,
                         {{model_.config().d_model, HV}});
}

Var IncrementalDecoder::self_attend(const Var& x, const std::vector<std::int32_t>& prefix,
                                    std::int64_t T) {
  MultiHeadAttention& a = top_layer(model_).self_attention();
  const std::int64_t D = model_.config().d_model, HK = self_.key_width, HV = self_.value_width;
  const RowPlan newest = newest_rows_plan(T, {{HK, D}});
  Var q;
  const float *keys, *values;
  std::int64_t key_stride, value_stride;  // floats from one batch element's keys to the next
  if (cache_self_keys_) {
    // Queries and keys of the newest rows from one run (shared QK makes the keys from the
    // queries), kept for the steps after.
    const Var padded = pad_rows(x, newest);
    auto [q_rows, k_rows] = a.query_key().project(padded, padded);
    q = gather_rows(q_rows, newest);
    const Var k = gather_rows(k_rows, newest);
    const Var v = rows_as_in_full([&](const Var& p) { return a.value_projection().project(p); }, x,
                                  T, {{HV, D}});
    for (std::int64_t b = 0; b < B_; ++b) {
      std::memcpy(&self_.keys[std::size_t((b * max_len_ + T - 1) * HK)],
                  k.value().data<float>() + b * HK, std::size_t(HK) * 4);
      std::memcpy(&self_.values[std::size_t((b * max_len_ + T - 1) * HV)],
                  v.value().data<float>() + b * HV, std::size_t(HV) * 4);
    }
    keys = self_.keys.data(), values = self_.values.data();
    key_stride = max_len_ * HK, value_stride = max_len_ * HV;
  } else {
    // Every row's keys and values, as the full recompute projects them this step (the
    // same call on the same [B, T, D] input); the newest rows' queries from the same run.
    auto [q_all, k_all] = a.query_key().project(self_input_, self_input_);
    const Var v_all = a.value_projection().project(self_input_);
    RowPlan in_place{B_ * T, newest_positions(T)};
    q = gather_rows(q_all, in_place);
    keys = k_all.value().data<float>(), values = v_all.value().data<float>();
    key_stride = T * HK, value_stride = T * HV;
  }
  // The newest query's row of the full recompute's mask (MultiHeadAttention::build_mask):
  // real keys, causal (all of 0..T-1), and Reformer's rule.
  const std::int32_t pad = model_.vocabulary().pad;
  std::vector<std::uint8_t> allowed(std::size_t(B_ * T));
  for (std::int64_t b = 0; b < B_; ++b) {
    std::uint8_t* row = &allowed[std::size_t(b * T)];
    std::int64_t others = 0;
    for (std::int64_t j = 0; j < T; ++j) {
      row[j] = prefix[std::size_t(b * T + j)] != pad;
      others += row[j] && j != T - 1;
    }
    if (a.excludes_self() && others > 0) row[T - 1] = 0;
  }
  Tensor heads = Tape::current().alloc({B_, 1, HV}, DType::f32);
  attention_last_row({B_, a.heads(), T, T, a.d_k(), a.d_v()}, q.value().data<float>(), keys,
                     key_stride, values, value_stride, allowed.data(), float(*a.fixed_scale()),
                     heads.data<float>());
  return output_rows(a, heads, T);
}

Var IncrementalDecoder::cross_attend(const Var& x, std::int64_t T) {
  MultiHeadAttention& a = top_layer(model_).cross_attention();
  const std::int64_t D = model_.config().d_model, HK = cross_.key_width, HV = cross_.value_width;
  // The queries alone are wanted; project() makes keys of the same rows too (one row each).
  const Var q = rows_as_in_full([&](const Var& p) { return a.query_key().project(p, p).first; }, x,
                                T, {{HK, D}});
  Tensor heads = Tape::current().alloc({B_, 1, HV}, DType::f32);
  attention_last_row({B_, a.heads(), T, Ts_, a.d_k(), a.d_v()}, q.value().data<float>(),
                     cross_.keys.data(), Ts_ * HK, cross_.values.data(), Ts_ * HV,
                     src_mask_.data<std::uint8_t>(), float(*a.fixed_scale()), heads.data<float>());
  return output_rows(a, heads, T);
}

// A row-stable norm runs on the newest rows alone; another (post placement only: see
// why_not_incremental) on the full recompute's B·T rows, the newest rows in their places,
// so that each element takes the vectorised path it took there.
Var IncrementalDecoder::normalize(Norm& norm, const Var& x, const Tensor& row_mask,
                                  std::int64_t T) {
  if (norm_is_row_stable(model_.config().norm.kind)) return norm.forward(x, row_mask);
  const RowPlan plan{B_ * T, newest_positions(T)};
  Tensor mask = Tape::current().alloc({B_ * T, 1}, DType::b8);
  for (std::int64_t r = 0; r < B_ * T; ++r)
    mask.data<std::uint8_t>()[r] = row_mask.data<std::uint8_t>()[r / T];
  return gather_rows(norm.forward(pad_rows(x, plan), mask), plan);
}

Tensor IncrementalDecoder::step(const std::vector<std::int32_t>& prefix, std::int64_t T) {
  const TransformerConfig& c = model_.config();
  const std::int64_t D = c.d_model, V = model_.vocabulary().target_vocab;
  // Embeddings and positions are per-position arithmetic: the prefix's last row is the
  // full recompute's (and embedding the prefix costs little next to a layer).
  const Tensor ids = Tensor::from_data({B_, T}, prefix);
  Var y_all = model_.embed_target(ids);
  std::vector<DecoderLayer*>& layers = model_.decoder().layers();
  DecoderLayer& layer = *layers.back();
  if (!cache_self_keys_) {
    // The layers below the top one run as the full recompute runs them, on every row.
    const Tensor target_mask = token_mask(ids, model_.vocabulary().pad);
    for (std::size_t l = 0; l + 1 < layers.size(); ++l)
      y_all = layers[l]->forward(y_all, constant(memory_), target_mask, src_mask_,
                                 &model_.target_positions());
    self_input_ = layer.self_attention_input(y_all, target_mask);
  }
  const Var y = slice(y_all, 1, T - 1, T);
  Tensor row_mask = Tape::current().alloc({B_, 1}, DType::b8);
  for (std::int64_t b = 0; b < B_; ++b)
    row_mask.data<std::uint8_t>()[b] =
        prefix[std::size_t(b * T + T - 1)] != model_.vocabulary().pad;
  const std::int64_t inner = c.ffn.kind == "glu" ? 2 * c.d_ff : c.d_ff;  // linear1's width
  Var h = layer.wire(
      y, row_mask,
      {.self_attend = [&](const Var& x) { return self_attend(x, prefix, T); },
       .cross_attend = [&](const Var& x) { return cross_attend(x, T); },
       .feed_forward =
           [&](const Var& x) {
             return rows_as_in_full([&](const Var& p) { return layer.feed_forward().forward(p); },
                                    x, T, {{inner, D}, {D, c.d_ff}});
           },
       .normalize = [&](Norm& norm, const Var& x,
                        const Tensor& mask) { return normalize(norm, x, mask, T); }});
  if (Norm* norm = model_.decoder().final_norm()) h = normalize(*norm, h, row_mask, T);
  const Var logits =
      rows_as_in_full([&](const Var& p) { return model_.project_output(p); }, h, T, {{V, D}});
  return reshape(logits, {B_, V}).value();
}

}  // namespace ablate::nn
