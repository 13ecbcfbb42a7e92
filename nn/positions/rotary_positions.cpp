// Rotary position embedding (RoPE, Su et al. 2021), "rotate half" form (GPT-NeoX):
// each query and key vector of a head is rotated pairwise, dims i and i + d/2 by the
// angle pos·base^(-2i/d), so q·k depends on the relative offset. Nothing is added to
// the embeddings.
#include <cmath>

#include "nn/positions/position_encoding.h"

namespace ablate::nn {

namespace {

// Rotation pairs the two halves of each head's dimensions.
void require_even_head_dimension(std::int64_t d_k) {
  if (d_k % 2 != 0)
    throw std::invalid_argument("rotary positions need an even head dimension, got d_k = " +
                                std::to_string(d_k));
}

class RotaryPositions : public PositionEncoding {
 public:
  PositionAction action() const override { return PositionAction::rotates_queries_keys; }
  explicit RotaryPositions(double base) : base_(base) {}

  // x [B, H, T, d]: x·cos + rotate_half(x)·sin, rotate_half(x) = [-x2, x1].
  Var rotate(const Var& x) override {
    const Shape& s = x.shape();
    std::int64_t T = s[2], d = s[3];
    require_even_head_dimension(d);
    Tape& tape = Tape::current();
    Tensor cos = tape.alloc({T, d}, x.dtype()), sin = tape.alloc({T, d}, x.dtype());
    for (std::int64_t t = 0; t < T; ++t)
      for (std::int64_t i = 0; i < d; ++i) {
        double angle = double(t) * std::pow(base_, -double(2 * (i % (d / 2))) / double(d));
        cos.set(t * d + i, std::cos(angle));
        sin.set(t * d + i, std::sin(angle));
      }
    Var x1 = slice(x, 3, 0, d / 2), x2 = slice(x, 3, d / 2, d);
    return x * constant(cos) + concat({-x2, x1}, 3) * constant(sin);
  }

 private:
  double base_;
};

}  // namespace

void register_rotary_positions(PositionRegistry& r) {
  r.add({"rotary",
         "rotates queries and keys by position (RoPE, Su et al. 2021)",
         {{"base", 10000.0, "wavelength base", 1.0, 1e12}},
         [](const Options& o, const BuildContext& ctx) {
           // At build time too, so `ablate check` refuses the model, not its first step.
           require_even_head_dimension(ctx.d_k);
           return std::make_unique<RotaryPositions>(o.get_float("base"));
         }});
}

}  // namespace ablate::nn
