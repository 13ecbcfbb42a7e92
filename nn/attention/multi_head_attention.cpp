#include "nn/attention/multi_head_attention.h"

#include <cmath>

#include "autograd/checkpoint.h"

namespace ablate::nn {

std::vector<double> AttentionTelemetry::mean_entropy() const {
  std::vector<double> out(entropy_sum.size());
  for (std::size_t h = 0; h < out.size(); ++h) out[h] = rows ? entropy_sum[h] / double(rows) : 0.0;
  return out;
}

std::vector<double> AttentionTelemetry::mean_max_prob() const {
  std::vector<double> out(max_prob_sum.size());
  for (std::size_t h = 0; h < out.size(); ++h) out[h] = rows ? max_prob_sum[h] / double(rows) : 0.0;
  return out;
}

void AttentionTelemetry::reset() {
  std::fill(entropy_sum.begin(), entropy_sum.end(), 0.0);
  std::fill(max_prob_sum.begin(), max_prob_sum.end(), 0.0);
  rows = 0;
}

MultiHeadAttention::MultiHeadAttention(const AttentionConfig& config, BuildContext ctx,
                                       bool self_attention)
    : heads_(ctx.heads),
      d_model_(ctx.d_model),
      self_attention_(self_attention),
      record_(config.telemetry),
      dropout_(config.dropout),
      dropout_rng_(ctx.dropout_rng) {
  if (heads_ <= 0 || d_model_ <= 0)
    throw std::invalid_argument("attention: heads and d_model must be positive");
  if ((config.d_k == 0 || config.d_v == 0) && d_model_ % heads_ != 0)
    throw std::invalid_argument("attention: d_model = " + std::to_string(d_model_) +
                                " is not divisible by heads = " + std::to_string(heads_));
  d_k_ = config.d_k ? config.d_k : d_model_ / heads_;
  d_v_ = config.d_v ? config.d_v : d_model_ / heads_;
  ctx.d_k = d_k_;
  ctx.d_v = d_v_;
  qk_ = &add_module("", query_key_registry().create(config.qk.kind, config.qk.options, ctx));
  v_ = &add_module("", value_registry().create(config.v.kind, config.v.options, ctx));
  scale_ =
      &add_module("", score_scale_registry().create(config.scale.kind, config.scale.options, ctx));
  if (config.output_projection)
    w_o_ = &add_module("w_o", std::make_unique<Linear>(heads_ * d_v_, d_model_, ctx.bias,
                                                       ctx.init_rng(), ctx.dtype));
  else if (heads_ * d_v_ != d_model_)
    throw std::invalid_argument(
        "attention without an output projection needs heads * d_v == d_model (" +
        std::to_string(heads_) + " * " + std::to_string(d_v_) + " != " + std::to_string(d_model_) +
        ")");
  if (dropout_ > 0 && !dropout_rng_)
    throw std::logic_error("attention: dropout needs a dropout generator in the BuildContext");
  telemetry_.entropy_sum.assign(std::size_t(heads_), 0.0);
  telemetry_.max_prob_sum.assign(std::size_t(heads_), 0.0);
}

// allowed(b, i, j) = key_mask[b, j] && (!causal || j <= i) && Reformer's self rule.
Tensor MultiHeadAttention::build_mask(std::int64_t B, std::int64_t Tq, std::int64_t Tk,
                                      const Tensor& key_mask, bool causal) const {
  bool exclude_self = self_attention_ && qk_->excludes_self();
  if (!key_mask.defined() && !causal && !exclude_self) return Tensor();
  if (key_mask.defined() && !(key_mask.shape() == Shape{B, Tk}))
    throw ShapeError("attention: key mask must be [batch, keys] = " + Shape{B, Tk}.str() +
                     ", got " + key_mask.shape().str());
  Tensor mask = Tape::current().alloc({B, 1, Tq, Tk}, DType::b8);
  auto* m = mask.data<std::uint8_t>();
  const std::uint8_t* km = key_mask.defined() ? key_mask.data<std::uint8_t>() : nullptr;
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t i = 0; i < Tq; ++i) {
      std::uint8_t* row = m + (b * Tq + i) * Tk;
      std::int64_t others = 0;
      for (std::int64_t j = 0; j < Tk; ++j) {
        row[j] = (!km || km[b * Tk + j]) && (!causal || j <= i);
        others += row[j] && j != i;
      }
      if (exclude_self && i < Tk && others > 0) row[i] = 0;
    }
  return mask;
}

// Telemetry and captures count each forward once: not again when checkpoint
// recomputes the layer in the backward.
bool MultiHeadAttention::observing() const {
  return (record_ || capture_) && !recomputing();
}

