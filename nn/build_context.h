#pragma once
// What a component's factory may need to know about the model it is built into.
// One struct for every axis, so every registry has the same factory signature.
#include <cstdint>
#include <stdexcept>

#include "autograd/rng.h"

namespace ablate::nn {

struct BuildContext {
  std::int64_t d_model = 0;
  std::int64_t heads = 1;
  std::int64_t d_k = 0;      // per head (queries and keys)
  std::int64_t d_v = 0;      // per head (values)
  std::int64_t d_ff = 0;     // feed-forward inner width
  std::int64_t max_len = 0;  // longest sequence the model must accept
  bool bias = true;          // projections carry biases
  double dropout = 0.0;
  DType dtype = DType::f32;
  Generator* init = nullptr;         // draws initial weights
  Generator* dropout_rng = nullptr;  // draws dropout masks while training

  Generator& init_rng() const {
    if (!init) throw std::logic_error("BuildContext: no initialisation generator");
    return *init;
  }
  Generator& dropout_generator() const {
    if (!dropout_rng) throw std::logic_error("BuildContext: no dropout generator");
    return *dropout_rng;
  }
};

}  // namespace ablate::nn
