#pragma once
// Position information, the "positions" axis. A scheme acts in one of three places —
// added to the token embeddings (sinusoidal, learned), rotating per-head queries and
// keys (rotary), or biasing attention scores (ALiBi, T5's learned bias) — or nowhere
// (`none`), and says which (PositionAction).
#include "nn/build_context.h"
#include "nn/module.h"
#include "nn/registry.h"

namespace ablate::nn {

// Where a scheme acts. Each scheme declares it, and the models and the attention
// consult only the declaration: they call the one function it names (the defaults
// throw, so a scheme that declares an action without implementing it fails at once,
// naming both), and attention takes its fused path only when the scheme does not act
// inside it.
enum class PositionAction {
  none,                  // nothing (no position information)
  added_to_embeddings,   // add_to_embeddings: sinusoidal, learned
  rotates_queries_keys,  // rotate, on every attention's per-head queries and keys: rotary
  biases_scores,         // score_bias, added to every attention's scores: ALiBi, t5_bias
};
const char* position_action_name(PositionAction action);

class PositionEncoding : public Module {
 public:
  virtual PositionAction action() const = 0;
  // added_to_embeddings: token embeddings x [B, T, D] → x with positions 0..T-1 added.
  virtual Var add_to_embeddings(const Var& x);
  // rotates_queries_keys: per-head queries or keys [B, H, T, d_k] → rotated.
  virtual Var rotate(const Var& x);
  // biases_scores: a bias [H, Tq, Tk] for attention scores, on the tape (a constant, or
  // with gradients into the scheme's parameters); causal: the attention is causal (T5
  // then uses its unidirectional buckets).
  virtual Var score_bias(std::int64_t heads, std::int64_t tq, std::int64_t tk, bool causal,
                         DType dtype);
  bool acts_in_attention() const {
    return action() == PositionAction::rotates_queries_keys ||
           action() == PositionAction::biases_scores;
  }
  // The longest sequence accepted; 0 = any length.
  virtual std::int64_t max_len() const { return 0; }

 protected:
  // Throws a clear error when a table-based scheme sees a sequence longer than max_len.
  void check_length(std::int64_t length, const char* scheme) const;
};

using PositionRegistry = Registry<PositionEncoding, const BuildContext&>;
PositionRegistry& position_registry();

// One registration function per built-in scheme (each in its own file).
void register_no_positions(PositionRegistry&);
void register_sinusoidal_positions(PositionRegistry&);
void register_learned_positions(PositionRegistry&);
void register_rotary_positions(PositionRegistry&);
void register_alibi_positions(PositionRegistry&);
void register_t5_bias_positions(PositionRegistry&);

// T5's bucket of a relative position (key position - query position) — transformers'
// T5Attention._relative_position_bucket (t5_bias_positions.cpp).
std::int32_t t5_relative_position_bucket(std::int64_t relative_position, bool bidirectional,
                                         std::int64_t num_buckets, std::int64_t max_distance);

}  // namespace ablate::nn
