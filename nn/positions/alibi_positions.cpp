// ALiBi (Press et al. 2022): no position embeddings; each head h adds -m_h·|i - j| to
// the score of query i and key j, with slopes m_h = 2^(-8h/H), h = 1..H (the paper's
// geometric sequence). |i - j| keeps it usable in encoders; under a causal mask it is
// the paper's -(i - j).
#include <cmath>
#include <cstdlib>

#include "nn/positions/position_encoding.h"

namespace ablate::nn {

namespace {

class AlibiPositions : public PositionEncoding {
 public:
  PositionAction action() const override { return PositionAction::biases_scores; }
  Var score_bias(std::int64_t heads, std::int64_t tq, std::int64_t tk, bool /*causal*/,
                 DType dtype) override {
    Tensor bias = Tape::current().alloc({heads, tq, tk}, dtype);
    for (std::int64_t h = 0; h < heads; ++h) {
      double slope = std::pow(2.0, -8.0 * double(h + 1) / double(heads));
      for (std::int64_t i = 0; i < tq; ++i)
        for (std::int64_t j = 0; j < tk; ++j)
          bias.set((h * tq + i) * tk + j, -slope * double(std::llabs(i - j)));
    }
    return constant(bias);
  }
};

}  // namespace

void register_alibi_positions(PositionRegistry& r) {
  r.add({"alibi",
         "linear distance penalties on attention scores (ALiBi, Press et al. 2022)",
         {},
         [](const Options&, const BuildContext&) { return std::make_unique<AlibiPositions>(); }});
}

}  // namespace ablate::nn