void MultiHeadAttention::record_telemetry(const Tensor& a) {
  // a [B, H, Tq, Tk]; rows with no allowed key are all zeros and are skipped.
  const Shape& s = a.shape();
  std::int64_t B = s[0], H = s[1], Tq = s[2], Tk = s[3];
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t h = 0; h < H; ++h)
      for (std::int64_t i = 0; i < Tq; ++i) {
        std::int64_t base = ((b * H + h) * Tq + i) * Tk;
        double entropy = 0, mx = 0, total = 0;
        for (std::int64_t j = 0; j < Tk; ++j) {
          double p = a.at(base + j);
          total += p;
          mx = std::max(mx, p);
          if (p > 0) entropy -= p * std::log(p);
        }
        if (total == 0) continue;
        telemetry_.entropy_sum[std::size_t(h)] += entropy;
        telemetry_.max_prob_sum[std::size_t(h)] += mx;
        if (h == 0) ++telemetry_.rows;
      }
}

const char* MultiHeadAttention::why_not_fused(bool scale_is_fixed, bool dropping,
                                              const PositionEncoding* positions) const {
  if (!fused_allowed_) return "the fused path is switched off (allow_fused_path(false))";
  if (!scale_is_fixed) return "the score scale is not a fixed factor (it is learned)";
  if (dropping) return "attention dropout is on while training";
  if (positions && positions->action() == PositionAction::rotates_queries_keys)
    return "the positions rotate the queries and keys inside attention";
  if (positions && positions->action() == PositionAction::biases_scores)
    return "the positions bias the attention scores";
  return nullptr;
}

const char* MultiHeadAttention::why_not_fused_in_eval(const PositionEncoding* positions) const {
  if (record_ || capture_) return "attention telemetry or capture is on (it records every row)";
  return why_not_fused(scale_->constant_factor().has_value(), false, positions);
}

Var MultiHeadAttention::forward(const Var& x_q, const Var& x_kv, const Tensor& key_mask,
                                bool causal, PositionEncoding* positions) {
  const Shape& sq = x_q.shape();
  const Shape& sk = x_kv.shape();
  if (sq.rank() != 3 || sk.rank() != 3 || sq[2] != d_model_ || sk[2] != d_model_ || sq[0] != sk[0])
    throw ShapeError("attention: expected queries [B, Tq, " + std::to_string(d_model_) +
                     "] and keys/values [B, Tk, " + std::to_string(d_model_) + "], got " +
                     sq.str() + " and " + sk.str());
  std::int64_t B = sq[0], Tq = sq[1], Tk = sk[1], H = heads_;
  auto [q, k] = qk_->project(x_q, x_kv);
  Var v = v_->project(x_kv);
  std::optional<double> factor = scale_->constant_factor();
  bool dropping = dropout_ > 0 && training();
  const char* refused = why_not_fused(factor.has_value(), dropping, positions);
  if (!refused) {
    // The common case runs as one fused op (no head split/merge copies); schemes
    // declared to act inside attention (rotary, ALiBi, T5's bias), a learned scale and
    // attention dropout take the general path below.
    ++path_record_.fused;
    Tensor weights;
    Var out = attention(q, k, v, H, build_mask(B, Tq, Tk, key_mask, causal), *factor, &weights);
    if (observing()) {
      if (record_) record_telemetry(weights);
      if (capture_) captured_ = weights.clone();
    }
    return w_o_ ? w_o_->forward(out) : out;
  }
  ++path_record_.general;
  if (path_record_.why_not_fused.empty()) path_record_.why_not_fused = refused;
  // [B, T, H·d] → [B, H, T, d]
  q = permute(reshape(q, {B, Tq, H, d_k_}), {0, 2, 1, 3});
  k = permute(reshape(k, {B, Tk, H, d_k_}), {0, 2, 1, 3});
  v = permute(reshape(v, {B, Tk, H, d_v_}), {0, 2, 1, 3});
  const PositionAction acting = positions ? positions->action() : PositionAction::none;
  if (acting == PositionAction::rotates_queries_keys) {
    q = positions->rotate(q);
    k = positions->rotate(k);
  }
  Var scores = matmul(q, k, false, true);  // [B, H, Tq, Tk]
  Var bias = acting == PositionAction::biases_scores
                 ? positions->score_bias(H, Tq, Tk, causal, scores.dtype())
                 : Var();
  double softmax_scale = 1.0;
  if (!factor)
    scores = scale_->apply(scores);
  else if (bias.defined())
    scores = scores * *factor;  // the bias must not be scaled with the scores
  else
    softmax_scale = *factor;  // fused into the softmax
  if (bias.defined()) scores = scores + bias;
  Var attention = softmax(scores, build_mask(B, Tq, Tk, key_mask, causal), softmax_scale);
  if (observing()) {
    if (record_) record_telemetry(attention.value());
    if (capture_) captured_ = attention.value().clone();
  }
  if (dropout_ > 0 && training()) attention = dropout(attention, dropout_, true, *dropout_rng_);
  Var out = matmul(attention, v);  // [B, H, Tq, d_v]
  out = reshape(permute(out, {0, 2, 1, 3}), {B, Tq, H * d_v_});
  return w_o_ ? w_o_->forward(out) : out;
}

}  // namespace ablate::nn
