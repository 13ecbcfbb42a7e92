// T5's relative position bias (Raffel et al. 2020, §2.1 "Positional embeddings"): no
// position embeddings; each head adds a learned scalar to the score of query i and key
// j, read from a table [num_buckets, heads] at the bucket of the relative position
// j - i. Buckets are exact for small distances and logarithmically wider beyond, up to
// max_distance; every farther distance shares the last bucket. One table per model
// (per stack in a Seq2Seq model: source and target positions are separate modules),
// shared by all its layers, as in T5, where only a stack's first layer holds it; the
// models give positions to no cross-attention, which in T5 has no bias either.
//
// The bucket function is HuggingFace transformers' T5Attention._relative_position_bucket
// (src/transformers/models/t5/modeling_t5.py, itself from Mesh TensorFlow), read
// together with T5Attention.compute_bias there: bidirectional = not is_decoder. Here
// causal attention (the decoder-only models, a Seq2Seq decoder's self-attention) uses
// the unidirectional buckets and non-causal attention (encoders) the bidirectional
// ones, which split the buckets between keys before and after the query. The large
// bucket is computed in float32, as the reference computes it (torch float32 log and
// divide, then truncation), so the buckets equal PyTorch's exactly
// (tests/golden/t5_bias_*.safetensors).
//
// Defaults num_buckets = 32, max_distance = 128: T5's, the defaults of
// _relative_position_bucket's signature. Kazemnejad et al. 2023 used the same:
// McGill-NLP/length-generalization configs/models/t5a*.jsonnet set
// relative_attention_num_buckets: 32 and no max distance, and
// src/models/custom_t5_decoder_only.py (CustomT5Attention, CustomDecoderOnlyT5.__init__)
// inherits compute_bias from transformers' T5Attention and sets config.is_decoder =
// True, so their decoder-only model uses unidirectional buckets.
//
// Initialisation: zeros. T5's is normal — T5PreTrainedModel._init_weights draws
// relative_attention_bias.weight from N(0, (initializer_factor · d_model^-1/2)²) — so,
// as the zeros leave the initialisation generator untouched, every other weight of a
// model with `t5_bias` starts as it does with `none`, and the model starts as NoPE.
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "nn/init.h"
#include "nn/positions/position_encoding.h"

namespace ablate::nn {

namespace {

class T5BiasPositions : public PositionEncoding {
 public:
  T5BiasPositions(std::int64_t num_buckets, std::int64_t max_distance, std::int64_t heads,
                  DType dtype)
      : num_buckets_(num_buckets), max_distance_(max_distance), heads_(heads) {
    if (max_distance <= num_buckets / 2)
      throw std::invalid_argument(
          "t5_bias positions: max_distance = " + std::to_string(max_distance) +
          " must exceed num_buckets / 2 = " + std::to_string(num_buckets / 2) +
          " (the distances with a bucket of their own)");
    table_ = &add_parameter("weight", init::zeros({num_buckets, heads}, dtype));
  }
  PositionAction action() const override { return PositionAction::biases_scores; }
  Var score_bias(std::int64_t heads, std::int64_t tq, std::int64_t tk, bool causal,
                 DType) override {
    if (heads != heads_)
      throw std::invalid_argument("t5_bias positions: built for " + std::to_string(heads_) +
                                  " heads, asked for " + std::to_string(heads));
    Tensor buckets = Tape::current().alloc({tq, tk}, DType::i32);
    auto* b = buckets.data<std::int32_t>();
    for (std::int64_t i = 0; i < tq; ++i)
      for (std::int64_t j = 0; j < tk; ++j)
        b[i * tk + j] = t5_relative_position_bucket(j - i, !causal, num_buckets_, max_distance_);
    // [Tq, Tk, H] → [H, Tq, Tk]
    return permute(gather_rows(leaf(*table_), buckets), {2, 0, 1});
  }

 private:
  std::int64_t num_buckets_, max_distance_, heads_;
  Parameter* table_;
};

}  // namespace

// _relative_position_bucket of transformers' T5Attention, for one relative position
// (key position - query position).
std::int32_t t5_relative_position_bucket(std::int64_t relative_position, bool bidirectional,
                                         std::int64_t num_buckets, std::int64_t max_distance) {
  std::int64_t bucket = 0, n = relative_position;
  if (bidirectional) {
    num_buckets /= 2;
    if (n > 0) bucket += num_buckets;
    n = n < 0 ? -n : n;
  } else {
    n = n < 0 ? -n : 0;  // keys after the query (masked when causal) share bucket 0
  }
  const std::int64_t max_exact = num_buckets / 2;
  if (n < max_exact) return std::int32_t(bucket + n);
  // In float32, as torch.log(n.float() / max_exact) / math.log(...) * (...) is.
  float large = std::log(float(n) / float(max_exact));
  large = large / float(std::log(double(max_distance) / double(max_exact)));
  large = large * float(num_buckets - max_exact);
  const std::int64_t if_large = std::min(max_exact + std::int64_t(large), num_buckets - 1);
  return std::int32_t(bucket + if_large);
}

void register_t5_bias_positions(PositionRegistry& r) {
  r.add({"t5_bias",
         "learned per-head bias on attention scores by relative-position bucket (T5, Raffel "
         "et al. 2020)",
         {{"num_buckets", std::int64_t(32), "buckets of relative position (rows of the table)", 4,
           1e6},
          {"max_distance", std::int64_t(128),
           "distance from which every relative position shares the last bucket", 2, 1e9}},
         [](const Options& o, const BuildContext& c) {
           return std::make_unique<T5BiasPositions>(o.get_int("num_buckets"),
                                                    o.get_int("max_distance"), c.heads, c.dtype);
         }});
}

}  // namespace ablate::nn
