#include "nn/positions/position_encoding.h"

namespace ablate::nn {

void PositionEncoding::check_length(std::int64_t length, const char* scheme) const {
  if (max_len() > 0 && length > max_len())
    throw std::invalid_argument(std::string(scheme) + " positions: sequence of length " +
                                std::to_string(length) + " is longer than max_len = " +
                                std::to_string(max_len()) + " (raise positions.max_len)");
}

PositionRegistry& position_registry() {
  static PositionRegistry registry = [] {
    PositionRegistry r("positions");
    register_sinusoidal_positions(r);
    register_learned_positions(r);
    register_no_positions(r);
    register_rotary_positions(r);
    register_alibi_positions(r);
    return r;
  }();
  return registry;
}

}  // namespace ablate::nn
