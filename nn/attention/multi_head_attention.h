#pragma once
// Multi-head attention whose parts are independent axes (see query_key.h, value.h,
// score_scale.h), with masks, optional dropout on the attention weights, an optional
// output projection, and cheap opt-in telemetry.
#include <string>
#include <vector>

#include "nn/attention/attention_path_record.h"
#include "nn/attention/query_key.h"
#include "nn/attention/score_scale.h"
#include "nn/attention/value.h"
#include "nn/component.h"
#include "nn/layers/linear.h"
#include "nn/positions/position_encoding.h"

namespace ablate::nn {

struct AttentionConfig {
  Component qk{"separate"};
  Component v{"projected"};
  Component scale{"sqrt_dk"};
  bool output_projection = true;
  std::int64_t d_k = 0;  // per head; 0 = d_model / heads
  std::int64_t d_v = 0;  // per head; 0 = d_model / heads
  double dropout = 0.0;  // on the attention weights, while training
  bool telemetry = false;
};

// Per head, averaged over every (batch, query) row that attends to something, since
// the last reset(): entropy of the attention distribution (nats) and its largest
// probability (1 = a saturated softmax).
struct AttentionTelemetry {
  std::vector<double> entropy_sum, max_prob_sum;
  std::int64_t rows = 0;
  std::vector<double> mean_entropy() const;
  std::vector<double> mean_max_prob() const;
  void reset();
};

class MultiHeadAttention : public Module {
 public:
  // self_attention: queries and keys come from the same sequence (enables Reformer's
  // no-attending-to-self rule for shared QK). ctx.heads, ctx.d_model set the shape.
  MultiHeadAttention(const AttentionConfig& config, BuildContext ctx, bool self_attention);

  // x_q [B, Tq, D], x_kv [B, Tk, D]; key_mask b8 [B, Tk] (true = real token) or
  // undefined; causal: query i sees keys j <= i. positions act here when their declared
  // action is inside attention (rotary rotates q/k, ALiBi biases scores); null = none. Returns [B,
  // Tq, D] (or [B, Tq, H·d_v] without an output projection, which then must equal D).
  Var forward(const Var& x_q, const Var& x_kv, const Tensor& key_mask, bool causal,
              PositionEncoding* positions = nullptr);

  AttentionTelemetry& telemetry() { return telemetry_; }
  // Keep a copy of the attention weights [B, H, Tq, Tk] of each forward (for
  // heatmaps; copies, so off by default).
  void capture_attention(bool on) { capture_ = on; }
  const Tensor& captured_attention() const { return captured_; }
  std::int64_t heads() const { return heads_; }
  // Off: every forward takes the general path (head split, matmul, softmax, matmul),
  // which the fused op must equal — tests compare the two for every combination.
  void allow_fused_path(bool on) { fused_allowed_ = on; }
  const AttentionPathRecord& path_record() const { return path_record_; }

  // The parts an incremental decoder (nn/transformer/incremental_decode.h) runs itself,
  // one query row at a time on the fused path's arithmetic.
  QueryKey& query_key() { return *qk_; }
  ValueProjection& value_projection() { return *v_; }
  Linear* output_projection() { return w_o_; }
  std::int64_t d_k() const { return d_k_; }
  std::int64_t d_v() const { return d_v_; }
  // Reformer's rule applies: a query may not see its own key while another is allowed.
  bool excludes_self() const { return self_attention_ && qk_->excludes_self(); }
  std::optional<double> fixed_scale() const { return scale_->constant_factor(); }
  // nullptr when an evaluation forward (no dropout) with `positions` takes the fused path
  // and records nothing beyond the path count, else why not.
  const char* why_not_fused_in_eval(const PositionEncoding* positions) const;
  // An incremental step counts as the fused forward the full recompute would have run.
  void count_fused_forward() { ++path_record_.fused; }

 private:
  Tensor build_mask(std::int64_t B, std::int64_t Tq, std::int64_t Tk, const Tensor& key_mask,
                    bool causal) const;
  bool observing() const;
  void record_telemetry(const Tensor& attention);
  // nullptr when this forward can take the fused path, else why not.
  const char* why_not_fused(bool scale_is_fixed, bool dropping,
                            const PositionEncoding* positions) const;

  std::int64_t heads_, d_k_, d_v_, d_model_;
  bool self_attention_, record_;
  double dropout_;
  Generator* dropout_rng_;
  QueryKey* qk_;
  ValueProjection* v_;
  ScoreScale* scale_;
  Linear* w_o_ = nullptr;
  AttentionTelemetry telemetry_;
  bool capture_ = false;
  bool fused_allowed_ = true;
  AttentionPathRecord path_record_;
  Tensor captured_;
};

}  // namespace ablate::nn
