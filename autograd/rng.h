#pragma once
// Seeded random numbers that are the same on every machine.
//
// The bit stream is xoshiro256** (Blackman & Vigna, 2018), its 256-bit state filled
// from the 64-bit seed by SplitMix64 — both fully specified integer algorithms, so
// the stream is identical on every platform and compiler (unlike std::*_distribution,
// whose algorithms the C++ standard leaves to the library).
//   uniform:   the top 53 bits scaled by 2^-53 into [0, 1) (f32 tensors round that double)
//   bernoulli: uniform() < p
//   normal:    Marsaglia's polar method on two uniforms; it uses std::log and
//              std::sqrt (sqrt is exact in IEEE 754; glibc's log is the same on every
//              Debian machine, other libms may differ in the last bit).
// Tensors of either float dtype are filled from the same double draws, so an f32
// tensor equals the rounded f64 tensor of the same seed.
#include <cstdint>

#include "autograd/tensor.h"

namespace ablate {

class Generator {
 public:
  explicit Generator(std::uint64_t seed = 0);

  std::uint64_t next_u64();
  double uniform();  // [0, 1)
  double normal();   // mean 0, standard deviation 1
  // An independent generator for a sub-stream (e.g. one per trial or per worker).
  Generator fork(std::uint64_t stream) const;

  // The whole state (the xoshiro words and the cached second normal draw), so a
  // stopped training run continues the same stream when resumed.
  struct State {
    std::uint64_t words[4];
    double spare_normal;
    bool has_spare;
  };
  State state() const;
  void set_state(const State& state);

 private:
  std::uint64_t s_[4];
  double spare_normal_ = 0;
  bool has_spare_ = false;
};

Tensor randn(const Shape& shape, Generator& gen, DType dtype = DType::f32, double mean = 0.0,
             double stddev = 1.0);
Tensor rand_uniform(const Shape& shape, Generator& gen, DType dtype = DType::f32, double low = 0.0,
                    double high = 1.0);
// 1 with probability p, else 0, in `dtype` (b8 for masks, or a float dtype).
Tensor bernoulli(const Shape& shape, double p, Generator& gen, DType dtype = DType::f32);

}  // namespace ablate
