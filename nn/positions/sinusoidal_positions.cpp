// Sinusoidal positions, "Attention Is All You Need" §3.5:
//   PE[pos, 2i] = sin(pos / 10000^(2i/d)),  PE[pos, 2i+1] = cos(pos / 10000^(2i/d)),
// a fixed max_len × d table added to the token embeddings.
#include <cmath>

#include "nn/positions/position_encoding.h"

namespace ablate::nn {

namespace {

class SinusoidalPositions : public PositionEncoding {
 public:
  SinusoidalPositions(std::int64_t max_len, std::int64_t d, double base, DType dtype)
      : max_len_(max_len), d_(d) {
    table_ = &add_buffer("table", Tensor::empty({max_len, d}, dtype));
    for (std::int64_t pos = 0; pos < max_len; ++pos)
      for (std::int64_t i = 0; i < d; ++i) {
        double angle = double(pos) / std::pow(base, double(2 * (i / 2)) / double(d));
        table_->set(pos * d + i, i % 2 == 0 ? std::sin(angle) : std::cos(angle));
      }
  }
  PositionAction action() const override { return PositionAction::added_to_embeddings; }
  Var add_to_embeddings(const Var& x) override {
    std::int64_t T = x.shape()[1];
    check_length(T, "sinusoidal");
    Tensor rows = table_->reshaped({max_len_, d_});
    return x + slice(constant(rows), 0, 0, T);
  }
  std::int64_t max_len() const override { return max_len_; }

 private:
  std::int64_t max_len_, d_;
  Tensor* table_;
};

}  // namespace

void register_sinusoidal_positions(PositionRegistry& r) {
  r.add({"sinusoidal",
         "fixed sin/cos table added to the embeddings (Vaswani et al. 2017, §3.5)",
         {{"max_len", std::int64_t(512), "longest sequence (rows of the table)", 1, 1e7},
          {"base", 10000.0, "wavelength base", 1.0, 1e12}},
         [](const Options& o, const BuildContext& c) {
           return std::make_unique<SinusoidalPositions>(std::max(o.get_int("max_len"), c.max_len),
                                                        c.d_model, o.get_float("base"), c.dtype);
         }});
}

}  // namespace ablate::nn
