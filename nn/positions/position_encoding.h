#pragma once
// Position information, the "positions" axis. A scheme acts in one of three places:
// added to the token embeddings (sinusoidal, learned), rotating per-head queries and
// keys (rotary), or biasing attention scores (ALiBi); `none` does nothing.
#include "nn/build_context.h"
#include "nn/module.h"
#include "nn/registry.h"

namespace ablate::nn {

class PositionEncoding : public Module {
 public:
  // Token embeddings x [B, T, D] → x with positions 0..T-1 added (additive schemes).
  virtual Var add_to_embeddings(const Var& x) { return x; }
  // Per-head queries or keys [B, H, T, d_k] → rotated (rotary); others return x.
  virtual Var rotate(const Var& x) { return x; }
  // A bias [H, Tq, Tk] for attention scores (ALiBi), in the arena; undefined if none.
  virtual Tensor score_bias(std::int64_t heads, std::int64_t tq, std::int64_t tk, DType dtype) {
    (void)heads, (void)tq, (void)tk, (void)dtype;
    return Tensor();
  }
  // True for schemes that act inside attention (rotate or score_bias do something).
  virtual bool acts_in_attention() const { return false; }
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

}  // namespace ablate::nn
