#include "autograd/rng.h"

#include <cmath>
#include <stdexcept>

namespace ablate {

namespace {

std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t rotl(std::uint64_t x, int k) {
  return (x << k) | (x >> (64 - k));
}

}  // namespace

Generator::Generator(std::uint64_t seed) {
  std::uint64_t x = seed;
  for (auto& s : s_) s = splitmix64(x);
}

Generator::State Generator::state() const {
  return {{s_[0], s_[1], s_[2], s_[3]}, spare_normal_, has_spare_};
}

void Generator::set_state(const State& state) {
  for (int i = 0; i < 4; ++i) s_[i] = state.words[i];
  spare_normal_ = state.spare_normal;
  has_spare_ = state.has_spare;
}

std::uint64_t Generator::next_u64() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double Generator::uniform() {
  return double(next_u64() >> 11) * 0x1.0p-53;
}

double Generator::normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_normal_;
  }
  double u, v, s;
  do {
    u = 2.0 * uniform() - 1.0;
    v = 2.0 * uniform() - 1.0;
    s = u * u + v * v;
  } while (s >= 1.0 || s == 0.0);
  double m = std::sqrt(-2.0 * std::log(s) / s);
  spare_normal_ = v * m;
  has_spare_ = true;
  return u * m;
}

Generator Generator::fork(std::uint64_t stream) const {
  // Mix the parent's state with the stream id through SplitMix64: distinct streams
  // give unrelated seeds, and forking does not advance the parent.
  std::uint64_t x = s_[0] ^ rotl(s_[1], 13) ^ rotl(s_[2], 29) ^ rotl(s_[3], 47);
  x ^= splitmix64(stream);
  return Generator(splitmix64(x));
}

namespace {

template <class Draw>
Tensor fill_float(const Shape& shape, DType dtype, Draw draw) {
  Tensor t = Tensor::empty(shape, dtype);
  dispatch_float(dtype, "random fill", [&]<class T>() {
    T* p = t.data<T>();
    for (std::int64_t i = 0, n = t.numel(); i < n; ++i) p[i] = static_cast<T>(draw());
  });
  return t;
}

}  // namespace

Tensor randn(const Shape& shape, Generator& gen, DType dtype, double mean, double stddev) {
  return fill_float(shape, dtype, [&] { return mean + stddev * gen.normal(); });
}

Tensor rand_uniform(const Shape& shape, Generator& gen, DType dtype, double low, double high) {
  return fill_float(shape, dtype, [&] { return low + (high - low) * gen.uniform(); });
}

Tensor bernoulli(const Shape& shape, double p, Generator& gen, DType dtype) {
  if (!(p >= 0.0 && p <= 1.0))
    throw std::invalid_argument("bernoulli: p must be in [0, 1], got " + std::to_string(p));
  Tensor t = Tensor::empty(shape, dtype);
  for (std::int64_t i = 0, n = t.numel(); i < n; ++i) t.set(i, gen.uniform() < p ? 1.0 : 0.0);
  return t;
}

}  // namespace ablate
